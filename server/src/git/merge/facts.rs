//! Merge bases, ahead/behind counts, a branch's facts and its own commits.
//!
//! Counts and own commits come from one walk in commit-date order from both tips, as
//! `git rev-list main...head` walks: each commit learns which tips reach it, and the
//! walk stops once every commit still queued is reached from both (plus a few more
//! commits against clock skew, git's "slop"). A branch forked from a recent main so
//! reads only the commits since the fork.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use gix::ObjectId;
use gix::objs::{CommitRef, Kind};
use svc_protocol::code;

use super::{MergeCheck, best_base, check, merge_bases, merge_handle, require_commit};
use crate::git::read::{Error, Reader, Repo, git, to_commit};

/// Commits one walk reads at most: past it the walk stops and answers what it found
/// by then, so counts are low and the oldest own commits missing. It is reached only
/// by histories apart for that long: an unrelated head, or main far ahead of an old
/// branch.
pub const FACTS_CAP: usize = 100_000;

/// Commits the walk goes on reading once every queued commit is common.
const SLOP: usize = 5;

/// Reached from main.
const LEFT: u8 = 1;
/// Reached from the head.
const RIGHT: u8 = 2;
const BOTH: u8 = LEFT | RIGHT;

/// A branch's facts against main: what the background worker stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchFacts {
    /// The best merge base; None when the histories are unrelated.
    pub base: Option<ObjectId>,
    pub ahead: u32,
    pub behind: u32,
    /// The merge dry run.
    pub check: MergeCheck,
}

impl Repo {
    /// The facts of head against main: [`Repo::merge_base`], [`Repo::ahead_behind`]
    /// and [`Repo::dry_run`], with the merge bases found once for both.
    pub fn branch_facts(&self, main: ObjectId, head: ObjectId) -> Result<BranchFacts, Error> {
        let repo = merge_handle(self);
        let bases = merge_bases(&repo, main, head)?;
        let (ahead, behind) = self.ahead_behind(main, head)?;
        Ok(BranchFacts {
            base: bases.first().copied(),
            ahead,
            behind,
            check: check(&repo, main, head, &bases)?,
        })
    }

    /// The best common ancestor of `one` and `two` (`git merge-base`); None when
    /// their histories are unrelated.
    pub fn merge_base(&self, one: ObjectId, two: ObjectId) -> Result<Option<ObjectId>, Error> {
        best_base(&self.0.to_thread_local(), one, two)
    }

    /// How many commits head is ahead of main (reachable from head, not from main)
    /// and behind it (the reverse), as `git rev-list --left-right --count main...head`
    /// counts them. Past [`FACTS_CAP`] commits read, the counts are those found so far.
    pub fn ahead_behind(&self, main: ObjectId, head: ObjectId) -> Result<(u32, u32), Error> {
        let walk = Walk::run(self, Some(main), head, FACTS_CAP)?;
        let count = |flags: u8| {
            let n = walk.nodes.values().filter(|n| n.flags == flags).count();
            u32::try_from(n).unwrap_or(u32::MAX)
        };
        Ok((count(RIGHT), count(LEFT)))
    }

    /// Commits reachable from `head` and not from `base` (all of head's history
    /// without one), reading at most `cap` commits: what a push brought.
    pub fn count_new(
        &self,
        base: Option<ObjectId>,
        head: ObjectId,
        cap: usize,
    ) -> Result<usize, Error> {
        let walk = Walk::run(self, base, head, cap)?;
        Ok(walk.nodes.values().filter(|n| n.flags == RIGHT).count())
    }

