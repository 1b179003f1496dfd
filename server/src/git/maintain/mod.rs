//! Keeping a repository fast, as the big hosts do (Gitaly's heuristical housekeeping,
//! GitHub's geometric repacking): a survey of the repository's files, a plan decided
//! from it, and the git commands that carry the plan out.
//!
//! Every step is git's own, writing through git's lockfiles and temporary packs, so a
//! maintenance killed at any point leaves a repository that serves: what it leaves is
//! stale locks and temporary files, which the next maintenance removes first
//! ([`remove_stale_files`]). Who maintains which repository, and when, is decided above
//! this layer (`crate::maintenance`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

/// Loose objects tolerated before they are packed, and old loose objects before they
/// are pruned (git gc's 6,700 suits a laptop; a server wants its objects packed).
pub const LOOSE_LIMIT: u64 = 1024;

/// How long an unreachable object is kept: a push or merge may be about to point a ref
/// at an object it found already there, so only objects unreachable this long go.
pub const GRACE: Duration = Duration::from_secs(14 * 24 * 60 * 60);

/// The least time between two full repacks of a repository (they rewrite every object).
pub const FULL_REPACK_COOLDOWN: Duration = Duration::from_secs(5 * 24 * 60 * 60);

/// A file in the repository whose modification time is its last full repack.
const FULL_REPACK_STAMP: &str = "svc-full-repack";

/// A push quarantine or loose temporary object older than this belongs to no live push.
pub const STALE_INCOMING: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("git {step} failed: {stderr}")]
    Git { step: &'static str, stderr: String },
}

/// What the repository's files say about its state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survey {
    /// Packs, cruft packs among them, and their bytes.
    pub packs: u64,
    pub cruft_packs: u64,
    pub pack_bytes: u64,
    /// Packs the multi-pack index covers; None without one.
    pub midx_packs: Option<u64>,
    /// A reachability bitmap (of the multi-pack index or of a pack).
    pub bitmap: bool,
    pub loose: u64,
    /// Loose objects older than [`GRACE`].
    pub old_loose: u64,
    /// The oldest object of the cruft packs (unreachable since then).
    pub oldest_cruft: Option<SystemTime>,
    /// The newest pack or loose object.
    pub newest_object: Option<SystemTime>,
    pub graph: Option<Graph>,
    pub last_full_repack: Option<SystemTime>,
}

impl Survey {
    fn saw_object(&mut self, at: SystemTime) {
        if self.newest_object.is_none_or(|n| at > n) {
            self.newest_object = Some(at);
        }
    }
}

/// The commit-graph as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// A split chain (`commit-graphs/`), not one monolithic file.
    pub split: bool,
    /// Every layer has changed-path Bloom filters.
    pub bloom: bool,
    pub written: SystemTime,
}

/// How objects are repacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repack {
    /// Loose objects into one new pack, whatever their reachability; nothing else moves.
    Loose,
    /// Packs rolled up so their object counts form a geometric progression (factor 2),
    /// loose objects with them, with a multi-pack index and its bitmap.
    Geometric,
    /// Every reachable object in one pack, unreachable ones in a cruft pack; with
    /// `expire`, unreachable objects older than [`GRACE`] are dropped.
    Full { expire: bool },
}

/// How the commit-graph is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphWrite {
    /// A new layer for the commits the chain lacks.
    Layer,
    /// The whole chain anew (none yet, no Bloom filters, or objects were dropped).
    Replace,
}

/// What a maintenance does, decided from a [`Survey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Plan {
    /// `git prune` of unreachable loose objects older than [`GRACE`].
    pub prune: bool,
    pub repack: Option<Repack>,
    pub graph: Option<GraphWrite>,
}

impl Plan {
    /// True when the plan deletes unreachable objects: nothing may write objects into
    /// the repository without git's freshening meanwhile (gix does not freshen an
    /// object it finds already there), so the caller holds the repository's writers off.
    pub fn expires(&self) -> bool {
        self.prune || self.repack == Some(Repack::Full { expire: true })
    }

