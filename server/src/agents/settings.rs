//! `[agents]`: the coding agents (runners) this server may run, the models sessions
//! choose from, and the limits that keep sessions from taking the machine.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;
use svc_protocol::agent::AgentModel;

use super::format::Format;
use super::network::{self, Net};
use super::run::{Network, Sandbox};
use super::secrets::{Masker, Secret};

/// `[agents]` of the server's TOML.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AgentsSettings {
    /// `[agents.runners.<name>]`: how to start each coding agent.
    pub runners: BTreeMap<String, Runner>,
    /// `[[agents.models]]`: what sessions may choose; the first is the default.
    pub models: Vec<Model>,
    /// What runners run inside: `bwrap` (bubblewrap, the default) or `none`.
    pub sandbox: Sandbox,
    /// A bwrap sandbox's network: `isolated` (the default: the network, but of the
    /// host's loopback only svc's port and `host_ports`) or `host`.
    pub network: Option<Network>,
    /// Sessions running at once on this server.
    pub max_running: usize,
    /// Sessions one person may have running at once.
    pub max_running_per_person: usize,
    /// Messages a transcript holds; a run that would write more is stopped as failed.
    pub max_messages: usize,
    /// Bytes of runner output a run may write (its transcript and the text kept of
    /// lines that are not JSON); a runner that floods is stopped as failed.
    pub max_output_bytes: usize,
    /// Seconds a run may take before it is stopped as failed.
    pub max_run_seconds: u64,
    /// The `svc` program runners get on their PATH (for `svc mcp`, svc's tools)
    /// [default: the `svc` beside the server's own program, when there is one].
    pub svc: Option<std::path::PathBuf>,
}

impl Default for AgentsSettings {
    fn default() -> Self {
        Self {
            runners: BTreeMap::new(),
            models: Vec::new(),
            sandbox: Sandbox::Bwrap,
            network: None,
            max_running: 8,
            max_running_per_person: 3,
            max_messages: 5_000,
            max_output_bytes: 32 * 1024 * 1024,
            max_run_seconds: 3_600,
            svc: None,
        }
    }
}

/// `[agents.runners.<name>]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runner {
    /// The program and its arguments; the prompt goes to its standard input.
    pub command: Vec<String>,
    /// How its standard output reads.
    pub format: Format,
    /// Variables of its environment, plain values (e.g. a model API's base URL).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Names of the server's own environment variables passed through, as secrets.
    #[serde(default)]
    pub secret_env: Vec<String>,
    /// Variable name → a file only the server's user may read, whose content (without
    /// its trailing newline) is the variable's value, as a secret.
    #[serde(default)]
    pub secret_files: BTreeMap<String, PathBuf>,
    /// Host paths shown read-only in the sandbox at the same path.
    #[serde(default)]
    pub ro_paths: Vec<PathBuf>,
    /// Host loopback TCP ports an isolated sandbox may reach besides svc's.
    #[serde(default)]
    pub host_ports: Vec<u16>,
    /// Files placed in the session's HOME before each run: relative path → content.
    #[serde(default)]
    pub home_files: BTreeMap<String, String>,
    /// The values of `secret_env` and `secret_files`, read at start
    /// ([`AgentsSettings::load_secrets`]).
    #[serde(skip)]
    pub secrets: Vec<(String, Secret)>,
}

impl Runner {
    /// The environment its settings give it: plain values, then secrets.
    pub fn env(&self) -> impl Iterator<Item = (String, String)> + '_ {
        let plain = self.env.iter().map(|(k, v)| (k.clone(), v.clone()));
        let secret = self
            .secrets
            .iter()
            .map(|(k, v)| (k.clone(), v.expose().to_owned()));
        plain.chain(secret)
    }

    /// Masks its secrets out of what it says.
    pub fn masker(&self) -> Masker {
        Masker::new(self.secrets.iter().map(|(_, s)| s))
    }
}

/// Variables the server sets for every runner, which settings may not override.
fn reserved(name: &str) -> bool {
    matches!(name, "HOME" | "PATH") || name.starts_with("SVC_") || name.starts_with("GIT_CONFIG_")
}

