//! The registries the CLI keeps in the config dir and the daemon follows:
//! `clones.toml` (written by `svc clone`) and `worktrees.toml` (by `svc worktree`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// A monorepo cloned on this machine, as `svc clone` records it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Clone {
    pub server: String,
    pub monorepo: String,
    pub monorepo_id: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct Clones {
    /// By absolute path of the clone.
    #[serde(default)]
    pub clones: BTreeMap<String, Clone>,
}

/// A branch worktree made by `svc worktree add`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worktree {
    pub server: String,
    /// `<owner>/<name>`.
    pub monorepo: String,
    pub monorepo_id: String,
    pub repo: String,
    pub branch: String,
    /// Absolute path of the worktree.
    pub path: String,
    /// The main checkout it was made from.
    pub main: String,
    pub machine: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Worktrees {
    /// By worktree id.
    #[serde(default)]
    pub worktrees: BTreeMap<String, Worktree>,
}

/// A registry file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct RegistryError {
    pub path: String,
    pub message: String,
}

pub const CLONES: &str = "clones.toml";
pub const WORKTREES: &str = "worktrees.toml";

/// Reads a registry; a missing file is an empty one.
pub fn load<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> Result<T, RegistryError> {
    let fail = |message: String| RegistryError {
        path: path.display().to_string(),
        message,
    };
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text).map_err(|e| fail(e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(fail(e.to_string())),
    }
}
