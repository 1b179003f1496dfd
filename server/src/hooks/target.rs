//! Where hooks may post: `[hooks] allowed_hosts` checked on create and again on every
//! address a try connects to (a resolver that drops the others; an address written in
//! the URL is checked before each try), so a hook never reaches the server's own network
//! unless the operator allows it. An IPv6 address that carries an IPv4 one (mapped,
//! NAT64, 6to4, Teredo...) is judged by what it carries.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
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

    /// Whether a try may connect to `ip` (which carries the IPv4 addresses `carried`)
    /// for `host`. An address that carries IPv4 addresses reaches them: the kinds and
    /// IPv4 ranges judge what it carries, every one of them.
    fn admits(&self, host: &str, ip: IpAddr, carried: &[Ipv4Addr]) -> bool {
        let judge = |f: &dyn Fn(IpAddr) -> bool| {
            if carried.is_empty() {
                f(ip)
            } else {
                carried.iter().all(|v4| f(IpAddr::V4(*v4)))
            }
        };
        match self {
            Allowed::Any => true,
            Allowed::Loopback => judge(&|ip: IpAddr| ip.is_loopback()),
            Allowed::Private => judge(&is_private),
            Allowed::External => judge(&is_external),
            Allowed::Host(name) => host.eq_ignore_ascii_case(name),
            Allowed::Cidr(net @ IpAddr::V4(_), bits) => {
                judge(&|ip: IpAddr| in_cidr(ip, *net, *bits))
            }
            Allowed::Cidr(net, bits) => in_cidr(ip, *net, *bits),
        }
    }
}

/// The IPv4 addresses an IPv6 address carries, by which a packet to it may reach an
/// IPv4 host: IPv4-mapped (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`),
/// IPv4-compatible (`::/96` but `::` and `::1`), NAT64 (`64:ff9b::/96`, and the
/// local-use `64:ff9b:1::/48` at each place RFC 6052 allows within it, as its prefix
/// length is the operator's), 6to4 (`2002::/16`) and Teredo (`2001::/32`: its server,
/// and its client with the bits inverted). None for any other address.
fn carried(v6: Ipv6Addr) -> Vec<Ipv4Addr> {
    let o = v6.octets();
    let v4 = Ipv4Addr::new;
    match v6.segments() {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0xffff, 0, _, _] => {
            vec![v4(o[12], o[13], o[14], o[15])]
        }
        [0, 0, 0, 0, 0, 0, 0, 0 | 1] => Vec::new(),
        [0, 0, 0, 0, 0, 0, _, _] => vec![v4(o[12], o[13], o[14], o[15])],
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => vec![v4(o[12], o[13], o[14], o[15])],
        [0x64, 0xff9b, 1, ..] => vec![
            // RFC 6052 2.2: prefix /48, /56, /64, /96; bits 64..71 are never used.
            v4(o[6], o[7], o[9], o[10]),
            v4(o[7], o[9], o[10], o[11]),
            v4(o[9], o[10], o[11], o[12]),
            v4(o[12], o[13], o[14], o[15]),
        ],
        [0x2002, ..] => vec![v4(o[2], o[3], o[4], o[5])],
        [0x2001, 0, ..] => vec![
            v4(o[4], o[5], o[6], o[7]),
            v4(!o[12], !o[13], !o[14], !o[15]),
        ],
        _ => Vec::new(),
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
        let carried = match ip {
            IpAddr::V6(v6) => carried(v6),
            IpAddr::V4(_) => Vec::new(),
        };
        self.0.iter().any(|a| a.admits(host, ip, &carried))
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
        let host = match parsed.host().ok_or("a hook URL needs a host")? {
            url::Host::Domain(name) => name.to_owned(),
            _ => {
                self.check_literal(&parsed)?;
                return Ok(parsed);
            }
        };
        let port = parsed.port_or_known_default().unwrap_or(80);
        let addrs: Vec<IpAddr> = match tokio::net::lookup_host((host.as_str(), port)).await {
            Ok(found) => found.map(|a| a.ip()).collect(),
            // Not resolvable now: the check is made again on every try.
            Err(_) => return Ok(parsed),
        };
        match addrs.iter().find(|ip| !self.admits(&host, **ip)) {
            Some(ip) => Err(refused(&host, *ip)),
            None => Ok(parsed),
        }
    }

    /// Checks a URL whose host is an IP address, which no resolver sees: on create and
    /// again before every try, so a stored hook follows the setting of the day.
    pub fn check_literal(&self, url: &url::Url) -> Result<(), String> {
        let ip = match url.host() {
            Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
            _ => return Ok(()),
        };
        let host = ip.to_string();
        if self.admits(&host, ip) {
            Ok(())
        } else {
            Err(refused(&host, ip))
        }
    }
}

