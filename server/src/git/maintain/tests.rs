use std::path::Path;
use std::time::{Duration, SystemTime};

use super::*;
use crate::git::read::fixture::{Fixture, git_in, git_text};

const DAY: Duration = Duration::from_secs(24 * 60 * 60);
const MIB: u64 = 1024 * 1024;

/// A repository in good shape: one pack under a multi-pack index with a bitmap, a
/// recent full repack, a split commit-graph with Bloom filters newer than any object.
fn healthy(now: SystemTime) -> Survey {
    Survey {
        packs: 1,
        cruft_packs: 0,
        pack_bytes: 5 * MIB,
        midx_packs: Some(1),
        bitmap: true,
        loose: 10,
        old_loose: 0,
        oldest_cruft: None,
        newest_object: Some(now - DAY),
        graph: Some(Graph {
            split: true,
            bloom: true,
            written: now - DAY / 2,
        }),
        last_full_repack: Some(now - DAY),
    }
}

#[test]
fn an_empty_or_healthy_repository_needs_nothing() {
    let now = SystemTime::now();
    assert!(plan(&Survey::default(), now).is_empty());
    assert!(plan(&healthy(now), now).is_empty());
    assert_eq!(plan(&healthy(now), now).describe(), "nothing to do");
}

#[test]
fn without_a_multi_pack_index_or_bitmap_a_geometric_repack_makes_them() {
    let now = SystemTime::now();
    for s in [
        Survey {
            midx_packs: None,
            ..healthy(now)
        },
        Survey {
            bitmap: false,
            ..healthy(now)
        },
        // Only loose objects (a repo written by merges alone).
        Survey {
            packs: 0,
            pack_bytes: 0,
            midx_packs: None,
            bitmap: false,
            graph: None,
            ..healthy(now)
        },
    ] {
        let p = plan(&s, now);
        assert_eq!(p.repack, Some(Repack::Geometric), "{s:?}");
        assert!(
            p.graph.is_some(),
            "a repack brings the commit-graph up to date"
        );
        assert!(!p.expires());
    }
}

#[test]
fn new_packs_are_rolled_up_past_a_limit_that_grows_with_size() {
    let now = SystemTime::now();
    let with = |packs: u64, bytes: u64| Survey {
        packs,
        pack_bytes: bytes,
        midx_packs: Some(1),
        last_full_repack: Some(now - DAY),
        ..healthy(now)
    };
    // Small: two untracked packs are tolerated, a third is not.
    assert_eq!(plan(&with(3, MIB), now).repack, None);
    assert_eq!(plan(&with(4, MIB), now).repack, Some(Repack::Geometric));
    // 1 GiB: eleven.
    assert_eq!(plan(&with(12, 1024 * MIB), now).repack, None);
    assert_eq!(
        plan(&with(13, 1024 * MIB), now).repack,
        Some(Repack::Geometric)
    );
}

#[test]
fn loose_objects_are_packed_past_the_limit() {
    let now = SystemTime::now();
    let s = Survey {
        loose: LOOSE_LIMIT + 1,
        newest_object: Some(now),
        ..healthy(now)
    };
    let p = plan(&s, now);
    assert_eq!(p.repack, Some(Repack::Loose));
    assert_eq!(p.graph, Some(GraphWrite::Layer));
    let s = Survey {
        loose: LOOSE_LIMIT,
        ..s
    };
    assert_eq!(plan(&s, now).repack, None);
}

#[test]
fn a_full_repack_comes_only_after_the_cooldown() {
    let now = SystemTime::now();
    let two_packs = Survey {
        packs: 2,
        midx_packs: Some(2),
        ..healthy(now)
    };
    assert_eq!(plan(&two_packs, now).repack, None, "repacked a day ago");
    let due = Survey {
        last_full_repack: Some(now - FULL_REPACK_COOLDOWN - DAY),
        ..two_packs.clone()
    };
    let p = plan(&due, now);
    assert_eq!(p.repack, Some(Repack::Full { expire: false }));
    assert_eq!(p.graph, Some(GraphWrite::Replace));
    assert!(!p.expires(), "nothing unreachable is old yet");
    let never = Survey {
        last_full_repack: None,
        ..two_packs.clone()
    };
    assert_eq!(
        plan(&never, now).repack,
        Some(Repack::Full { expire: false })
    );
    // A cruft pack does not count as a pack to roll up.
    let with_cruft = Survey {
        cruft_packs: 1,
        last_full_repack: None,
        oldest_cruft: Some(now - DAY),
        ..two_packs
    };
    assert_eq!(plan(&with_cruft, now).repack, None);
}