    /// The same plan keeping every object (when writers cannot be held off).
    pub fn keeping_objects(mut self) -> Plan {
        self.prune = false;
        if let Some(Repack::Full { .. }) = self.repack {
            self.repack = Some(Repack::Full { expire: false });
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        *self == Plan::default()
    }

    /// The steps in words, for logs and `svc-server maintain`.
    pub fn describe(&self) -> String {
        let mut steps = Vec::new();
        if self.prune {
            steps.push("pruned old unreachable loose objects");
        }
        steps.push(match self.repack {
            Some(Repack::Loose) => "packed loose objects",
            Some(Repack::Geometric) => "geometric repack with multi-pack index and bitmap",
            Some(Repack::Full { expire: true }) => {
                "full repack (old unreachable objects expired) with multi-pack index and bitmap"
            }
            Some(Repack::Full { expire: false }) => {
                "full repack (unreachable objects kept) with multi-pack index and bitmap"
            }
            None => "",
        });
        steps.push(match self.graph {
            Some(GraphWrite::Layer) => "commit-graph layer written",
            Some(GraphWrite::Replace) => "commit-graph rewritten",
            None => "",
        });
        steps.retain(|s| !s.is_empty());
        if steps.is_empty() {
            "nothing to do".to_owned()
        } else {
            steps.join(", ")
        }
    }
}

/// The plan for a repository in the state `s` at `now`: the least work that keeps it
/// fast, scaled with its size so large repositories are rewritten less often.
pub fn plan(s: &Survey, now: SystemTime) -> Plan {
    if s.packs == 0 && s.loose == 0 {
        return Plan::default();
    }
    let older_than = |t: Option<SystemTime>, age: Duration| {
        t.is_none_or(|t| now.duration_since(t).is_ok_and(|d| d > age))
    };
    let prune = s.old_loose > LOOSE_LIMIT;
    let repack = if s.packs - s.cruft_packs > 1
        && older_than(s.last_full_repack, FULL_REPACK_COOLDOWN)
    {
        // Now and then everything is rewritten: deltas are found afresh and unreachable
        // objects move to a cruft pack, from which they expire after the grace period.
        let expire = s.oldest_cruft.is_some_and(|t| older_than(Some(t), GRACE)) || s.old_loose > 0;
        Some(Repack::Full { expire })
    } else if s.midx_packs.is_none() || !s.bitmap || untracked_packs(s) > allowed_untracked(s) {
        Some(Repack::Geometric)
    } else if s.loose > LOOSE_LIMIT {
        Some(Repack::Loose)
    } else {
        None
    };
    let graph = match &s.graph {
        _ if prune || matches!(repack, Some(Repack::Full { .. })) => Some(GraphWrite::Replace),
        None => Some(GraphWrite::Replace),
        Some(g) if !g.split || !g.bloom => Some(GraphWrite::Replace),
        Some(g) if repack.is_some() || s.newest_object.is_some_and(|t| t > g.written) => {
            Some(GraphWrite::Layer)
        }
        Some(_) => None,
    };
    Plan {
        prune,
        repack,
        graph,
    }
}

/// Packs written since the multi-pack index was (pushes add one each).
fn untracked_packs(s: &Survey) -> u64 {
    s.packs.saturating_sub(s.midx_packs.unwrap_or(0))
}

/// New packs tolerated before a geometric repack: 2 under 10 MiB of packs, growing with
/// the logarithm of their size (7 at 100 MiB, 11 at 1 GiB), as Gitaly does.
fn allowed_untracked(s: &Survey) -> u64 {
    let mib = (s.pack_bytes / 1024 / 1024) as f64;
    let scaled = if mib > 1.0 {
        mib.ln() / 1.8f64.ln()
    } else {
        0.0
    };
    scaled.max(2.0) as u64
}

/// Reads the repository's state from its files.
pub fn survey(dir: &Path, now: SystemTime) -> std::io::Result<Survey> {
    let mut s = Survey::default();
    let objects = dir.join("objects");
    let pack_dir = objects.join("pack");
    for entry in std::fs::read_dir(&pack_dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".bitmap") {
            s.bitmap = true;
        }
        let Some(stem) = name.strip_suffix(".pack") else {
            continue;
        };
        let Ok(meta) = entry.metadata() else { continue };
        s.packs += 1;
        s.pack_bytes += meta.len();
        if let Ok(t) = meta.modified() {
            s.saw_object(t);
        }
        let mtimes = pack_dir.join(format!("{stem}.mtimes"));
        if let Ok(data) = std::fs::read(&mtimes) {
            s.cruft_packs += 1;
            if let Some(oldest) = oldest_mtime(&data) {
                s.oldest_cruft = Some(s.oldest_cruft.map_or(oldest, |o| o.min(oldest)));
            }
        }
    }
    s.midx_packs = std::fs::read(pack_dir.join("multi-pack-index"))
        .ok()
        .and_then(|data| midx_pack_count(&data));
    let grace_start = now.checked_sub(GRACE);
    for shard in 0..=0xffu8 {
        let folder = objects.join(format!("{shard:02x}"));
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if name.len() != 38
                || !name
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit())
            {
                continue;
            }
            s.loose += 1;
            if let Ok(t) = entry.metadata().and_then(|m| m.modified()) {
                s.saw_object(t);
                if grace_start.is_some_and(|g| t < g) {
                    s.old_loose += 1;
                }
            }
        }
    }
    s.graph = graph(&objects.join("info"));
    // Never fully repacked: the cooldown runs from the repository's creation (`config`).
    s.last_full_repack = [FULL_REPACK_STAMP, "config"].iter().find_map(|f| {
        std::fs::metadata(dir.join(f))
            .and_then(|m| m.modified())
            .ok()
    });
    Ok(s)
}