/// `[[agents.models]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// What launchAgent's `model` names.
    pub id: String,
    /// The runner it runs with.
    pub runner: String,
    /// Appended to the runner's command.
    #[serde(default)]
    pub args: Vec<String>,
}

impl AgentsSettings {
    /// Reads `[agents]` as written in the server's TOML (without the header), checks it
    /// and reads its secrets; what tests and embedders configure agents with.
    pub fn from_toml(text: &str) -> anyhow::Result<AgentsSettings> {
        let mut settings: AgentsSettings = toml::from_str(text)?;
        settings.check()?;
        settings.load_secrets()?;
        Ok(settings)
    }

    /// The network bwrap sandboxes get: `isolated` unless set (no sandbox: the host's).
    pub fn network(&self) -> Network {
        match (self.sandbox, self.network) {
            (Sandbox::None, _) => Network::Host,
            (Sandbox::Bwrap, network) => network.unwrap_or(Network::Isolated),
        }
    }

    /// A sandbox's network for a server whose base URL is `base_url`: when isolated, it
    /// reaches svc's port on the host's loopback (if the base URL names the loopback;
    /// otherwise svc is on the network) and `host_ports`.
    pub fn net(&self, base_url: &url::Url, host_ports: &[u16]) -> Net {
        if self.network() == Network::Host {
            return Net::Host;
        }
        let loopback = match base_url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        };
        let mut ports: Vec<u16> = base_url
            .port_or_known_default()
            .filter(|_| loopback)
            .into_iter()
            .chain(host_ports.iter().copied())
            .collect();
        ports.sort_unstable();
        ports.dedup();
        Net::Isolated { ports }
    }

    /// Reads the runners' secrets: `secret_env` from the server's environment and
    /// `secret_files` from files only the server's user may read.
    pub fn load_secrets(&mut self) -> anyhow::Result<()> {
        for (name, runner) in &mut self.runners {
            let mut secrets = Vec::new();
            for var in &runner.secret_env {
                let value = std::env::var(var).map_err(|_| {
                    anyhow::anyhow!(
                        "[agents.runners.{name}] secret_env names {var}, which the server's environment does not have"
                    )
                })?;
                let secret = Secret::new(value).map_err(|why| {
                    anyhow::anyhow!("[agents.runners.{name}] secret_env {var}: its value {why}")
                })?;
                secrets.push((var.clone(), secret));
            }
            for (var, path) in &runner.secret_files {
                let value = read_secret_file(path)
                    .with_context(|| format!("[agents.runners.{name}] secret_files {var}"))?;
                let secret = Secret::new(value).map_err(|why| {
                    anyhow::anyhow!(
                        "[agents.runners.{name}] secret_files {var}: {} {why}",
                        path.display()
                    )
                })?;
                secrets.push((var.clone(), secret));
            }
            runner.secrets = secrets;
        }
        Ok(())
    }

    /// Refuses settings a session could not start with.
    pub fn check(&self) -> anyhow::Result<()> {
        for (name, runner) in &self.runners {
            // The name is what a session's actions record as their agent.
            if name.trim().is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
                bail!("[agents.runners.{name:?}] needs a name of 1 to 64 printable characters");
            }
            if runner.command.first().is_none_or(|p| p.trim().is_empty()) {
                bail!("[agents.runners.{name}] command needs a program");
            }
            self.check_runner(name, runner)?;
        }
        if self.sandbox == Sandbox::None && self.network == Some(Network::Isolated) {
            bail!("[agents] network = \"isolated\" needs sandbox = \"bwrap\"");
        }
        if !self.runners.is_empty() && self.network() == Network::Isolated {
            network::check_installed().map_err(|e| anyhow::anyhow!(e))?;
        }
        for (i, model) in self.models.iter().enumerate() {
            if model.id.trim().is_empty() {
                bail!("[[agents.models]] number {} needs an id", i + 1);
            }
            if !self.runners.contains_key(&model.runner) {
                bail!(
                    "[[agents.models]] {} names runner {:?}, which [agents.runners] does not have",
                    model.id,
                    model.runner
                );
            }
            if self.models[..i].iter().any(|m| m.id == model.id) {
                bail!("[[agents.models]] {} is named twice", model.id);
            }
        }
        if self.max_running == 0 || self.max_running_per_person == 0 {
            bail!("[agents] max_running and max_running_per_person must be at least 1");
        }
        Ok(())
    }

    /// A runner's environment, paths and ports.
    fn check_runner(&self, name: &str, runner: &Runner) -> anyhow::Result<()> {
        let names = runner
            .env
            .keys()
            .chain(&runner.secret_env)
            .chain(runner.secret_files.keys());
        let mut seen = std::collections::BTreeSet::new();
        for var in names {
            if var.is_empty() || var.contains(['=', '\0']) {
                bail!("[agents.runners.{name}] {var:?} is not a variable name");
            }
            if reserved(var) {
                bail!(
                    "[agents.runners.{name}] {var} is the server's to set (HOME, PATH, SVC_* and GIT_CONFIG_* are reserved)"
                );
            }
            if !seen.insert(var) {
                bail!(
                    "[agents.runners.{name}] {var} is given twice (in env, secret_env or secret_files)"
                );
            }
        }
        for path in runner.home_files.keys() {
            let p = Path::new(path);
            if path.is_empty() || !p.components().all(|c| matches!(c, Component::Normal(_))) {
                bail!(
                    "[agents.runners.{name}] home_files {path:?} must be a relative path within HOME (no `..`, not absolute)"
                );
            }
        }
        for path in &runner.ro_paths {
            if !path.is_absolute() {
                bail!(
                    "[agents.runners.{name}] ro_paths {} must be an absolute path",
                    path.display()
                );
            }
            if !path.exists() {
                bail!(
                    "[agents.runners.{name}] ro_paths {} does not exist",
                    path.display()
                );
            }
        }
        if runner.host_ports.contains(&0) {
            bail!("[agents.runners.{name}] host_ports cannot hold port 0");
        }
        if !runner.host_ports.is_empty() && self.network() != Network::Isolated {
            bail!(
                "[agents.runners.{name}] host_ports only apply to network = \"isolated\" (the host's network reaches every port)"
            );
        }
        Ok(())
    }

    /// The model `id` names, or the default (the first) when none is named.
    pub fn model(&self, id: Option<&str>) -> Option<&Model> {
        match id {
            Some(id) => self.models.iter().find(|m| m.id == id),
            None => self.models.first(),
        }
    }

    /// The `svc` program to put on runners' PATH, if there is one.
    pub fn svc_binary(&self) -> Option<std::path::PathBuf> {
        let beside = || {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.join("svc"))
        };
        self.svc.clone().or_else(beside).filter(|p| p.is_file())
    }

    /// The models as agentModels answers them.
    pub fn listed(&self) -> Vec<AgentModel> {
        self.models
            .iter()
            .enumerate()
            .map(|(i, m)| AgentModel {
                id: m.id.clone(),
                runner: m.runner.clone(),
                default: i == 0,
            })
            .collect()
    }
}

