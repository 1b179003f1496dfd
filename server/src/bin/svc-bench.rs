//! Benchmarks of the server, run in release mode with `svc-server` built beside this
//! binary (`cargo build --release -p svc-server --bins`), one per subcommand:
//!
//! - `svc-bench auth [--database-url URL]`: the credential check every authenticated
//!   request adds, against one indexed user read; idle RSS of `svc-server`;
//! - `svc-bench org-access [--database-url URL]`: authorizing a request in an org's
//!   monorepo (a person in 50 orgs, an org of 1,000 monorepos) against the same check
//!   in the person's own monorepo;
//! - `svc-bench issues [--database-url URL]`: at 100,000 issues, a 3-word search with a
//!   prefix against a `LIKE '%word%'` scan, listIssues with a label filter, createIssue;
//! - `svc-bench releases`: upload and download of a 100,000,000-byte release file over
//!   loopback against `sha256sum` + `cp` and against `python3 -m http.server`, with the
//!   RSS the server adds during each;
//! - `svc-bench artifacts [--database-url URL]`: a 10 MiB addArtifact (a document + 19
//!   images) against `sha256sum` + `cp` of the same files; warm getArtifactDocument with
//!   20 images and listBranchArtifactThreads at 100 artifacts × 50 threads, against
//!   getArtifact;
//! - `svc-bench hooks [--database-url URL]`: push → first web hook delivery try at a
//!   loopback receiver; 10,000 due deliveries drained, with the server's RSS growth;
//! - `svc-bench ci-webhooks [--database-url URL]`: the CI webhook receiver under 200
//!   signed Buildkite events a second for 30 s, every build's final state checked; a
//!   body of exactly 5 MiB taken, larger ones refused without reading them;
//! - `svc-bench door-fixed`: `git ls-remote`, getTree of a 561-entry root and getFile of
//!   a small repository, against `git ls-remote`, `git ls-tree` and `git cat-file` on
//!   its bare directory;
//! - `svc-bench door`: clone of a 120 MiB repository through the git door against a
//!   clone of its bare directory, server RSS during a door clone, 20 concurrent clones;
//! - `svc-bench last-commits`: cold `getLastCommits` on a 1,000-entry folder of a
//!   50,000-commit repository against `git log -1` per entry;
//! - `svc-bench diff-engine`: the branch diff engine giving every patch of 5,000 edited
//!   files against `git diff --patience`;
//! - `svc-bench branch-list [--database-url URL]`: listBranches pages of a repo with
//!   10,000 branches, and how long their background facts took;
//! - `svc-bench far-merge [--database-url URL]`: merges and branch facts of branches
//!   20,000 commits ahead of main against `git merge-tree` + `commit-tree` +
//!   `update-ref` in the same run; listBranches right after main moves with 20 far
//!   branches stale;
//! - `svc-bench change-merge [--database-url URL]`: mergeChange landing one branch name
//!   in 5 repos at once, against one mergeBranch in the same run;
//! - `svc-bench merge-queue [--database-url URL]`: 20 green branches queued at once in a
//!   repo with a merge queue and a 2 s stand-in CI build per `merge_group`, until all
//!   landed, against the same 20 built and merged one after another in the same run;
//! - `svc-bench branch-diff`: the streamed branch diff over HTTP of the same change as
//!   `diff-engine`, computed and replayed, and the JSON form, against `git diff
//!   --patience main...topic` in a clone;
//! - `svc-bench event-fanout [--database-url URL]`: push → event delivered to 1,000 open
//!   sockets against one socket; server RSS per idle socket;
//! - `svc-bench event-pull [--database-url URL]`: pulls of 500 events from a
//!   1,000,000-event log against getMonorepo;
//! - `svc-bench agents [--database-url URL]`: a runner line → its frame at a connected
//!   agentLive socket; 20 sessions launched at once, each writing 200 messages and
//!   pushing its branch, all finishing, with the server's RSS growth;
//! - `svc-bench agent-start [--database-url URL] [--clis DIR]` (with `svc` built too, and
//!   the agent command lines of `.ci/agent-clis.sh`): launch → the first agentLive frame
//!   holding the agent's words, with the real Claude Code CLI against a stand-in model that
//!   answers at once, beside a shell runner; Claude Code alone to its first line;
//! - `svc-bench daemon-follow`, `daemon-idle`, `sync-unchanged` (with `svc` built too:
//!   `cargo build --release -p svc-cli`): merge → each machine's main with two daemons
//!   against `git pull` by hand; the daemon's RSS and CPU idle with 10 monorepos; `svc
//!   sync` of 1,000 unchanged files against an empty `.svc/`.
//! - `svc-bench web [--database-url URL]`: the server-rendered pages, signed in with a
//!   password: `GET /` with 50 monorepos and 1,000 activity lines; the first byte of a
//!   1,000-file branch page, cold and warm, and of its commit page; the first byte of a CI
//!   job page with a 1 MiB log read from a stand-in Buildkite, against the same log
//!   through the API; the size of every kind of page with big data.
//! - `svc-bench soak [--database-url URL] [--minutes N] [--keep]` (not in CI): a mixed
//!   load (pushes, merges, issue writes, readers, 20 event sockets, hook deliveries) for
//!   `--minutes` (10); errors and latency percentiles per kind, the server's RSS and fds over
//!   time, events and deliveries received against those made, main in the API against git.
//! - `svc-bench real-repo <bare repo>` (needs `nginx` and `fcgiwrap`): a real project's
//!   history imported, cloned (full and blobless), listed, read, diffed and merged, each
//!   against `git http-backend` behind nginx or git itself on the same repository, with
//!   the server's private memory; a table of ratios against the goals.
//!
//! Figures and how to read them: `docs/benchmarks.md`.