/// The commit-graph: a split chain's layers, else the one file.
fn graph(info: &Path) -> Option<Graph> {
    let chain_dir = info.join("commit-graphs");
    let chain = chain_dir.join("commit-graph-chain");
    if let Ok(text) = std::fs::read_to_string(&chain) {
        let layers: Vec<PathBuf> = text
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| chain_dir.join(format!("graph-{l}.graph")))
            .collect();
        let bloom = !layers.is_empty()
            && layers
                .iter()
                .all(|l| std::fs::read(l).is_ok_and(|d| graph_has_bloom(&d)));
        let written = std::fs::metadata(&chain).and_then(|m| m.modified()).ok()?;
        return Some(Graph {
            split: true,
            bloom,
            written,
        });
    }
    let file = info.join("commit-graph");
    let data = std::fs::read(&file).ok()?;
    Some(Graph {
        split: false,
        bloom: graph_has_bloom(&data),
        written: std::fs::metadata(&file).and_then(|m| m.modified()).ok()?,
    })
}

/// True when a commit-graph file has its changed-path Bloom filter chunks (`BIDX`,
/// `BDAT`): the header is `CGPH`, version, hash version, chunk count, base count, then
/// a table of (4-byte id, 8-byte offset) per chunk.
pub fn graph_has_bloom(data: &[u8]) -> bool {
    if data.get(..4) != Some(b"CGPH") {
        return false;
    }
    let Some(&chunks) = data.get(6) else {
        return false;
    };
    let ids: Vec<&[u8]> = (0..usize::from(chunks))
        .filter_map(|i| data.get(8 + i * 12..8 + i * 12 + 4))
        .collect();
    ids.contains(&b"BIDX".as_slice()) && ids.contains(&b"BDAT".as_slice())
}

/// The packs a multi-pack index covers: `MIDX`, version, hash version, chunk count,
/// base count, then the pack count (4 bytes, big-endian).
fn midx_pack_count(data: &[u8]) -> Option<u64> {
    if data.get(..4) != Some(b"MIDX") {
        return None;
    }
    let count = data.get(8..12)?;
    Some(u64::from(u32::from_be_bytes(count.try_into().ok()?)))
}

/// The oldest time in a cruft pack's `.mtimes` (`MTME`, version, hash id, then one
/// 4-byte big-endian time per object).
fn oldest_mtime(data: &[u8]) -> Option<SystemTime> {
    if data.get(..4) != Some(b"MTME") {
        return None;
    }
    let hash_len = 20;
    let body = data.get(12..data.len().checked_sub(2 * hash_len)?)?;
    body.chunks_exact(4)
        .filter_map(|c| c.try_into().ok().map(u32::from_be_bytes))
        .min()
        .map(|t| SystemTime::UNIX_EPOCH + Duration::from_secs(u64::from(t)))
}

