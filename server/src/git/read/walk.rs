//! First-parent walks that follow one path: history and last commits.
//!
//! Both keep, for the commit being looked at, the entries along the path (a `Chain`);
//! the parent's chain is read only below the first folder whose id differs from the
//! child's, so a commit that did not touch the path costs its commit object and the
//! few trees above the path that changed.

use gix::ObjectId;
use gix::objs::{Kind, TreeRef};
use svc_protocol::code;

use super::{
    Budget, Chain, Entry, Error, Reader, Repo, RepoPath, WALK_CAP, entry_type, links, to_commit,
};

/// The next commit of a walk.
struct At {
    id: ObjectId,
    data: Vec<u8>,
    chain: Chain,
}

/// A commit looked at, with the path's entries in it and in its first parent (all
/// `None` for a root commit).
struct Step {
    id: ObjectId,
    data: Vec<u8>,
    chain: Chain,
    parent: Chain,
}

impl Step {
    /// Whether the commit changed the path's entry.
    fn changed(&self) -> bool {
        self.chain.last() != self.parent.last()
    }
}

/// A first-parent walk following one path.
struct Walker {
    parts: Vec<Vec<u8>>,
    /// None once history has ended.
    at: Option<At>,
    /// Commits looked at from the ref.
    walked: usize,
}

impl Walker {
    fn new(
        reader: &mut Reader,
        start: ObjectId,
        parts: Vec<Vec<u8>>,
        walked: usize,
    ) -> Result<Walker, Error> {
        let hash = reader.hash;
        let data = reader
            .find(&start, Kind::Commit)?
            .ok_or_else(|| Error::NotFound(format!("commit {start}")))?
            .to_vec();
        let chain = reader.resolve(links(&data, hash)?.tree, &parts, &[])?;
        Ok(Walker {
            parts,
            at: Some(At {
                id: start,
                data,
                chain,
            }),
            walked,
        })
    }

    /// The path's entry at the next commit.
    fn target(&self) -> Option<super::Target> {
        self.at
            .as_ref()
            .and_then(|at| at.chain.last().copied().flatten())
    }

    /// Looks at the next commit and moves to its first parent.
    fn advance(&mut self, reader: &mut Reader) -> Result<Option<Step>, Error> {
        let Some(at) = self.at.take() else {
            return Ok(None);
        };
        let hash = reader.hash;
        let parent = match links(&at.data, hash)?.first_parent {
            Some(id) => {
                let data = reader
                    .find(&id, Kind::Commit)?
                    .ok_or_else(|| Error::Git(format!("commit {id} is missing")))?
                    .to_vec();
                let chain = reader.resolve(links(&data, hash)?.tree, &self.parts, &at.chain)?;
                self.at = Some(At {
                    id,
                    data,
                    chain: chain.clone(),
                });
                chain
            }
            None => vec![None; self.parts.len() + 1],
        };
        self.walked += 1;
        Ok(Some(Step {
            id: at.id,
            data: at.data,
            chain: at.chain,
            parent,
        }))
    }
}

/// `next` of a history page: the commit to go on from and the commits looked at so far.
pub fn history_cursor(at: ObjectId, walked: usize) -> String {
    format!("{at}-{walked}")
}

pub fn parse_history_cursor(cursor: &str) -> Result<(ObjectId, usize), Error> {
    let bad = || Error::BadCursor;
    let (sha, walked) = cursor.split_once('-').ok_or_else(bad)?;
    let id = super::parse_sha(sha).ok_or_else(bad)?;
    Ok((id, walked.parse().map_err(|_| bad())?))
}

