//! `svc-bench far-merge`: merges and branch facts of branches far ahead of main, against
//! git in the same run. A history made with `git fast-import`: main (`--main-commits`
//! on 2,000 files), a line of `--commits` commits forked from it (edits, adds, deletes,
//! renames with edits), `--branches` branches at the line's last commits, and `small`,
//! one commit on main. Pushed through the door, then:
//!
//! - the merge of the far branch while main is its merge base (`Repo::merge` in
//!   process, median of `--runs`), against `git merge-tree --write-tree` +
//!   `commit-tree` + `update-ref` on a copy of the same repository;
//! - `small` merged over HTTP (main moves), then `listBranches` at once: its time with
//!   the far branches all stale, and how long their facts take in the background;
//! - with main moved (a real tree merge): the facts of the far branch in process
//!   (`Repo::branch_facts`) against `git merge-base` + `rev-list --left-right --count`
//!   + `merge-tree`, and the merge (`Repo::merge`) against git's three commands;
//! - the far branch merged over HTTP (mergeBranch), once.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use gix::ObjectId;
use serde_json::Value;
use svc_server::git::merge::Person;
use svc_server::git::read::Repo;

use super::common::{
    Api, Lcg, Server, bare_dir_with, dir_size, fast_import, git, git_door, median, mib, print_load,
    print_machine, run, secs, work_dir,
};

/// The push limit of the door.
const PUSH_LIMIT: u64 = 64 * 1024 * 1024;
/// Folders of 50 files each.
const FOLDERS: usize = 40;
const FILES: usize = 50;
/// Lines of each file.
const LINES: usize = 30;
/// The merge's goal against git.
const MERGE_GOAL: f64 = 2.0;
/// The list's goal right after main moves.
const LIST_GOAL: Duration = Duration::from_millis(200);

pub struct Options {
    pub commits: usize,
    pub main_commits: usize,
    pub branches: usize,
    pub runs: usize,
    pub database_url: Option<String>,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    if opts.branches < 1 || opts.commits < opts.branches {
        bail!("--branches must be at least 1 and at most --commits");
    }
    print_machine();
    let dir = work_dir("far-merge")?;
    let generated = dir.join("gen.git");
    let start = Instant::now();
    generate(&generated, &opts)?;
    let pack = dir_size(&generated.join("objects/pack"));
    let count = run(git(&generated).args(["rev-list", "--count", "--all"]))?;
    println!(
        "generated with git fast-import + repack in {}: {count} commits, pack {}",
        secs(start.elapsed()),
        mib(pack)
    );
    if pack >= PUSH_LIMIT {
        bail!("the generated pack ({}) is over the push limit", mib(pack));
    }