#[test]
fn unreachable_objects_expire_only_after_the_grace_period() {
    let now = SystemTime::now();
    let s = Survey {
        packs: 3,
        cruft_packs: 1,
        midx_packs: Some(3),
        oldest_cruft: Some(now - GRACE - DAY),
        last_full_repack: None,
        ..healthy(now)
    };
    let p = plan(&s, now);
    assert_eq!(p.repack, Some(Repack::Full { expire: true }));
    assert!(p.expires());
    assert!(!p.keeping_objects().expires());
    assert_eq!(
        p.keeping_objects().repack,
        Some(Repack::Full { expire: false })
    );
    let young = Survey {
        oldest_cruft: Some(now - GRACE + DAY),
        ..s
    };
    assert_eq!(
        plan(&young, now).repack,
        Some(Repack::Full { expire: false })
    );
}

#[test]
fn many_old_loose_objects_are_pruned() {
    let now = SystemTime::now();
    let s = Survey {
        loose: LOOSE_LIMIT + 5,
        old_loose: LOOSE_LIMIT + 1,
        ..healthy(now)
    };
    let p = plan(&s, now);
    assert!(p.prune && p.expires());
    assert_eq!(
        p.graph,
        Some(GraphWrite::Replace),
        "pruned commits leave the graph"
    );
    let few = Survey {
        old_loose: LOOSE_LIMIT,
        ..s
    };
    assert!(!plan(&few, now).prune);
}

#[test]
fn a_missing_stale_or_bloomless_commit_graph_is_written() {
    let now = SystemTime::now();
    let graph = |split, bloom, written| Survey {
        graph: Some(Graph {
            split,
            bloom,
            written,
        }),
        ..healthy(now)
    };
    let missing = Survey {
        graph: None,
        ..healthy(now)
    };
    assert_eq!(plan(&missing, now).graph, Some(GraphWrite::Replace));
    assert_eq!(
        plan(&graph(true, false, now), now).graph,
        Some(GraphWrite::Replace)
    );
    assert_eq!(
        plan(&graph(false, true, now), now).graph,
        Some(GraphWrite::Replace)
    );
    // A merge wrote a commit after the graph: a new layer.
    assert_eq!(
        plan(&graph(true, true, now - 2 * DAY), now).graph,
        Some(GraphWrite::Layer)
    );
    assert_eq!(plan(&graph(true, true, now), now).repack, None);
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    git_text(dir, args)
}

/// A bare repo with one pack (a clone) and many loose objects (small pushes are
/// unpacked), as the server's repos are after a while.
fn busy_repo() -> (Fixture, std::path::PathBuf) {
    let mut f = Fixture::new();
    f.write("a.txt", "a\n");
    f.commit("first");
    let (bare, _) = f.bare();
    for i in 0..12 {
        f.write(&format!("dir{i}/f.txt"), format!("{i}\n"));
        f.commit(&format!("c{i}"));
        git_in(
            &f.work,
            &["push", "-q", bare.to_str().unwrap(), "HEAD:main"],
        );
    }
    (f, bare)
}

#[tokio::test]
async fn a_maintained_repository_is_packed_indexed_and_graphed() {
    let (_f, bare) = busy_repo();
    let now = SystemTime::now();
    let before = survey(&bare, now).unwrap();
    assert!(before.loose > 40, "{before:?}");
    assert_eq!(before.midx_packs, None);
    let p = plan(&before, now);
    assert_eq!(p.repack, Some(Repack::Geometric));
    execute(&bare, &p).await.unwrap();
    let after = survey(&bare, SystemTime::now()).unwrap();
    assert_eq!(after.loose, 0, "{after:?}");
    assert_eq!(after.midx_packs, Some(after.packs));
    assert!(after.bitmap);
    let graph = after.graph.clone().expect("a commit-graph");
    assert!(graph.split && graph.bloom);
    assert!(plan(&after, SystemTime::now()).is_empty(), "{after:?}");
    git_ok(&bare, &["commit-graph", "verify"]);
    git_ok(&bare, &["multi-pack-index", "verify"]);
    git_ok(&bare, &["fsck", "--strict"]);
    // The full repack, expiring, keeps every reachable object and the bitmap.
    let full = Plan {
        prune: true,
        repack: Some(Repack::Full { expire: true }),
        graph: Some(GraphWrite::Replace),
    };
    execute(&bare, &full).await.unwrap();
    let after = survey(&bare, SystemTime::now()).unwrap();
    assert!(after.bitmap && after.midx_packs.is_some() && after.last_full_repack.is_some());
    git_ok(&bare, &["fsck", "--strict"]);
    git_ok(&bare, &["commit-graph", "verify"]);
    assert_eq!(git_ok(&bare, &["rev-list", "--count", "main"]), "13");
}

