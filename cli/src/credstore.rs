//! Where a machine keeps its credential per server: the OS keyring when one answers
//! quickly, else a 0600 file in the config dir (headless Linux, containers, CI).
//! Every keyring call is bounded by a timeout; nothing ever starts a D-Bus session.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::config::{read_toml, write_toml};
use crate::error::Result;

const SERVICE: &str = "svc";
const KEYRING_TIMEOUT: Duration = Duration::from_millis(2500);

pub const KEYRING: &str = "keyring";
pub const FILE: &str = "file";

fn file(dir: &Path) -> PathBuf {
    dir.join("credentials.toml")
}

/// Where a store kind keeps tokens, in words for `svc auth status`.
pub fn describe(dir: &Path, store: &str) -> String {
    if store == KEYRING {
        "the OS keyring".into()
    } else {
        format!("{} (mode 0600)", file(dir).display())
    }
}

/// Whether a Secret Service could be there at all, without starting one.
fn keyring_reachable() -> bool {
    if cfg!(target_os = "linux") {
        let runtime_bus = std::env::var_os("XDG_RUNTIME_DIR").map(|d| Path::new(&d).join("bus"));
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some()
            || runtime_bus.is_some_and(|b| b.exists())
    } else {
        true
    }
}

/// Runs a keyring call on a thread, giving up after the timeout.
fn bounded<T: Send + 'static>(call: impl FnOnce() -> Option<T> + Send + 'static) -> Option<T> {
    if !keyring_reachable() {
        return None;
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(call());
    });
    rx.recv_timeout(KEYRING_TIMEOUT).ok().flatten()
}

/// Stores `token` for `server`; answers the store used.
pub fn save(dir: &Path, server: &str, token: &str) -> Result<&'static str> {
    let (s, t) = (server.to_owned(), token.to_owned());
    if bounded(move || keyring::Entry::new(SERVICE, &s).ok()?.set_password(&t).ok()).is_some() {
        remove_from_file(dir, server)?;
        return Ok(KEYRING);
    }
    let mut tokens: BTreeMap<String, String> = read_toml(&file(dir))?;
    tokens.insert(server.to_owned(), token.to_owned());
    write_toml(&file(dir), &tokens, true)?;
    Ok(FILE)
}

/// The token stored for `server` in `store`.
pub fn load(dir: &Path, server: &str, store: &str) -> Result<Option<String>> {
    if store == KEYRING {
        let s = server.to_owned();
        return Ok(bounded(move || {
            keyring::Entry::new(SERVICE, &s).ok()?.get_password().ok()
        }));
    }
    let tokens: BTreeMap<String, String> = read_toml(&file(dir))?;
    Ok(tokens.get(server).cloned())
}

/// Forgets the token for `server` wherever it is.
pub fn forget(dir: &Path, server: &str) -> Result<()> {
    let s = server.to_owned();
    bounded(move || {
        keyring::Entry::new(SERVICE, &s)
            .ok()?
            .delete_credential()
            .ok()
    });
    remove_from_file(dir, server)
}

fn remove_from_file(dir: &Path, server: &str) -> Result<()> {
    let mut tokens: BTreeMap<String, String> = read_toml(&file(dir))?;
    if tokens.remove(server).is_some() {
        write_toml(&file(dir), &tokens, true)?;
    }
    Ok(())
}
