//! `[agents]`: the coding agents (runners) this server may run, the models sessions
//! choose from, and the limits that keep sessions from taking the machine.

use std::collections::BTreeMap;

use anyhow::bail;
use serde::Deserialize;
use svc_protocol::agent::AgentModel;

use super::format::Format;
use super::run::Sandbox;

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
    /// The `svc` program runners get on their PATH (for `svc mcp`, svc's read tools)
    /// [default: the `svc` beside the server's own program, when there is one].
    pub svc: Option<std::path::PathBuf>,
}

impl Default for AgentsSettings {
    fn default() -> Self {
        Self {
            runners: BTreeMap::new(),
            models: Vec::new(),
            sandbox: Sandbox::Bwrap,
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
    /// Reads `[agents]` as written in the server's TOML (without the header) and checks
    /// it; what tests and embedders configure agents with.
    pub fn from_toml(text: &str) -> anyhow::Result<AgentsSettings> {
        let settings: AgentsSettings = toml::from_str(text)?;
        settings.check()?;
        Ok(settings)
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