    let data = dir.join("data");
    let server =
        Server::start(&data, opts.database_url.as_deref(), &dir.join("server.log")).await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "far").await?;
    let r = format!("/v1/monorepos/{full}/repos/far");
    let mut push = git_door(&generated, &api.token);
    push.args([
        "push",
        "-q",
        &url,
        "main:refs/heads/main",
        "small:refs/heads/small",
    ]);
    push.args((0..opts.branches).map(|i| format!("{0}:refs/heads/{0}", far_name(i))));
    let start = Instant::now();
    run(&mut push)?;
    println!(
        "pushed main, small and {} far branches through the door: {}",
        opts.branches,
        secs(start.elapsed())
    );
    let main = run(git(&generated).args(["rev-parse", "main"]))?;
    let bare = bare_dir_with(&data, &main)?;
    let far = run(git(&generated).args(["rev-parse", &far_name(0)]))?;
    let waited = all_fresh(&api, &r, opts.branches + 1).await?;
    println!("facts of every branch after the push: {}", secs(waited));

    // Main is the merge base.
    let copy = copy_of(&bare, &dir.join("copy-1.git"))?;
    let ours = in_process_merges(&copy, &main, &far, opts.runs)?;
    let theirs = git_merges(&copy, &main, &far, opts.runs)?;
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    println!();
    println!(
        "merge of a branch {} commits ahead, main its merge base: {} against git {} ({ratio:.2}x, goal <= {MERGE_GOAL}x: {})",
        opts.commits,
        secs(ours),
        secs(theirs),
        verdict(ratio <= MERGE_GOAL)
    );

    // Main moves by one merge: every far branch is stale.
    let merged = post(&api, &format!("{r}/branches/small/merge")).await?;
    let moved = merged["sha"].as_str().context("no merge sha")?.to_owned();
    let start = Instant::now();
    let list = api.get(&format!("{r}/branches?limit=100")).await?;
    let list_took = start.elapsed();
    let stale = list["items"]
        .as_array()
        .context("no items")?
        .iter()
        .filter(|b| b["stale"] == true)
        .count();
    let facts_took = all_fresh(&api, &r, opts.branches).await?;
    println!(
        "listBranches right after main moved: {} with {stale} of {} far branches stale (goal < {} ms: {}); \
         their facts in the background: {}",
        secs(list_took),
        opts.branches,
        LIST_GOAL.as_millis(),
        verdict(list_took < LIST_GOAL),
        secs(facts_took)
    );

    // Main moved: a real tree merge.
    let copy = copy_of(&bare, &dir.join("copy-2.git"))?;
    let repo = Repo::open(&copy)?;
    let (main_id, far_id) = (
        ObjectId::from_hex(moved.as_bytes())?,
        ObjectId::from_hex(far.as_bytes())?,
    );
    let mut facts = Vec::new();
    for _ in 0..opts.runs {
        let start = Instant::now();
        let got = repo.branch_facts(main_id, far_id)?;
        facts.push(start.elapsed());
        if !got.check.clean {
            bail!("the far branch conflicts: {:?}", got.check.conflicts);
        }
    }
    let ours_facts = median(facts);
    let theirs_facts = git_facts(&copy, &moved, &far, opts.runs)?;
    let ratio = ours_facts.as_secs_f64() / theirs_facts.as_secs_f64();
    println!(
        "facts of the far branch after main moved (base, ahead/behind, dry run): {} against git {} ({ratio:.2}x, goal <= {MERGE_GOAL}x: {})",
        secs(ours_facts),
        secs(theirs_facts),
        verdict(ratio <= MERGE_GOAL)
    );
    let ours = in_process_merges(&copy, &moved, &far, opts.runs)?;
    let theirs = git_merges(&copy, &moved, &far, opts.runs)?;
    let ratio = ours.as_secs_f64() / theirs.as_secs_f64();
    println!(
        "merge of the far branch after main moved: {} against git {} ({ratio:.2}x, goal <= {MERGE_GOAL}x: {})",
        secs(ours),
        secs(theirs),
        verdict(ratio <= MERGE_GOAL)
    );
    let start = Instant::now();
    post(&api, &format!("{r}/branches/{}/merge", far_name(0))).await?;
    let http = start.elapsed();
    println!(
        "mergeBranch of the far branch over HTTP (records the merge, queues facts): {} ({:.2}x git's merge)",
        secs(http),
        http.as_secs_f64() / theirs.as_secs_f64()
    );
    print_load();
    server.stop();
    if opts.keep {
        println!(
            "kept {} (clone URL {url}, token {})",
            dir.display(),
            api.token
        );
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    Ok(())
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

fn far_name(i: usize) -> String {
    format!("far-{i:02}")
}

async fn post(api: &Api, path: &str) -> anyhow::Result<Value> {
    let r = reqwest::Client::new()
        .post(format!("{}{path}", api.base))
        .bearer_auth(&api.token)
        .send()
        .await?;
    let status = r.status();
    let text = r.text().await?;
    if !status.is_success() {
        bail!("POST {path}: {status}: {text}");
    }
    Ok(serde_json::from_str(&text)?)
}

/// Waits until `want` open branches have fresh facts (through getBranch, which never
/// computes within 30 s of a push or a main move); answers how long that took.
async fn all_fresh(api: &Api, r: &str, want: usize) -> anyhow::Result<Duration> {
    let start = Instant::now();
    loop {
        let list = api
            .get(&format!("{r}/branches?limit=100&state=open"))
            .await?;
        let items = list["items"].as_array().context("no items")?;
        let fresh = items.iter().filter(|b| b["stale"] == false).count();
        if fresh >= want {
            return Ok(start.elapsed());
        }
        if start.elapsed() > Duration::from_secs(600) {
            bail!("facts stalled: {fresh} of {want} fresh");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn copy_of(bare: &Path, to: &Path) -> anyhow::Result<std::path::PathBuf> {
    run(std::process::Command::new("cp").arg("-a").arg(bare).arg(to))?;
    Ok(to.to_path_buf())
}

/// `Repo::merge` of head into main, median of `runs` (each writes a commit, no ref).
fn in_process_merges(bare: &Path, main: &str, head: &str, runs: usize) -> anyhow::Result<Duration> {
    let repo = Repo::open(bare)?;
    let (main, head) = (
        ObjectId::from_hex(main.as_bytes())?,
        ObjectId::from_hex(head.as_bytes())?,
    );
    let who = Person {
        name: "Bench".into(),
        email: "bench@example.com".into(),
    };
    let mut took = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        repo.merge(main, head, &who, &who, "Merge far")?;
        took.push(start.elapsed());
    }
    Ok(median(took))
}

/// git's merge of head into main, as a script would make it: `merge-tree
/// --write-tree`, `commit-tree`, `update-ref` (a scratch ref), median of `runs`.
fn git_merges(bare: &Path, main: &str, head: &str, runs: usize) -> anyhow::Result<Duration> {
    let mut took = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let tree = run(git(bare).args(["merge-tree", "--write-tree", main, head]))?;
        let tree = tree.lines().next().context("no tree")?.to_owned();
        let commit = run(git(bare).args([
            "commit-tree",
            &tree,
            "-p",
            main,
            "-p",
            head,
            "-m",
            "Merge far",
        ]))?;
        run(git(bare).args(["update-ref", "refs/bench/merge", &commit]))?;
        took.push(start.elapsed());
    }
    Ok(median(took))
}

/// git's branch facts: `merge-base`, `rev-list --left-right --count`, `merge-tree`.
fn git_facts(bare: &Path, main: &str, head: &str, runs: usize) -> anyhow::Result<Duration> {
    let mut took = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        run(git(bare).args(["merge-base", main, head]))?;
        run(git(bare).args([
            "rev-list",
            "--left-right",
            "--count",
            &format!("{main}...{head}"),
        ]))?;
        run(git(bare).args(["merge-tree", "--write-tree", "--name-only", main, head]))?;
        took.push(start.elapsed());
    }
    Ok(median(took))
}

/// The history (see the module's documentation). Seeded: the same every time.
fn generate(bare: &Path, opts: &Options) -> anyhow::Result<()> {
    let parent = bare.parent().context("no parent")?;
    let name = bare.file_name().context("no name")?;
    run(git(parent).args(["init", "-q", "--bare"]).arg(name))?;
    let mut stream = Vec::new();
    let mut rng = Lcg(7);
    let mut files: Vec<(String, Vec<String>)> = (0..FOLDERS * FILES)
        .map(|n| {
            let path = format!("src/d{:02}/f{:02}.txt", n / FILES, n % FILES);
            let lines = (0..LINES).map(|l| format!("{path} line {l}")).collect();
            (path, lines)
        })
        .collect();
    let mut mark = 0;
    let mut commit = |stream: &mut Vec<u8>, branch: &str, from: Option<usize>| {
        mark += 1;
        let time = 1_600_000_000 + mark * 60;
        let msg = format!("commit {mark}");
        let _ = write!(
            stream,
            "commit refs/heads/{branch}\nmark :{mark}\ncommitter A <a@example.com> {time} +0000\ndata {}\n{msg}\n",
            msg.len()
        );
        if let Some(from) = from {
            let _ = writeln!(stream, "from :{from}");
        }
        mark
    };
    let put = |stream: &mut Vec<u8>, path: &str, lines: &[String]| {
        let text = lines.join("\n") + "\n";
        let _ = write!(
            stream,
            "M 100644 inline {path}\ndata {}\n{text}\n",
            text.len()
        );
    };
    let first = commit(&mut stream, "main", None);
    for (path, lines) in &files {
        put(&mut stream, path, lines);
    }
    let mut tip = first;
    for _ in 1..opts.main_commits {
        tip = commit(&mut stream, "main", Some(tip));
        edit(&mut stream, &mut files, &mut rng, tip, &put);
    }
    let main_tip = tip;
    // small: one commit on main, in a folder the far line never touches.
    let small = commit(&mut stream, "small", Some(main_tip));
    put(&mut stream, "small/readme.txt", &["small".to_owned()]);
    let _ = small;
    // The far line, with a branch at each of its last commits.
    let mut line_tip = main_tip;
    for n in 0..opts.commits {
        line_tip = commit(&mut stream, "far-line", Some(line_tip));
        if n % 50 == 49 {
            // A rename with an edit, which similarity detection would pair.
            let i = rng.below(files.len());
            let (old, mut lines) = files.swap_remove(i);
            let _ = writeln!(stream, "D {old}");
            let new = format!("{old}.moved{n}");
            lines[0] = format!("moved at {n}");
            put(&mut stream, &new, &lines);
            files.push((new, lines));
        } else if n % 100 == 3 {
            let path = format!("src/new/n{n}.txt");
            let lines = vec![format!("new at {n}")];
            put(&mut stream, &path, &lines);
            files.push((path, lines));
        } else if n % 100 == 7 && files.len() > 10 {
            let (old, _) = files.swap_remove(rng.below(files.len()));
            let _ = writeln!(stream, "D {old}");
        } else {
            edit(&mut stream, &mut files, &mut rng, line_tip, &put);
        }
        let left = opts.commits - n;
        if left <= opts.branches {
            let _ = writeln!(
                stream,
                "reset refs/heads/{}\nfrom :{line_tip}\n",
                far_name(left - 1)
            );
        }
    }
    fast_import(bare, &stream)?;
    run(git(bare).args(["update-ref", "-d", "refs/heads/far-line"]))?;
    run(git(bare).args(["repack", "-adq"]))?;
    Ok(())
}

/// Replaces a line in one to three random files.
fn edit(
    stream: &mut Vec<u8>,
    files: &mut [(String, Vec<String>)],
    rng: &mut Lcg,
    mark: usize,
    put: &impl Fn(&mut Vec<u8>, &str, &[String]),
) {
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(files.len());
        let (path, lines) = &mut files[i];
        let l = rng.below(lines.len());
        lines[l] = format!("edit {mark}");
        put(stream, path, lines);
    }
}