/// A secret file's content without its trailing newline; refused unless only the
/// server's user can read it (owned by it, no group or other permission).
fn read_secret_file(path: &Path) -> anyhow::Result<String> {
    use std::os::unix::fs::MetadataExt;
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        bail!(
            "{} may be read by others (mode {mode:o}); make it readable only by the server's user (chmod 600)",
            path.display()
        );
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        bail!(
            "{} is not owned by the server's user; make it readable only by that user",
            path.display()
        );
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(text.trim_end_matches(['\n', '\r']).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runners_and_models_are_read_and_the_first_model_is_the_default() {
        let s = AgentsSettings::from_toml(
            r#"
            max_running = 2
            [runners.claude]
            command = ["claude", "-p", "--output-format", "stream-json", "--verbose"]
            format = "claude-stream-json"
            [runners.codex]
            command = ["codex", "exec", "--json"]
            format = "codex-json"
            [[models]]
            id = "claude-sonnet"
            runner = "claude"
            args = ["--model", "sonnet"]
            [[models]]
            id = "codex"
            runner = "codex"
            "#,
        )
        .unwrap();
        assert_eq!(s.max_running, 2);
        assert_eq!(s.max_running_per_person, 3);
        assert_eq!(s.sandbox, Sandbox::Bwrap);
        assert_eq!(s.runners["codex"].format, Format::CodexJson);
        assert_eq!(s.model(None).unwrap().id, "claude-sonnet");
        assert_eq!(s.model(Some("codex")).unwrap().args, Vec::<String>::new());
        assert!(s.model(Some("gpt")).is_none());
        let listed = s.listed();
        assert!(listed[0].default);
        assert!(!listed[1].default);
    }

    #[test]
    fn a_runners_variables_and_secrets_are_read_at_start() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key");
        std::fs::write(&key, "sk-from-a-file\n").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        // Cargo sets CARGO_MANIFEST_DIR for the tests it runs: one of the server's own
        // variables, passed through as a secret.
        let s = AgentsSettings::from_toml(&format!(
            "network = \"host\"\n[runners.r]\ncommand = [\"r\"]\nformat = \"svc-jsonl\"\n\
             env = {{ BASE = \"http://x\" }}\nsecret_env = [\"CARGO_MANIFEST_DIR\"]\n\
             secret_files = {{ KEY = \"{}\" }}\n",
            key.display()
        ))
        .unwrap();
        let runner = &s.runners["r"];
        let env: Vec<(String, String)> = runner.env().collect();
        let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
        assert_eq!(
            env,
            [
                ("BASE".to_owned(), "http://x".to_owned()),
                ("CARGO_MANIFEST_DIR".to_owned(), manifest.clone()),
                ("KEY".to_owned(), "sk-from-a-file".to_owned()),
            ]
        );
        assert_eq!(
            runner
                .masker()
                .text(&format!("{manifest} and sk-from-a-file")),
            "*** and ***"
        );
        assert!(!format!("{s:?}").contains("sk-from-a-file"));
    }

    #[test]
    fn an_isolated_sandbox_reaches_svcs_port_only_when_the_base_url_is_on_loopback() {
        let s = AgentsSettings {
            network: Some(Network::Isolated),
            ..AgentsSettings::default()
        };
        let local: url::Url = "http://127.0.0.1:8640/".parse().unwrap();
        assert_eq!(
            s.net(&local, &[4000, 8640]),
            Net::Isolated {
                ports: vec![4000, 8640]
            }
        );
        let named: url::Url = "http://localhost:9000".parse().unwrap();
        assert_eq!(s.net(&named, &[]), Net::Isolated { ports: vec![9000] });
        let public: url::Url = "https://svc.example.com/".parse().unwrap();
        assert_eq!(s.net(&public, &[]), Net::Isolated { ports: vec![] });
        let host = AgentsSettings {
            network: Some(Network::Host),
            ..AgentsSettings::default()
        };
        assert_eq!(host.net(&local, &[]), Net::Host);
        let unsandboxed = AgentsSettings {
            sandbox: Sandbox::None,
            ..AgentsSettings::default()
        };
        assert_eq!(unsandboxed.network(), Network::Host);
        assert_eq!(AgentsSettings::default().network(), Network::Isolated);
    }

    #[test]
    fn a_model_of_an_unknown_runner_and_an_empty_command_are_refused() {
        let err =
            AgentsSettings::from_toml("[[models]]\nid = \"m\"\nrunner = \"nope\"\n").unwrap_err();
        assert!(err.to_string().contains("runner \"nope\""), "{err}");
        let err = AgentsSettings::from_toml("[runners.x]\ncommand = []\nformat = \"svc-jsonl\"\n")
            .unwrap_err();
        assert!(err.to_string().contains("needs a program"), "{err}");
        let err = AgentsSettings::from_toml("[runners.x]\ncommand = [\"x\"]\nformat = \"yaml\"\n")
            .unwrap_err();
        assert!(err.to_string().contains("unknown variant"), "{err}");
    }
}