#[tokio::test]
async fn gix_reads_the_commit_graph_maintenance_writes() {
    let (_f, bare) = busy_repo();
    let repo = crate::git::read::Repo::open(&bare).unwrap();
    let graph = |repo: &crate::git::read::Repo| {
        repo.0
            .to_thread_local()
            .commit_graph_if_enabled()
            .unwrap()
            .map(|g| g.num_commits())
    };
    assert_eq!(graph(&repo), None);
    let p = plan(
        &survey(&bare, SystemTime::now()).unwrap(),
        SystemTime::now(),
    );
    execute(&bare, &p).await.unwrap();
    // Opened as the server opens repos: the graph is used (core.commitGraph is not off).
    let repo = crate::git::read::Repo::open(&bare).unwrap();
    assert_eq!(graph(&repo), Some(13));
}

#[test]
fn git_written_graphs_are_read_as_git_wrote_them() {
    let (_f, bare) = busy_repo();
    git_in(&bare, &["commit-graph", "write", "--reachable"]);
    let s = survey(&bare, SystemTime::now()).unwrap();
    assert_eq!(
        s.graph.map(|g| (g.split, g.bloom)),
        Some((false, false)),
        "a monolithic graph without Bloom filters"
    );
    git_in(
        &bare,
        &[
            "commit-graph",
            "write",
            "--reachable",
            "--changed-paths",
            "--split=replace",
        ],
    );
    let s = survey(&bare, SystemTime::now()).unwrap();
    assert_eq!(s.graph.map(|g| (g.split, g.bloom)), Some((true, true)));
    git_in(&bare, &["repack", "-a", "-d", "-q", "--write-midx"]);
    let s = survey(&bare, SystemTime::now()).unwrap();
    assert_eq!((s.packs, s.midx_packs, s.loose), (1, Some(1), 0));
}

#[test]
fn a_killed_gits_leftovers_go_and_live_files_stay() {
    let (_f, bare) = busy_repo();
    let now = SystemTime::now();
    let old = now - STALE_INCOMING - DAY;
    let stale = [
        bare.join("objects/pack/tmp_pack_abc"),
        bare.join("objects/pack/.tmp-123-pack-xyz.pack"),
        bare.join("objects/pack/multi-pack-index.lock"),
        bare.join("objects/info/commit-graph.lock"),
        bare.join("objects/tmp_obj_abc"),
    ];
    std::fs::create_dir_all(bare.join("objects/info")).unwrap();
    for path in &stale {
        std::fs::File::create(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let quarantine = bare.join("objects/tmp_objdir-incoming-old");
    std::fs::create_dir_all(quarantine.join("pack")).unwrap();
    let fresh_push = bare.join("objects/tmp_objdir-incoming-new");
    std::fs::create_dir_all(fresh_push.join("pack")).unwrap();
    std::fs::File::open(&quarantine)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let fresh_lock = bare.join("objects/info/commit-graphs/commit-graph-chain.lock");
    std::fs::create_dir_all(bare.join("objects/info/commit-graphs")).unwrap();
    std::fs::write(&fresh_lock, b"").unwrap();
    let fresh_temp = bare.join("objects/tmp_obj_new");
    std::fs::write(&fresh_temp, b"").unwrap();
    assert_eq!(remove_stale_files(&bare, now), stale.len() + 2);
    assert!(stale.iter().all(|p| !p.exists()));
    assert!(!quarantine.exists());
    assert!(
        !fresh_lock.exists(),
        "only a killed maintenance leaves a graph lock"
    );
    assert!(fresh_push.exists(), "a push in flight keeps its quarantine");
    assert!(fresh_temp.exists());
    git_ok(&bare, &["fsck"]);
}
