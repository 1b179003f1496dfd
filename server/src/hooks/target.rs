//! Where hooks may post: `[hooks] allowed_hosts` checked on create and again on every
//! address a try connects to (a resolver that drops the others), so a hook never reaches
//! the server's own network unless the operator allows it.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// One entry of `allowed_hosts`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    /// Public addresses: not loopback, private, link-local, unspecified or multicast.
    External,
    /// Private ranges (RFC 1918, unique local, link-local, shared address space).
    Private,
    Loopback,
    Any,
    /// A host name, any case.
    Host(String),
    /// An address range.
    Cidr(IpAddr, u8),
}

impl Allowed {
    pub fn parse(entry: &str) -> Result<Allowed, String> {
        let entry = entry.trim();
        Ok(match entry {
            "external" => Allowed::External,
            "private" => Allowed::Private,
            "loopback" => Allowed::Loopback,
            "*" => Allowed::Any,
            _ => match entry.split_once('/') {
                Some((ip, bits)) => {
                    let ip: IpAddr = ip.parse().map_err(|_| format!("{entry:?} is not a CIDR"))?;
                    let max = if ip.is_ipv4() { 32 } else { 128 };
                    let bits: u8 = bits
                        .parse()
                        .ok()
                        .filter(|b| *b <= max)
                        .ok_or_else(|| format!("{entry:?} is not a CIDR"))?;
                    Allowed::Cidr(ip, bits)
                }
                None if entry.is_empty() => return Err("an empty entry".into()),
                None => match entry.parse::<IpAddr>() {
                    Ok(ip) => Allowed::Cidr(ip, if ip.is_ipv4() { 32 } else { 128 }),
                    Err(_) => Allowed::Host(entry.to_ascii_lowercase()),
                },
            },
        })
    }

    fn admits(&self, host: &str, ip: IpAddr) -> bool {
        match self {
            Allowed::Any => true,
            Allowed::Loopback => ip.is_loopback(),
            Allowed::Private => is_private(ip),
            Allowed::External => is_external(ip),
            Allowed::Host(name) => host.eq_ignore_ascii_case(name),
            Allowed::Cidr(net, bits) => in_cidr(ip, *net, *bits),
        }
    }
}

/// The parsed `allowed_hosts`.
#[derive(Debug, Clone)]
pub struct Policy(Vec<Allowed>);

impl Policy {
    /// The setting's entries; a bad one was refused when the settings were read.
    pub fn new(entries: &[String]) -> Policy {
        Policy(
            entries
                .iter()
                .filter_map(|e| Allowed::parse(e).ok())
                .collect(),
        )
    }

    /// Whether a try may connect to `ip` for the host `host`.
    pub fn admits(&self, host: &str, ip: IpAddr) -> bool {
        self.0.iter().any(|a| a.admits(host, ip))
    }

    /// Checks a hook URL: http or https with a host, and (when the host is an address,
    /// or resolves now) an address the policy admits. The answer says what is wrong.
    pub async fn check_url(&self, url: &str) -> Result<url::Url, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("{url:?} is not a URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err("a hook URL is http or https".into());
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err("a hook URL carries no user name or password; sign with the secret".into());
        }
        let host = parsed
            .host_str()
            .ok_or("a hook URL needs a host")?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = parsed.port_or_known_default().unwrap_or(80);
        let addrs: Vec<IpAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => match tokio::net::lookup_host((host.as_str(), port)).await {
                Ok(found) => found.map(|a| a.ip()).collect(),
                // Not resolvable now: the check is made again on every try.
                Err(_) => return Ok(parsed),
            },
        };
        match addrs.iter().find(|ip| !self.admits(&host, **ip)) {
            Some(ip) => Err(format!(
                "{host} is {ip}, which hooks may not reach ([hooks] allowed_hosts)"
            )),
            None => Ok(parsed),
        }
    }
}

/// Resolves a hook's host and keeps only the addresses the policy admits.
#[derive(Debug, Clone)]
pub struct Resolver(pub Arc<Policy>);

impl Resolve for Resolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.0);
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| policy.admits(&host, a.ip()))
                .collect();
            if found.is_empty() {
                return Err(format!(
                    "{host} has no address hooks may reach ([hooks] allowed_hosts)"
                )
                .into());
            }
            Ok(Box::new(found.into_iter()) as Addrs)
        })
    }
}

fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            v4.is_private() || v4.is_link_local() || in_cidr(ip, [100, 64, 0, 0].into(), 10)
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80
        }
    }
}

fn is_external(ip: IpAddr) -> bool {
    let mapped = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    !(mapped.is_loopback()
        || mapped.is_unspecified()
        || mapped.is_multicast()
        || is_private(mapped)
        || matches!(mapped, IpAddr::V4(v4) if v4.is_broadcast() || v4.octets()[0] == 0))
}

fn in_cidr(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{Allowed, Policy};

    fn policy(entries: &[&str]) -> Policy {
        Policy::new(&entries.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn the_default_reaches_only_public_addresses() {
        let p = policy(&["external"]);
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.1.1",
            "172.16.0.1",
            "169.254.169.254",
            "::1",
            "fd00::1",
            "0.0.0.0",
            "::ffff:127.0.0.1",
            "100.64.0.1",
        ] {
            assert!(!p.admits("h", ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1::1"] {
            assert!(p.admits("h", ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn entries_name_ranges_hosts_and_kinds() {
        let p = policy(&["loopback", "10.0.0.0/8", "ci.example"]);
        assert!(p.admits("x", "127.0.0.1".parse().unwrap()));
        assert!(p.admits("x", "10.9.9.9".parse().unwrap()));
        assert!(!p.admits("x", "11.0.0.1".parse().unwrap()));
        assert!(p.admits("CI.example", "192.168.0.9".parse().unwrap()));
        assert!(Allowed::parse("10.0.0.0/33").is_err());
        assert!(Allowed::parse("").is_err());
        assert_eq!(Allowed::parse("*"), Ok(Allowed::Any));
    }

    #[tokio::test]
    async fn urls_are_http_with_an_admitted_host() {
        let p = policy(&["external"]);
        assert!(p.check_url("ftp://example.com/").await.is_err());
        assert!(p.check_url("http://127.0.0.1:9/hook").await.is_err());
        assert!(p.check_url("http://[::1]/hook").await.is_err());
        assert!(p.check_url("https://user:pw@93.184.216.34/").await.is_err());
        assert!(p.check_url("https://93.184.216.34/hook").await.is_ok());
        assert!(
            policy(&["loopback"])
                .check_url("http://127.0.0.1:9/")
                .await
                .is_ok()
        );
    }
}
