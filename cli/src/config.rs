//! What the CLI keeps on the machine: which servers it is signed in to (`hosts.toml`) and
//! the monorepos it cloned (`clones.toml`, read by the daemon), under the config dir
//! (`SVC_CONFIG_DIR`, else the platform's).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CommandError, Result};

pub fn config_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("SVC_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "svc")
        .map(|d| d.config_dir().to_path_buf())
        .ok_or_else(|| {
            CommandError::internal("no home directory for the config dir; set SVC_CONFIG_DIR")
        })
}

/// A server this machine is signed in to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Host {
    pub login: String,
    pub credential_id: String,
    pub credential_name: String,
    /// `keyring` or `file`: where the token is.
    pub store: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Hosts {
    /// The server commands use when none is given.
    pub default: Option<String>,
    #[serde(default)]
    pub servers: BTreeMap<String, Host>,
}

impl Hosts {
    pub fn load(dir: &Path) -> Result<Hosts> {
        read_toml(&dir.join("hosts.toml"))
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        write_toml(&dir.join("hosts.toml"), self, false)
    }
}

/// A monorepo cloned on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clone {
    pub server: String,
    pub monorepo: String,
    pub monorepo_id: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Clones {
    /// By absolute path of the clone.
    #[serde(default)]
    pub clones: BTreeMap<String, Clone>,
}

impl Clones {
    pub fn load(dir: &Path) -> Result<Clones> {
        read_toml(&dir.join("clones.toml"))
    }

    pub fn save(&self, dir: &Path) -> Result<()> {
        write_toml(&dir.join("clones.toml"), self, false)
    }
}

pub fn read_toml<T: for<'de> Deserialize<'de> + Default>(path: &Path) -> Result<T> {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text).map_err(|e| {
            CommandError::user(format!("{} is damaged", path.display()))
                .because(&e)
                .hint("fix or delete it")
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => {
            Err(CommandError::internal(format!("cannot read {}", path.display())).because(&e))
        }
    }
}

/// Writes a whole file at once (temp file, then rename), `private` ones with mode 0600,
/// so an interrupted command never leaves half a file.
pub fn write_toml<T: Serialize>(path: &Path, value: &T, private: bool) -> Result<()> {
    let text = toml::to_string(value).map_err(|e| {
        CommandError::internal(format!("cannot encode {}", path.display())).because(&e)
    })?;
    write_atomic(path, text.as_bytes(), private)
}

pub fn write_atomic(path: &Path, bytes: &[u8], private: bool) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| CommandError::internal("a config file without a folder"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}