/// Removes what a killed git left in the repository: lock files of the commit-graph and
/// multi-pack index and temporary packs, whatever their age (only maintenance writes
/// them; the caller holds the repository's maintenance lock, and a maintenance's git dies
/// with its process), and push quarantines and temporary objects a day old (a push may
/// be receiving into them). Answers how many went.
pub fn remove_stale_files(dir: &Path, now: SystemTime) -> usize {
    let objects = dir.join("objects");
    let old = |path: &Path, age: Duration| {
        std::fs::symlink_metadata(path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| now.duration_since(t).is_ok_and(|d| d > age))
    };
    let mut removed = 0;
    let maintenance_dirs = [
        objects.join("pack"),
        objects.join("info"),
        objects.join("info/commit-graphs"),
    ];
    for folder in &maintenance_dirs {
        for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let temp =
                name.ends_with(".lock") || name.starts_with("tmp_") || name.starts_with(".tmp-");
            let path = entry.path();
            if temp && path.is_file() && std::fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
    }
    for entry in std::fs::read_dir(&objects).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !(name.starts_with("tmp_") || name.starts_with("incoming-"))
            || !old(&path, STALE_INCOMING)
        {
            continue;
        }
        let gone = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed += usize::from(gone.is_ok());
    }
    if removed > 0 {
        tracing::warn!(dir = %dir.display(), removed, "removed files a killed git left");
    }
    removed
}

/// Carries `plan` out in the repository at `dir`, one git command after another.
pub async fn execute(dir: &Path, plan: &Plan) -> Result<(), Error> {
    if plan.prune {
        git(
            dir,
            "prune",
            &["prune", &format!("--expire={}", expire_arg())],
        )
        .await?;
    }
    match plan.repack {
        Some(Repack::Loose) => {
            // Every loose object, reachable or not, into one new pack; then the loose
            // copies go. Packs, the multi-pack index and its bitmap stay as they are.
            let prefix = dir.join("objects/pack/pack");
            let prefix = prefix.to_string_lossy();
            git(
                dir,
                "pack-objects",
                &[
                    "pack-objects",
                    "--pack-loose-unreachable",
                    "--local",
                    "--incremental",
                    "--non-empty",
                    "--quiet",
                    &prefix,
                ],
            )
            .await?;
            git(dir, "prune-packed", &["prune-packed", "--quiet"]).await?;
        }
        Some(Repack::Geometric) => {
            git(
                dir,
                "repack",
                &[
                    "repack",
                    "-d",
                    "-l",
                    "-n",
                    "--quiet",
                    "--geometric=2",
                    "--write-midx",
                    "--write-bitmap-index",
                ],
            )
            .await?;
        }
        Some(Repack::Full { expire }) => {
            // Stamped first: a repack that fails is not retried at once, in a loop.
            std::fs::write(dir.join(FULL_REPACK_STAMP), b"")?;
            let expiration = format!("--cruft-expiration={}", expire_arg());
            let mut args = vec![
                "repack",
                "-d",
                "-l",
                "-n",
                "--quiet",
                "--cruft",
                "--write-midx",
                "--write-bitmap-index",
            ];
            if expire {
                args.push(&expiration);
            }
            git(dir, "repack", &args).await?;
        }
        None => {}
    }
    if let Some(split) = plan.graph {
        let split = match split {
            GraphWrite::Layer => "--split",
            GraphWrite::Replace => "--split=replace",
        };
        git(
            dir,
            "commit-graph",
            &[
                "commit-graph",
                "write",
                "--reachable",
                "--changed-paths",
                "--size-multiple=4",
                split,
            ],
        )
        .await?;
    }
    Ok(())
}

/// The start of the grace period, as git reads dates (`@<unix seconds>`).
fn expire_arg() -> String {
    let start = SystemTime::now()
        .checked_sub(GRACE)
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .unwrap_or_default();
    format!("@{}", start.as_secs())
}

/// Runs one git command in the repository, as the git door runs git: no system or
/// global configuration, no hooks, a child that dies with the server, and here with
/// every process it starts (a repack's `pack-objects`).
async fn git(dir: &Path, step: &'static str, args: &[&str]) -> Result<(), Error> {
    let mut cmd = super::child::sealed_git_family(dir);
    cmd.args(["-c", "pack.writeBitmapLookupTable=true"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let child = cmd.spawn()?;
    // Tests kill a maintenance here, its git mid-way (it dies with the process).
    crate::crash::point(&format!("maintain.{step}"));
    let out = child.wait_with_output().await?;
    if out.status.success() {
        Ok(())
    } else {
        Err(Error::Git {
            step,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

#[cfg(test)]
mod tests;