    /// One page of head's own commits, those [`Repo::ahead_behind`] counts as ahead (all
    /// of head's history without main): newest first, each commit before its parents,
    /// in the order of `git rev-list --topo-order main..head`. At most `limit` (at least
    /// one) after the first `skip`, and whether more follow. Past [`FACTS_CAP`] commits
    /// read, older own commits are left out.
    pub fn own_commits(
        &self,
        main: Option<ObjectId>,
        head: ObjectId,
        skip: usize,
        limit: usize,
    ) -> Result<(Vec<code::Commit>, bool), super::Error> {
        let walk = Walk::run(self, main, head, FACTS_CAP)?;
        let order = walk.topo_order();
        let end = skip.saturating_add(limit.max(1)).min(order.len());
        let mut reader = Reader::new(&self.0);
        let hash = reader.hash;
        let items = order
            .get(skip..end)
            .unwrap_or_default()
            .iter()
            .map(|id| {
                let data = reader
                    .find(id, Kind::Commit)?
                    .ok_or_else(|| Error::Git(format!("commit {id} is missing")))?;
                to_commit(*id, data, hash)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok((items, end < order.len()))
    }
}

/// A commit the walk has seen.
struct Node {
    flags: u8,
    time: i64,
    parents: Vec<ObjectId>,
    queued: bool,
}

/// The commits reached from main (`LEFT`), the head (`RIGHT`) or both.
struct Walk {
    nodes: HashMap<ObjectId, Node>,
}

/// The walk in progress.
struct Painter {
    reader: Reader,
    nodes: HashMap<ObjectId, Node>,
    /// Newest first; ties by id, for a stable order.
    queue: BinaryHeap<(i64, Reverse<ObjectId>)>,
    /// Queued commits not yet reached from both tips.
    pending: usize,
}

impl Walk {
    /// Walks from both tips, reading at most `cap` commits.
    fn run(repo: &Repo, main: Option<ObjectId>, head: ObjectId, cap: usize) -> Result<Walk, Error> {
        let mut painter = Painter {
            reader: Reader::new(&repo.0),
            nodes: HashMap::new(),
            queue: BinaryHeap::new(),
            pending: 0,
        };
        for (tip, flag) in [(main, LEFT), (Some(head), RIGHT)] {
            if let Some(tip) = tip {
                require_commit(&painter.reader.repo, tip)?;
                painter.reach(tip, flag)?;
            }
        }
        let mut read = 0;
        let mut slop = SLOP;
        while let Some((_, Reverse(id))) = painter.queue.pop() {
            if read == cap {
                break;
            }
            read += 1;
            painter.visit(id)?;
            if painter.pending > 0 {
                slop = SLOP;
            } else {
                slop -= 1;
                if slop == 0 {
                    break;
                }
            }
        }
        Ok(Walk {
            nodes: painter.nodes,
        })
    }

    /// The commits reached from the head only, each before its parents: git's
    /// `--topo-order`, a depth-first emit where a commit waits for all its children
    /// and the last parent of a merge goes first.
    fn topo_order(&self) -> Vec<ObjectId> {
        let own = |id: &ObjectId| self.nodes.get(id).is_some_and(|n| n.flags == RIGHT);
        let mut children: HashMap<ObjectId, usize> = HashMap::new();
        for (id, node) in &self.nodes {
            if own(id) {
                children.entry(*id).or_default();
                for parent in node.parents.iter().filter(|p| own(p)) {
                    *children.entry(*parent).or_default() += 1;
                }
            }
        }
        // Tips oldest first, so that the newest (the head) comes out first.
        let mut stack: Vec<ObjectId> = children
            .iter()
            .filter(|(_, n)| **n == 0)
            .map(|(id, _)| *id)
            .collect();
        stack.sort_by_key(|id| (self.nodes.get(id).map(|n| n.time), Reverse(*id)));
        let mut order = Vec::with_capacity(children.len());
        while let Some(id) = stack.pop() {
            order.push(id);
            let parents = self.nodes.get(&id).map(|n| n.parents.as_slice());
            for parent in parents.unwrap_or_default() {
                if let Some(left) = children.get_mut(parent) {
                    *left -= 1;
                    if *left == 0 {
                        stack.push(*parent);
                    }
                }
            }
        }
        order
    }
}

impl Painter {
    /// Marks `id` as reached from `flags`, queueing it when that is news.
    fn reach(&mut self, id: ObjectId, flags: u8) -> Result<(), Error> {
        let node = match self.nodes.entry(id) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let hash = self.reader.hash;
                let data = self
                    .reader
                    .find(&id, Kind::Commit)?
                    .ok_or_else(|| Error::Git(format!("commit {id} is missing")))?;
                let commit = CommitRef::from_bytes(data, hash).map_err(git)?;
                entry.insert(Node {
                    flags: 0,
                    time: commit.time().map_err(git)?.seconds,
                    parents: commit.parents().collect(),
                    queued: false,
                })
            }
        };
        if node.flags | flags == node.flags {
            return Ok(());
        }
        let was = node.flags;
        node.flags |= flags;
        if node.queued {
            if node.flags == BOTH && was != BOTH {
                self.pending -= 1;
            }
        } else {
            node.queued = true;
            if node.flags != BOTH {
                self.pending += 1;
            }
            self.queue.push((node.time, Reverse(id)));
        }
        Ok(())
    }

    /// Takes `id` off the queue and passes what reaches it on to its parents.
    fn visit(&mut self, id: ObjectId) -> Result<(), Error> {
        let Some(node) = self.nodes.get_mut(&id) else {
            return Ok(());
        };
        node.queued = false;
        if node.flags != BOTH {
            self.pending -= 1;
        }
        let (flags, parents) = (node.flags, node.parents.clone());
        for parent in parents {
            self.reach(parent, flags)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::git::read::fixture::Fixture;

    #[test]
    fn a_walk_stops_at_its_cap() {
        let mut f = Fixture::new();
        for i in 0..6 {
            f.write("n.txt", i.to_string());
            f.commit(&format!("c{i}"));
        }
        let (_, repo) = f.bare();
        let id = |rev: &str| ObjectId::from_hex(f.git(&["rev-parse", rev]).as_bytes()).unwrap();
        let (root, head) = (id("main~5"), id("main"));
        let whole = Walk::run(&repo, Some(root), head, 100).unwrap();
        assert_eq!(whole.topo_order().len(), 5);
        // Two commits read: the head's own parent and grandparent are known, no more.
        let capped = Walk::run(&repo, Some(root), head, 2).unwrap();
        let order = capped.topo_order();
        assert_eq!(order.len(), 3);
        assert_eq!(order.first(), Some(&head));
    }
}