/// [`Repo::history`] with its budget and cap as parameters.
pub(super) fn history(
    repo: &Repo,
    commit: ObjectId,
    path: &str,
    limit: usize,
    next: Option<&str>,
    budget: Budget,
    cap: usize,
) -> Result<code::HistoryPage, Error> {
    let path = RepoPath::parse(path)?;
    let root = path.parts.is_empty();
    let (start, walked) = match next {
        Some(cursor) => parse_history_cursor(cursor)?,
        None => (commit, 0),
    };
    let mut reader = repo.reader();
    let mut walker = Walker::new(&mut reader, start, path.parts, walked)?;
    if next.is_none() && walker.target().is_none() {
        return Err(Error::NotFound(format!("path {:?}", path.text)));
    }
    let limit = limit.max(1);
    let mut meter = budget.start();
    let mut page = code::HistoryPage {
        items: Vec::new(),
        next: None,
        complete_page: true,
        capped: false,
    };
    while let Some(at) = &walker.at {
        if walker.walked >= cap {
            page.capped = true;
            break;
        }
        if page.items.len() >= limit {
            page.next = Some(history_cursor(at.id, walker.walked));
            break;
        }
        if !meter.take() {
            page.next = Some(history_cursor(at.id, walker.walked));
            page.complete_page = false;
            break;
        }
        let Some(step) = walker.advance(&mut reader)? else {
            break;
        };
        // Every commit is a change of the root, even one that left the tree alone.
        if root || step.changed() {
            page.items
                .push(to_commit(step.id, &step.data, reader.hash)?);
        }
    }
    Ok(page)
}

/// A resumable last-commit walk over one folder at one commit.
///
/// [`step`](Self::step) goes on with the walk within a budget and may be called again
/// later, from any thread, to go on from where it stopped; [`answer`](Self::answer)
/// reports what is known so far. Keep it (e.g. by commit and path) to finish a walk
/// that a request's budget cut short without starting over.
pub struct LastCommitsWalk {
    repo: gix::ThreadSafeRepository,
    commit: ObjectId,
    path: RepoPath,
    walker: Walker,
    cap: usize,
    /// Every entry of the folder at `commit`, in git's tree order, with the index of its
    /// last commit in `commits` once found.
    entries: Vec<(Entry, Option<usize>)>,
    /// Indexes into `entries` of those not found yet, in git's tree order.
    pending: Vec<usize>,
    commits: Vec<code::Commit>,
    /// The commit a capped walk looked at last.
    capped_at: Option<ObjectId>,
    /// The commit looked at last.
    last: Option<ObjectId>,
}

impl std::fmt::Debug for LastCommitsWalk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastCommitsWalk")
            .field("commit", &self.commit)
            .field("path", &self.path.text)
            .field("walked", &self.walker.walked)
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}

impl LastCommitsWalk {
    /// Starts a walk over the folder at `folder` in `commit` (NotFound when it is not a
    /// folder). Reads the commit and the folder; walks nothing yet.
    pub fn new(repo: &Repo, commit: ObjectId, folder: &str) -> Result<LastCommitsWalk, Error> {
        Self::with_cap(repo, commit, folder, WALK_CAP)
    }

    pub(super) fn with_cap(
        repo: &Repo,
        commit: ObjectId,
        folder: &str,
        cap: usize,
    ) -> Result<LastCommitsWalk, Error> {
        let path = RepoPath::parse(folder)?;
        let mut reader = repo.reader();
        let tree = reader.folder(commit, &path)?;
        let entries: Vec<(Entry, Option<usize>)> = reader
            .entries(tree)?
            .into_iter()
            .map(|e| (e, None))
            .collect();
        let walker = Walker::new(&mut reader, commit, path.parts.clone(), 0)?;
        Ok(LastCommitsWalk {
            repo: repo.0.clone(),
            commit,
            path,
            walker,
            cap,
            pending: (0..entries.len()).collect(),
            entries,
            commits: Vec::new(),
            capped_at: None,
            last: None,
        })
    }

    /// True once every entry is found, history has ended, or the walk hit its cap.
    pub fn is_done(&self) -> bool {
        self.pending.is_empty() || self.walker.at.is_none() || self.capped_at.is_some()
    }