fn refused(host: &str, ip: IpAddr) -> String {
    format!("{host} is {ip}, which hooks may not reach ([hooks] allowed_hosts)")
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
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || is_private(ip)
        || matches!(ip, IpAddr::V4(v4) if v4.is_broadcast() || v4.octets()[0] == 0))
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

    /// Each IPv6 form that carries `v4`, written as an URL's host would be.
    fn carrying(v4: [u8; 4]) -> Vec<String> {
        let [a, b, c, d] = v4;
        let (hi, lo) = (u16::from_be_bytes([a, b]), u16::from_be_bytes([c, d]));
        let (ti, tl) = (u16::from_be_bytes([!a, !b]), u16::from_be_bytes([!c, !d]));
        vec![
            format!("::ffff:{a}.{b}.{c}.{d}"),
            format!("::ffff:0:{hi:x}:{lo:x}"),
            format!("::{hi:x}:{lo:x}"),
            format!("64:ff9b::{hi:x}:{lo:x}"),
            format!("2002:{hi:x}:{lo:x}::1"),
            format!("64:ff9b:1::{hi:x}:{lo:x}"),
            // Teredo: a public server (8.8.8.8), the client inverted in the last 32 bits.
            format!("2001:0:808:808::{ti:x}:{tl:x}"),
        ]
    }

    #[test]
    fn ipv6_forms_are_judged_by_the_ipv4_they_carry() {
        let external = policy(&["external"]);
        for v4 in [
            [127, 0, 0, 1],
            [10, 1, 2, 3],
            [192, 168, 1, 1],
            [169, 254, 169, 254],
            [100, 64, 0, 1],
            [0, 0, 0, 0],
            [255, 255, 255, 255],
        ] {
            for ip in carrying(v4) {
                let addr = ip.parse().unwrap();
                assert!(!external.admits("h", addr), "{ip} carries {v4:?}");
            }
        }
        // Each form but the local-use NAT64 prefix's, whose other places carry 0.0.0.0.
        let public = carrying([93, 184, 216, 34]);
        let (local_use, others): (Vec<_>, Vec<_>) =
            public.iter().partition(|ip| ip.starts_with("64:ff9b:1:"));
        for ip in others {
            assert!(external.admits("h", ip.parse().unwrap()), "{ip}");
        }
        assert!(!external.admits("h", local_use[0].parse().unwrap()));
        // The forms the outside tester found, and a Teredo client on loopback.
        for ip in [
            "::7f00:1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
            "2001:0:5db8:d822::80ff:fffe",
        ] {
            assert!(!external.admits("h", ip.parse().unwrap()), "{ip}");
        }
        // The local-use NAT64 prefix's length is the operator's: every place counts.
        assert!(!external.admits("h", "64:ff9b:1:7f00:1:5db8:d822:0".parse().unwrap()));
        assert!(external.admits("h", "64:ff9b:1:808:8:808:808:808".parse().unwrap()));
        // A Teredo server on a private network is refused whatever its client.
        assert!(!external.admits("h", "2001:0:a00:1::a247:2bdd".parse().unwrap()));
        // Plain IPv6 is judged as itself; :: and ::1 carry nothing.
        assert!(external.admits("h", "2606:2800:220:1::1".parse().unwrap()));
        assert!(!external.admits("h", "::1".parse().unwrap()));
        assert!(!external.admits("h", "::".parse().unwrap()));

        // The kinds and IPv4 ranges that allow an address allow it carried too.
        let loopback = policy(&["loopback"]);
        for ip in &carrying([127, 0, 0, 1])[..5] {
            assert!(loopback.admits("h", ip.parse().unwrap()), "{ip}");
        }
        assert!(!loopback.admits("h", "::ffff:10.0.0.1".parse().unwrap()));
        let private = policy(&["private", "10.0.0.0/8"]);
        assert!(private.admits("h", "64:ff9b::c0a8:101".parse().unwrap()));
        assert!(private.admits("h", "::ffff:10.9.9.9".parse().unwrap()));
        assert!(!private.admits("h", "2002:7f00:1::".parse().unwrap()));
        // An IPv6 range names IPv6 addresses as they are written.
        assert!(policy(&["2002::/16"]).admits("h", "2002:7f00:1::".parse().unwrap()));
    }

    #[tokio::test]
    async fn address_literals_are_checked_as_written() {
        let p = policy(&["external"]);
        for url in [
            "http://[::7f00:1]/h",
            "http://[64:ff9b::7f00:1]/h",
            "http://[2002:7f00:1::]/h",
            "http://[::ffff:7f00:1]:8080/h",
            "http://[2001:0:5db8:d822::80ff:fffe]/h",
            "http://0x7f000001/h",
            "http://2130706433/h",
            "http://127.1/h",
        ] {
            assert!(p.check_url(url).await.is_err(), "{url}");
            let parsed = url::Url::parse(url).unwrap();
            assert!(p.check_literal(&parsed).is_err(), "{url}");
        }
        let ok = url::Url::parse("http://[64:ff9b::5db8:d822]/h").unwrap();
        assert!(p.check_literal(&ok).is_ok());
        assert!(p.check_url(ok.as_str()).await.is_ok());
        let named = url::Url::parse("http://localhost/h").unwrap();
        assert!(p.check_literal(&named).is_ok(), "names are the resolver's");
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
