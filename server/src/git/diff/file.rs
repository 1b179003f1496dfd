//! One changed file's entry: both blobs read once, the binary and size checks, the
//! line diff, its counts and its patch.

use gix::bstr::ByteSlice;
use gix::diff::blob::{IndentLevel, InternedInput};
use gix::objs::tree::EntryKind;
use gix::objs::{Find, Kind};
use svc_protocol::branch::{DiffFile, PatchOmitted};

use super::line;
use super::patch::Sides;
use super::tree::{Change, Side};
use super::{Error, Options, git};

/// git looks for a NUL in this many bytes of each side to call a file binary.
const BINARY_PROBE: usize = 8_000;
/// git's tab width for the indent heuristic.
const TAB_WIDTH: u8 = 8;

/// Reads and diffs files with one thread-local handle and reused buffers.
pub(super) struct Differ {
    repo: gix::Repository,
    old: Vec<u8>,
    new: Vec<u8>,
}

impl Differ {
    pub fn new(repo: gix::Repository) -> Differ {
        Differ {
            repo,
            old: Vec::new(),
            new: Vec::new(),
        }
    }

    /// The entry of `change`, with a patch when `options.patches` (limits of the whole
    /// diff are the caller's).
    pub fn file(&mut self, change: &Change, options: &Options) -> Result<DiffFile, Error> {
        let old = load(&self.repo, change.old, &mut self.old)?;
        let new = load(&self.repo, change.new, &mut self.new)?;
        let mut file = DiffFile {
            path: lossy(&change.path),
            old_path: change.old_path.as_ref().map(|p| lossy(p)),
            status: change.status(),
            old_sha: change.old.map(|s| s.id.to_string()),
            new_sha: change.new.map(|s| s.id.to_string()),
            old_mode: change.old.map(|s| mode(s.kind)),
            new_mode: change.new.map(|s| mode(s.kind)),
            binary: binary(old) || binary(new),
            additions: None,
            deletions: None,
            patch: None,
            patch_omitted: None,
        };
        if file.binary {
            return Ok(file);
        }
        if old.len() > options.max_blob_bytes || new.len() > options.max_blob_bytes {
            file.patch_omitted = Some(PatchOmitted::TooLarge);
            return Ok(file);
        }
        let (additions, deletions, patch) =
            text_diff(old, new, retyped(change.old, change.new), options.patches);
        file.additions = Some(additions);
        file.deletions = Some(deletions);
        file.patch = patch;
        Ok(file)
    }
}

/// The bytes of one side: empty when absent, git's text for a submodule commit.
fn load<'a>(
    repo: &gix::Repository,
    side: Option<Side>,
    buf: &'a mut Vec<u8>,
) -> Result<&'a [u8], Error> {
    buf.clear();
    let Some(side) = side else {
        return Ok(buf);
    };
    if side.kind == EntryKind::Commit {
        buf.extend_from_slice(format!("Subproject commit {}\n", side.id).as_bytes());
        return Ok(buf);
    }
    match repo.objects.try_find(&side.id, buf).map_err(git)? {
        Some(data) if data.kind == Kind::Blob => Ok(data.data),
        _ => Err(Error::Git(format!("blob {} is missing", side.id))),
    }
}

/// (additions, deletions, patch) of two text sides. git prints a change between a
/// file, a link and a submodule as a deletion and an addition, but counts the lines
/// of the pair.
fn text_diff(old: &[u8], new: &[u8], retyped: bool, patches: bool) -> (u64, u64, Option<String>) {
    if old == new && !retyped {
        return (0, 0, patches.then(String::new));
    }
    let input = InternedInput::new(old, new);
    let changed = line::diff(
        &input.before,
        &input.after,
        input.interner.num_tokens(),
        |t| IndentLevel::for_ascii_line(input.interner[t].iter().copied(), TAB_WIDTH),
    );
    let old_lines: Vec<&[u8]> = input.before.iter().map(|&t| input.interner[t]).collect();
    let new_lines: Vec<&[u8]> = input.after.iter().map(|&t| input.interner[t]).collect();
    let sides = Sides {
        old: &old_lines,
        new: &new_lines,
        removed: &changed.removed,
        added: &changed.added,
    };
    let (additions, deletions) = sides.counts();
    if !patches {
        return (additions, deletions, None);
    }
    let mut out = Vec::new();
    if retyped {
        let (all_old, all_new) = (vec![true; old_lines.len()], vec![true; new_lines.len()]);
        let gone = Sides {
            old: &old_lines,
            new: &[],
            removed: &all_old,
            added: &[],
        };
        gone.write_hunks(&mut out);
        let came = Sides {
            old: &[],
            new: &new_lines,
            removed: &[],
            added: &all_new,
        };
        came.write_hunks(&mut out);
    } else {
        sides.write_hunks(&mut out);
    }
    let patch = String::from_utf8(out)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned());
    (additions, deletions, Some(patch))
}

/// Whether a file became a link or a submodule, or the reverse.
fn retyped(old: Option<Side>, new: Option<Side>) -> bool {
    let class = |kind: EntryKind| match kind {
        EntryKind::Blob | EntryKind::BlobExecutable => 0,
        EntryKind::Link => 1,
        EntryKind::Commit => 2,
        EntryKind::Tree => 3,
    };
    matches!((old, new), (Some(a), Some(b)) if class(a.kind) != class(b.kind))
}

fn binary(data: &[u8]) -> bool {
    data.get(..BINARY_PROBE).unwrap_or(data).contains(&0)
}

/// The mode as git prints it, six octal digits.
fn mode(kind: EntryKind) -> String {
    format!("{:06o}", kind as u16)
}

fn lossy(path: &[u8]) -> String {
    path.to_str_lossy().into_owned()
}