    /// Goes on with the walk until it is done or `budget` is spent; returns
    /// [`is_done`](Self::is_done).
    pub fn step(&mut self, budget: Budget) -> Result<bool, Error> {
        let mut reader = Reader::new(&self.repo);
        let mut meter = budget.start();
        while !self.is_done() {
            if self.walker.walked >= self.cap {
                self.capped_at = self.last;
                // A cap of 0 looked at nothing: the commit itself bounds what is known.
                self.capped_at.get_or_insert(self.commit);
                break;
            }
            if !meter.take() {
                break;
            }
            let Some(step) = self.walker.advance(&mut reader)? else {
                break;
            };
            self.last = Some(step.id);
            // The folder's tree is the child's: no entry in it changed.
            if step.changed() {
                self.attribute(&mut reader, &step)?;
            }
        }
        Ok(self.is_done())
    }

    /// Gives `step`'s commit to every pending entry that differs in its first parent.
    fn attribute(&mut self, reader: &mut Reader, step: &Step) -> Result<(), Error> {
        let hash = reader.hash;
        let parent_tree = match step.parent.last().copied().flatten() {
            Some(t) if t.kind == gix::objs::tree::EntryKind::Tree => Some(t.id),
            _ => None,
        };
        let data = match parent_tree {
            Some(id) => reader
                .find(&id, Kind::Tree)?
                .ok_or_else(|| Error::Git(format!("tree {id} is missing")))?,
            None => &[],
        };
        let parent = TreeRef::from_bytes(data, hash).map_err(super::git)?;
        let entries = &self.entries;
        let (changed, same): (Vec<usize>, Vec<usize>) = self.pending.iter().partition(|&&i| {
            let Some((entry, _)) = entries.get(i) else {
                return false;
            };
            let is_tree = entry.kind == gix::objs::tree::EntryKind::Tree;
            parent
                .bisect_entry(entry.name.as_slice().into(), is_tree)
                .is_none_or(|p| p.mode.kind() != entry.kind || p.oid != entry.id.as_ref())
        });
        if changed.is_empty() {
            return Ok(());
        }
        let index = self.commits.len();
        self.commits.push(to_commit(step.id, &step.data, hash)?);
        for i in changed {
            if let Some((_, found)) = self.entries.get_mut(i) {
                *found = Some(index);
            }
        }
        self.pending = same;
        Ok(())
    }