mod svc_bench;

use clap::{Parser, Subcommand};

use svc_bench::{
    agent_start, agents, artifacts, auth, branch_diff, branches, change_merge, ci_webhooks, daemon,
    diff_engine, door, door_fixed, events, far_merge, hooks, issues, last_commits, merge_queue,
    org_access, real_repo, releases, soak, web,
};

#[derive(Parser)]
#[command(name = "svc-bench", about = "Benchmarks of svc-server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The credential check per request against a plain indexed read; idle server RSS
    Auth {
        /// The store to measure (default: SQLite in a temp dir)
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Authorizing a request in an org's monorepo against one in the person's own
    OrgAccess {
        /// The store to measure (default: SQLite in a temp dir)
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Issue search, a labelled list and createIssue at 100,000 issues, against a LIKE scan
    Issues {
        /// The store to measure (default: SQLite in a temp dir)
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Upload and download of a 100 MB release file against sha256sum + cp and python's http.server
    Releases {
        /// Timed rounds of each (the median is reported)
        #[arg(long, default_value_t = 3)]
        runs: usize,
    },
    /// A 10 MiB artifact upload, its document and a branch's 5,000 threads, against baselines
    Artifacts {
        /// Timed uploads (after an untimed one; p50 and p99 are reported)
        #[arg(long, default_value_t = 10)]
        uploads: usize,
        /// Timed requests of each read (p50 and p99 are reported)
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Push → first hook delivery try; 10,000 due deliveries drained to a loopback receiver
    Hooks {
        /// The store to measure (default: SQLite in a temp dir)
        #[arg(long)]
        database_url: Option<String>,
    },
    /// The CI webhook receiver under a steady load of signed Buildkite events; body limits
    CiWebhooks {
        /// Webhooks sent a second
        #[arg(long, default_value_t = 200)]
        rate: usize,
        /// How long they are sent, in seconds (at least 5)
        #[arg(long, default_value_t = 30)]
        seconds: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
    /// A real history (e.g. git's own) in svc against git http-backend behind nginx
    RealRepo {
        /// The bare repository to bring in (its branches and tags)
        repo: std::path::PathBuf,
        /// How far the far branches are ahead of main, in commits (main is set to the
        /// release `vX.Y.0` nearest that far behind the head)
        #[arg(long, default_value_t = 20_000)]
        far_commits: usize,
        /// Far branches listed right after main moves
        #[arg(long, default_value_t = 20)]
        far_branches: usize,
        /// Timed clones of each kind (the median is reported)
        #[arg(long, default_value_t = 1)]
        runs: usize,
        /// Timed runs of the quick reads and ls-remote (p50 is reported)
        #[arg(long, default_value_t = 20)]
        samples: usize,
        /// Root entries timed with `git log -1` (spread over the root), extrapolated
        #[arg(long, default_value_t = 40)]
        sample: usize,
        /// The file whose history is read
        #[arg(long, default_value = "Makefile")]
        busy_path: String,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Clone through the git door against a clone of the bare directory on disk
    Door {
        /// Size of the repository's (incompressible) content
        #[arg(long, default_value_t = 120)]
        size_mib: usize,
        /// Timed clones of each kind (the median is reported)
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Door clones started at once
        #[arg(long, default_value_t = 20)]
        concurrent: usize,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// `git ls-remote`, getTree and getFile of a small repository against git on disk
    DoorFixed {
        /// Timed runs of each (the median is reported)
        #[arg(long, default_value_t = 50)]
        runs: usize,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Cold getLastCommits over HTTP against `git log -1` per entry
    LastCommits {
        /// Commits of the generated repository
        #[arg(long, default_value_t = 50_000)]
        commits: usize,
        /// Cold runs, each on a fresh server process (the median is reported)
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Entries timed with `git log -1` (spread over the folder), extrapolated to all
        #[arg(long, default_value_t = 50)]
        sample: usize,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// The branch diff engine with every patch against `git diff --patience`
    DiffEngine {
        /// Text files the branch edits
        #[arg(long, default_value_t = 5_000)]
        files: usize,
        /// Timed runs of each (p50 and min are reported)
        #[arg(long, default_value_t = 7)]
        runs: usize,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// listBranches pages of a repo with 10,000 branches, after their facts
    BranchList {
        /// Branches pushed (one commit each)
        #[arg(long, default_value_t = 10_000)]
        branches: usize,
        /// Timed requests of each page (p50 and p99 are reported)
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Merges and facts of branches far ahead of main against git; listBranches after main moves
    FarMerge {
        /// Commits the far branches are ahead of main
        #[arg(long, default_value_t = 20_000)]
        commits: usize,
        /// Commits of main itself
        #[arg(long, default_value_t = 2_000)]
        main_commits: usize,
        /// Far branches (at the far line's last commits)
        #[arg(long, default_value_t = 20)]
        branches: usize,
        /// Timed runs of each in-process and git measure (the median is reported)
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// mergeChange across 5 repos against one mergeBranch in the same run
    ChangeMerge {
        /// Repos the change lands in (one branch of the name in each)
        #[arg(long, default_value_t = 5)]
        repos: usize,
        /// Timed rounds of each (after a warm-up; p50 and p99 are reported)
        #[arg(long, default_value_t = 30)]
        runs: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// 20 green branches through a merge queue against 20 builds one after another
    MergeQueue {
        /// Branches queued at once
        #[arg(long, default_value_t = 20)]
        branches: usize,
        /// Seconds the stand-in CI takes per build
        #[arg(long, default_value_t = 2.0)]
        build_secs: f64,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// The streamed branch diff over HTTP against `git diff --patience main...topic`
    BranchDiff {
        /// Text files the branch edits
        #[arg(long, default_value_t = 5_000)]
        files: usize,
        /// Timed runs, each on a new branch head (p50 and min are reported)
        #[arg(long, default_value_t = 7)]
        runs: usize,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Push → event delivered to many open sockets, against one socket
    EventFanout {
        /// Sockets open on the monorepo
        #[arg(long, default_value_t = 1_000)]
        sockets: usize,
        /// Pushes, one at a time (each socket times each)
        #[arg(long, default_value_t = 20)]
        pushes: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Server-rendered pages: the home, branch, commit and CI job pages' first byte, page sizes
    Web {
        /// Timed requests of the home, the warm branch page, the commit page and the CI job
        /// page with its log through the API (p50 and p99 are reported)
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// Cold branch page loads, each of a branch just pushed
        #[arg(long, default_value_t = 5)]
        cold_runs: usize,
        /// Monorepos of the person (one repo each)
        #[arg(long, default_value_t = 50)]
        monorepos: usize,
        /// Activity lines, spread evenly over the monorepos
        #[arg(long, default_value_t = 1_000)]
        lines: usize,
        /// Open branches of each monorepo (the other lines move them)
        #[arg(long, default_value_t = 4)]
        branches: usize,
        /// Files the big branches change
        #[arg(long, default_value_t = 1_000)]
        files: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Pulls of 500 events from a 1,000,000-event log, against getMonorepo
    EventPull {
        /// Events in the log
        #[arg(long, default_value_t = 1_000_000)]
        events: i64,
        /// Timed requests of each kind (p50 and p99 are reported)
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
    /// Runner line → agentLive frame; many sessions at once, with the server's RSS growth
    Agents {
        /// Lines the latency session's runner writes (each timed to its frame)
        #[arg(long, default_value_t = 500)]
        lines: usize,
        /// Milliseconds between them
        #[arg(long, default_value_t = 15)]
        interval_ms: u64,
        /// Sessions launched at once
        #[arg(long, default_value_t = 20)]
        sessions: usize,
        /// Messages each of them writes before its commit and push
        #[arg(long, default_value_t = 200)]
        messages: usize,
        /// Milliseconds between those messages
        #[arg(long, default_value_t = 10)]
        session_interval_ms: u64,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Launch → first agent frame with the real Claude Code CLI, beside a shell runner
    AgentStart {
        /// Timed sessions of each runner, one at a time (after an untimed one)
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Where `.ci/agent-clis.sh` installed the command lines [default:
        /// $SVC_AGENT_CLIS_DIR, else target/agent-clis]
        #[arg(long)]
        clis: Option<std::path::PathBuf>,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// Merge → each machine's main checkout with two daemons, against `git pull` by hand
    DaemonFollow {
        /// Merges, one at a time
        #[arg(long, default_value_t = 20)]
        merges: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
    /// The daemon's RSS and CPU while idle, following many monorepos
    DaemonIdle {
        /// Monorepos cloned and followed
        #[arg(long, default_value_t = 10)]
        monorepos: usize,
        /// How long it is left idle
        #[arg(long, default_value_t = 10)]
        minutes: u64,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
    /// A mixed load for minutes: errors, latencies, RSS over time, events and deliveries
    Soak {
        /// How long the load runs
        #[arg(long, default_value_t = 10)]
        minutes: u64,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
        /// Keep the working directory (in the temp dir) afterwards
        #[arg(long)]
        keep: bool,
    },
    /// `svc sync` with nothing changed, against an empty `.svc/`
    SyncUnchanged {
        /// Files in `.svc/`
        #[arg(long, default_value_t = 1_000)]
        files: usize,
        /// Timed runs of each
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// The store (default: SQLite in a temp dir); give a fresh database
        #[arg(long)]
        database_url: Option<String>,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    match Cli::parse().command {
        Command::Auth { database_url } => auth::run(database_url).await,
        Command::OrgAccess { database_url } => org_access::run(database_url).await,
        Command::Issues { database_url } => issues::run(database_url).await,
        Command::Releases { runs } => releases::run_bench(runs).await,
        Command::Artifacts {
            uploads,
            runs,
            database_url,
        } => {
            artifacts::bench(artifacts::Options {
                uploads,
                runs,
                database_url,
            })
            .await
        }
        Command::Hooks { database_url } => hooks::run_bench(database_url).await,
        Command::CiWebhooks {
            rate,
            seconds,
            database_url,
        } => {
            ci_webhooks::bench(ci_webhooks::Options {
                rate,
                seconds,
                database_url,
            })
            .await
        }
        Command::RealRepo {
            repo,
            far_commits,
            far_branches,
            runs,
            samples,
            sample,
            busy_path,
            keep,
        } => {
            real_repo::bench(real_repo::Options {
                repo,
                far_commits,
                far_branches,
                runs,
                samples,
                sample,
                busy_path,
                keep,
            })
            .await
        }
        Command::Door {
            size_mib,
            runs,
            concurrent,
            keep,
        } => {
            door::bench(door::Options {
                size_mib,
                runs,
                concurrent,
                keep,
            })
            .await
        }
        Command::DoorFixed { runs, keep } => {
            door_fixed::bench(door_fixed::Options { runs, keep }).await
        }
        Command::LastCommits {
            commits,
            runs,
            sample,
            keep,
        } => {
            last_commits::bench(last_commits::Options {
                commits,
                runs,
                sample,
                keep,
            })
            .await
        }
        Command::DiffEngine { files, runs, keep } => {
            diff_engine::bench(diff_engine::Options { files, runs, keep })
        }
        Command::BranchList {
            branches,
            runs,
            database_url,
            keep,
        } => {
            branches::bench(branches::Options {
                branches,
                runs,
                database_url,
                keep,
            })
            .await
        }
        Command::ChangeMerge {
            repos,
            runs,
            database_url,
            keep,
        } => {
            change_merge::bench(change_merge::Options {
                repos,
                runs,
                database_url,
                keep,
            })
            .await
        }
        Command::MergeQueue {
            branches,
            build_secs,
            database_url,
            keep,
        } => {
            merge_queue::bench(merge_queue::Options {
                branches,
                build_secs,
                database_url,
                keep,
            })
            .await
        }
        Command::FarMerge {
            commits,
            main_commits,
            branches,
            runs,
            database_url,
            keep,
        } => {
            far_merge::bench(far_merge::Options {
                commits,
                main_commits,
                branches,
                runs,
                database_url,
                keep,
            })
            .await
        }
        Command::BranchDiff { files, runs, keep } => {
            branch_diff::bench(branch_diff::Options { files, runs, keep }).await
        }
        Command::EventFanout {
            sockets,
            pushes,
            database_url,
        } => {
            events::fanout(events::FanoutOptions {
                sockets,
                pushes,
                database_url,
            })
            .await
        }
        Command::Agents {
            lines,
            interval_ms,
            sessions,
            messages,
            session_interval_ms,
            database_url,
            keep,
        } => {
            agents::bench(agents::Options {
                lines,
                interval_ms,
                sessions,
                messages,
                session_interval_ms,
                database_url,
                keep,
            })
            .await
        }
        Command::AgentStart {
            runs,
            clis,
            database_url,
            keep,
        } => {
            agent_start::bench(agent_start::Options {
                runs,
                clis,
                database_url,
                keep,
            })
            .await
        }
        Command::DaemonFollow {
            merges,
            database_url,
        } => {
            daemon::follow(daemon::FollowOptions {
                merges,
                database_url,
            })
            .await
        }
        Command::DaemonIdle {
            monorepos,
            minutes,
            database_url,
        } => {
            daemon::idle(daemon::IdleOptions {
                monorepos,
                minutes,
                database_url,
            })
            .await
        }
        Command::Soak {
            minutes,
            database_url,
            keep,
        } => {
            soak::run_soak(soak::Options {
                minutes,
                database_url,
                keep,
            })
            .await
        }
        Command::SyncUnchanged {
            files,
            runs,
            database_url,
        } => {
            daemon::sync_unchanged(daemon::SyncOptions {
                files,
                runs,
                database_url,
            })
            .await
        }
        Command::Web {
            runs,
            cold_runs,
            monorepos,
            lines,
            branches,
            files,
            database_url,
            keep,
        } => {
            web::bench(web::Options {
                runs,
                cold_runs,
                monorepos,
                lines,
                branches,
                files,
                database_url,
                keep,
            })
            .await
        }
        Command::EventPull {
            events: n,
            runs,
            database_url,
        } => {
            events::pull(events::PullOptions {
                events: n,
                runs,
                database_url,
            })
            .await
        }
    }
}