    /// What is known so far, entries folders first, then by name. `retry_after_ms` is
    /// left for the caller.
    pub fn answer(&self) -> code::LastCommits {
        let mut order: Vec<&(Entry, Option<usize>)> = self.entries.iter().collect();
        order.sort_by(|a, b| a.0.sort_key().cmp(&b.0.sort_key()));
        code::LastCommits {
            commit: self.commit.to_string(),
            path: self.path.text.clone(),
            complete: self.is_done(),
            retry_after_ms: None,
            entries: order
                .into_iter()
                .map(|(entry, found)| code::LastCommitEntry {
                    name: gix::bstr::ByteSlice::to_str_lossy(entry.name.as_slice()).into_owned(),
                    path: self.path.join(&entry.name),
                    kind: entry_type(entry.kind),
                    commit: found.and_then(|i| self.commits.get(i)).cloned(),
                })
                .collect(),
            older: self
                .capped_at
                .filter(|_| !self.pending.is_empty())
                .map(|id| code::Older {
                    before: id.to_string(),
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::super::fixture::{git_text, standard};
    use super::*;

    fn id(sha: &str) -> ObjectId {
        ObjectId::from_hex(sha.as_bytes()).unwrap()
    }

    /// `git log --first-parent` of `path` (every commit for the root) from `sha`.
    fn git_log(bare: &Path, sha: &str, path: &str) -> Vec<String> {
        let mut args = vec!["log", "--first-parent", "--format=%H", sha];
        if !path.is_empty() {
            args.extend(["--", path]);
        }
        let out = git_text(bare, &args);
        out.lines().map(str::to_owned).collect()
    }

    /// `git log -1 --first-parent` of `path` from `sha`.
    fn git_last(bare: &Path, sha: &str, path: &str) -> Option<String> {
        let out = git_text(
            bare,
            &[
                "log",
                "-1",
                "--first-parent",
                "--format=%H",
                sha,
                "--",
                path,
            ],
        );
        (!out.is_empty()).then_some(out)
    }

    /// Every path at `sha`, folders included, and the root as `""`.
    fn paths(bare: &Path, sha: &str) -> Vec<String> {
        let mut out = vec![String::new()];
        let listing = git_text(bare, &["ls-tree", "-r", "-t", "--name-only", sha]);
        out.extend(listing.lines().map(str::to_owned));
        out
    }

    fn folders(bare: &Path, sha: &str) -> Vec<String> {
        let mut out = vec![String::new()];
        for line in git_text(bare, &["ls-tree", "-r", "-t", sha]).lines() {
            let (head, path) = line.split_once('\t').unwrap();
            if head.split(' ').nth(1) == Some("tree") {
                out.push(path.to_owned());
            }
        }
        out
    }

    /// Every page of a history walk, checking each page's own promises.
    fn all_history(
        repo: &Repo,
        commit: ObjectId,
        path: &str,
        limit: usize,
        budget: Budget,
        cap: usize,
    ) -> (Vec<String>, bool) {
        let mut shas = Vec::new();
        let mut next: Option<String> = None;
        for _ in 0..10_000 {
            let page = history(repo, commit, path, limit, next.as_deref(), budget, cap).unwrap();
            assert!(page.items.len() <= limit.max(1));
            if page.complete_page && page.next.is_some() {
                assert_eq!(page.items.len(), limit.max(1), "a full page");
            }
            if !page.complete_page {
                assert!(page.next.is_some(), "a short page says where to go on");
            }
            if page.capped {
                assert_eq!(page.next, None);
            }
            shas.extend(page.items.into_iter().map(|c| c.sha));
            match page.next {
                Some(n) => next = Some(n),
                None => return (shas, page.capped),
            }
        }
        panic!("history never ended");
    }

    #[test]
    fn history_matches_git_log_for_every_path() {
        let f = standard();
        let (bare, repo) = f.bare();
        for start in ["main", "feature", "other", "main~3"] {
            let sha = f.git(&["rev-parse", start]);
            for path in paths(&bare, &sha) {
                let want = git_log(&bare, &sha, &path);
                assert!(!want.is_empty());
                let (got, capped) =
                    all_history(&repo, id(&sha), &path, 1_000, Budget::UNLIMITED, WALK_CAP);
                assert_eq!(got, want, "{start} -- {path:?}");
                assert!(!capped);
                let (paged, _) = all_history(&repo, id(&sha), &path, 2, Budget::HISTORY, WALK_CAP);
                assert_eq!(paged, want, "{start} -- {path:?} by twos");
            }
        }
    }

    #[test]
    fn history_items_are_full_commits() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = id(&f.git(&["rev-parse", "main"]));
        let page = repo.history(head, "src/lib", 10, None).unwrap();
        let merge = f.git(&["rev-parse", ":/Merge feature"]);
        // The branch's commits are not first-parent: the merge stands for them.
        assert_eq!(page.items[0].sha, merge);
        assert_eq!(page.items[0], repo.commit(id(&merge)).unwrap());
        assert_eq!(page.items[0].trailers.agent.as_deref(), Some("claude"));
        assert_eq!(page.items.len(), 2);
        assert!(page.complete_page && !page.capped && page.next.is_none());
        // Mode changes, deletions and re-additions count; the rename leaves the new
        // name's history at the rename.
        let titles = |path: &str| -> Vec<String> {
            let page = repo.history(head, path, 100, None).unwrap();
            page.items.into_iter().map(|c| c.title).collect()
        };
        assert_eq!(
            titles("scripts/run.sh"),
            ["Make run.sh executable", "Initial import"]
        );
        assert_eq!(
            titles("bin.dat"),
            ["Bring bin.dat back", "Drop bin.dat", "Initial import"]
        );
        assert_eq!(titles("docs/manual.md"), ["Rename the guide"]);
        assert_eq!(titles("thing"), ["thing is a folder", "Initial import"]);
        // An empty commit changes the root only.
        assert!(titles("").contains(&"Nothing at all".to_owned()));
        assert!(!titles("src").contains(&"Nothing at all".to_owned()));
    }

    #[test]
    fn history_budget_splits_pages() {
        let f = standard();
        let (bare, repo) = f.bare();
        let sha = f.git(&["rev-parse", "main"]);
        for path in ["", "README.md", "src", "a/b/c/d.txt", "vendor/sub"] {
            let want = git_log(&bare, &sha, path);
            for budget in [1, 2, 3] {
                let (got, _) =
                    all_history(&repo, id(&sha), path, 2, Budget::commits(budget), WALK_CAP);
                assert_eq!(got, want, "{path:?} with {budget} commits a call");
            }
        }
        // One commit a call on a path changed only at the start of history: short pages.
        let first = history(
            &repo,
            id(&sha),
            "a/top.txt",
            5,
            None,
            Budget::commits(1),
            WALK_CAP,
        )
        .unwrap();
        assert!(first.items.is_empty());
        assert!(!first.complete_page);
        let next = first.next.unwrap();
        assert!(next.starts_with(&f.git(&["rev-parse", "main~1"])));
        // A spent clock stops before the first commit and goes on from it.
        let none = Budget::UNLIMITED.with_time(Duration::ZERO);
        let page = history(&repo, id(&sha), "", 5, None, none, WALK_CAP).unwrap();
        assert!(page.items.is_empty() && !page.complete_page);
        assert_eq!(page.next.unwrap(), format!("{sha}-0"));
    }

    #[test]
    fn history_stops_at_the_cap() {
        let f = standard();
        let (bare, repo) = f.bare();
        let sha = f.git(&["rev-parse", "main"]);
        let all = git_log(&bare, &sha, "");
        let n = all.len();
        for (limit, cap) in [(100, 4), (3, 5), (2, 4), (1, 1), (3, n - 1)] {
            let (got, capped) = all_history(&repo, id(&sha), "", limit, Budget::HISTORY, cap);
            assert_eq!(got, all[..cap], "limit {limit}, cap {cap}");
            assert!(capped);
        }
        // A cap the walk does not pass is no cap.
        let (got, capped) = all_history(&repo, id(&sha), "", 3, Budget::HISTORY, n);
        assert_eq!(got, all);
        assert!(!capped);
        // On a path: only changes within the cap.
        let readme = git_log(&bare, &sha, "README.md");
        let (got, capped) = all_history(&repo, id(&sha), "README.md", 1, Budget::commits(1), n - 1);
        assert_eq!(got, readme[..readme.len() - 1]);
        assert!(capped);
        // The cap counts from the ref across pages, through the cursor.
        let page = history(&repo, id(&sha), "", 2, None, Budget::HISTORY, 3).unwrap();
        let page = history(
            &repo,
            id(&sha),
            "",
            2,
            page.next.as_deref(),
            Budget::HISTORY,
            3,
        )
        .unwrap();
        assert_eq!(page.items.len(), 1);
        assert!(page.capped);
        assert_eq!(page.next, None);
    }

    #[test]
    fn history_errors() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = id(&f.git(&["rev-parse", "main"]));
        let nf = |r: Result<code::HistoryPage, Error>| matches!(r, Err(Error::NotFound(_)));
        assert!(
            nf(repo.history(head, "docs/guide.md", 10, None)),
            "gone at the ref"
        );
        assert!(nf(repo.history(head, "nope", 10, None)));
        assert!(nf(repo.history(head, "//", 10, None)));
        let absent = id("0123456789abcdef0123456789abcdef01234567");
        assert!(nf(repo.history(absent, "", 10, None)));
        assert!(nf(repo.history(head, "", 10, Some(&format!("{absent}-3")))));
        for bad in [
            "",
            "x",
            "abc-1",
            &format!("{head}"),
            &format!("{head}-x"),
            &format!("{head}--1"),
        ] {
            assert!(
                matches!(repo.history(head, "", 10, Some(bad)), Err(Error::BadCursor)),
                "{bad:?}"
            );
        }
        // Past a deletion, a cursor goes on: the path need not exist there.
        let before = f.git(&["rev-parse", ":/Rename the guide"]);
        let page = repo
            .history(head, "docs/guide.md", 10, Some(&format!("{before}-5")))
            .unwrap();
        let titles: Vec<&str> = page.items.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            ["Rename the guide", "Merge feature", "Initial import"]
        );
    }

    /// Checks a last-commits answer against `git log -1` per entry and `getTree`'s order.
    fn check_last_commits(
        repo: &Repo,
        bare: &Path,
        sha: &str,
        folder: &str,
        got: &code::LastCommits,
    ) {
        let tree = repo.tree(id(sha), folder, None, 100_000).unwrap();
        assert_eq!(got.commit, sha);
        assert_eq!(got.path, tree.path);
        assert_eq!(got.entries.len(), tree.items.len());
        for (entry, item) in got.entries.iter().zip(&tree.items) {
            assert_eq!(
                (&entry.name, &entry.path, entry.kind),
                (&item.name, &item.path, item.kind)
            );
            let Some(commit) = &entry.commit else {
                continue;
            };
            let want = git_last(bare, sha, &entry.path);
            assert_eq!(Some(&commit.sha), want.as_ref(), "{sha} -- {}", entry.path);
            assert_eq!(commit, &repo.commit(id(&commit.sha)).unwrap());
        }
    }

    #[test]
    fn last_commits_match_git_log_per_entry() {
        let f = standard();
        let (bare, repo) = f.bare();
        for start in ["main", "feature", "other", "main~3", "main~5"] {
            let sha = f.git(&["rev-parse", start]);
            for folder in folders(&bare, &sha) {
                let got = repo
                    .last_commits(id(&sha), &folder, Budget::UNLIMITED)
                    .unwrap();
                assert!(got.complete);
                assert_eq!(got.older, None);
                assert_eq!(got.retry_after_ms, None);
                assert!(
                    got.entries.iter().all(|e| e.commit.is_some()),
                    "{start}:{folder}"
                );
                check_last_commits(&repo, &bare, &sha, &folder, &got);
            }
        }
        // The merge stands for what it brought in.
        let head = f.git(&["rev-parse", "main"]);
        let src = repo
            .last_commits(id(&head), "src/lib/", Budget::UNLIMITED)
            .unwrap();
        assert_eq!(src.path, "src/lib");
        assert!(
            src.entries
                .iter()
                .all(|e| e.commit.as_ref().unwrap().title == "Merge feature")
        );
    }

    #[test]
    fn last_commits_resume_where_they_stopped() {
        let f = standard();
        let (bare, repo) = f.bare();
        let sha = f.git(&["rev-parse", "main"]);
        let full = repo.last_commits(id(&sha), "", Budget::UNLIMITED).unwrap();

        let mut walk = LastCommitsWalk::new(&repo, id(&sha), "").unwrap();
        let nothing = walk.answer();
        assert!(!nothing.complete);
        assert!(nothing.entries.iter().all(|e| e.commit.is_none()));
        assert!(!walk.step(Budget::commits(0)).unwrap());
        let mut steps = 0;
        let mut found = 0;
        while !walk.step(Budget::commits(1)).unwrap() {
            steps += 1;
            let partial = walk.answer();
            assert!(!partial.complete);
            assert_eq!(partial.older, None);
            let now = partial
                .entries
                .iter()
                .filter(|e| e.commit.is_some())
                .count();
            assert!(now >= found && now < partial.entries.len());
            found = now;
            check_last_commits(&repo, &bare, &sha, "", &partial);
        }
        assert!(steps > 3, "the walk took {steps} steps");
        assert!(walk.is_done());
        assert_eq!(walk.answer(), full);
        // Done is done.
        assert!(walk.step(Budget::UNLIMITED).unwrap());
        assert_eq!(walk.answer(), full);

        // One call with a small budget answers what it found.
        let partial = repo.last_commits(id(&sha), "", Budget::commits(2)).unwrap();
        assert!(!partial.complete);
        assert!(partial.entries.iter().any(|e| e.commit.is_some()));
        assert!(partial.entries.iter().any(|e| e.commit.is_none()));
        check_last_commits(&repo, &bare, &sha, "", &partial);
        let stopped = repo
            .last_commits(id(&sha), "", Budget::UNLIMITED.with_time(Duration::ZERO))
            .unwrap();
        assert!(!stopped.complete);

        // A walk moves between threads.
        let mut walk = LastCommitsWalk::new(&repo, id(&sha), "").unwrap();
        walk.step(Budget::commits(2)).unwrap();
        let walk = std::thread::spawn(move || {
            walk.step(Budget::UNLIMITED).unwrap();
            walk
        })
        .join()
        .unwrap();
        assert_eq!(walk.answer(), full);
    }

    #[test]
    fn last_commits_stop_at_the_cap() {
        let f = standard();
        let (bare, repo) = f.bare();
        let sha = f.git(&["rev-parse", "main"]);
        let line = git_log(&bare, &sha, "");
        for cap in [1, 3, 6] {
            let mut walk = LastCommitsWalk::with_cap(&repo, id(&sha), "", cap).unwrap();
            assert!(walk.step(Budget::UNLIMITED).unwrap());
            let got = walk.answer();
            assert!(got.complete);
            assert_eq!(
                got.older.as_ref().unwrap().before,
                line[cap - 1],
                "cap {cap}"
            );
            check_last_commits(&repo, &bare, &sha, "", &got);
            for entry in &got.entries {
                let want = git_last(&bare, &sha, &entry.path).unwrap();
                let within = line[..cap].contains(&want);
                assert_eq!(entry.commit.is_some(), within, "cap {cap}: {}", entry.path);
            }
        }
        // A cap the walk never reaches leaves no `older`.
        let mut walk = LastCommitsWalk::with_cap(&repo, id(&sha), "src", line.len()).unwrap();
        assert!(walk.step(Budget::UNLIMITED).unwrap());
        assert_eq!(walk.answer().older, None);
        // Budget slices add up to the same capped answer.
        let mut whole = LastCommitsWalk::with_cap(&repo, id(&sha), "", 4).unwrap();
        whole.step(Budget::UNLIMITED).unwrap();
        let mut sliced = LastCommitsWalk::with_cap(&repo, id(&sha), "", 4).unwrap();
        while !sliced.step(Budget::commits(1)).unwrap() {}
        assert_eq!(sliced.answer(), whole.answer());
    }

    #[test]
    fn last_commits_errors() {
        let f = standard();
        let (_, repo) = f.bare();
        let head = id(&f.git(&["rev-parse", "main"]));
        let nf = |r: Result<code::LastCommits, Error>| matches!(r, Err(Error::NotFound(_)));
        assert!(nf(repo.last_commits(head, "README.md", Budget::UNLIMITED)));
        assert!(nf(repo.last_commits(head, "nope", Budget::UNLIMITED)));
        assert!(nf(repo.last_commits(head, "vendor/sub", Budget::UNLIMITED)));
        assert!(
            repo.last_commits(head, "/", Budget::UNLIMITED).is_ok(),
            "the root"
        );
        let absent = id("0123456789abcdef0123456789abcdef01234567");
        assert!(nf(repo.last_commits(absent, "", Budget::UNLIMITED)));
    }
}
