//! `svc-bench last-commits`: a 50,000-commit repository with a 1,000-entry folder
//! (`big/`), made with `git fast-import` and pushed through the git door, then:
//!
//! - cold `getLastCommits` on `big` over HTTP: a fresh `svc-server` process each run,
//!   the first request and its retries (after `retry_after_ms`) until `complete`, wall
//!   time in all (median of `--runs`); the cached answer's latency after it;
//! - the same walk in-process (`Repo::last_commits`, unlimited budget) for reference;
//! - `git log -1 --first-parent --format=%H <commit> -- <path>` per entry, timed on a
//!   sample of `--sample` entries spread over the folder and extrapolated to all;
//! - the answers compared on the sample: a commit the server found must be git's; an
//!   entry it left null (past the walk's 10,000-commit cap) must have git's answer
//!   beyond the cap.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use svc_protocol::code::LastCommits;
use svc_server::git::read::{Budget, Repo, WALK_CAP};

use super::common::{
    Api, Lcg, Server, bare_dir_with, dir_size, fast_import, git, git_door, median, mib, print_load,
    print_machine, run, secs, timed, work_dir,
};

/// The push limit of the door.
const PUSH_LIMIT: u64 = 64 * 1024 * 1024;

pub struct Options {
    pub commits: usize,
    pub runs: usize,
    pub sample: usize,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("last-commits")?;
    let generated = dir.join("gen.git");
    let start = Instant::now();
    generate(&generated, opts.commits)?;
    let sha = run(git(&generated).args(["rev-parse", "main"]))?;
    let all = run(git(&generated).args(["rev-list", "--count", "main"]))?;
    let first_parent =
        run(git(&generated).args(["rev-list", "--count", "--first-parent", "main"]))?;
    let pack = dir_size(&generated.join("objects/pack"));
    println!(
        "generated with git fast-import + repack in {}: main {sha:.12}, {all} commits \
         ({first_parent} first-parent), pack {}",
        secs(start.elapsed()),
        mib(pack)
    );
    if pack >= PUSH_LIMIT {
        bail!(
            "the generated pack ({}) is over the 64 MiB push limit",
            mib(pack)
        );
    }

    // Behind the server: one push of main (checked under the limit above).
    let data = dir.join("data");
    let server = Server::start(&data, None, &dir.join("server-push.log")).await?;
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "big").await?;
    let took =
        timed(git_door(&generated, &api.token).args(["push", "-q", &url, "main:refs/heads/main"]))?;
    println!("push of main through the door: {}", secs(took));
    server.stop();
    let bare = bare_dir_with(&data, &sha)?;
    println!("on disk: {} ({})", bare.display(), mib(dir_size(&bare)));

    // Cold: a fresh server process per run.
    let path = format!("/v1/monorepos/{full}/repos/big/last-commits?path=big");
    let mut colds = Vec::new();
    let mut answer = None;
    for i in 0..opts.runs {
        let server = Server::start(&data, None, &dir.join(format!("server-{i}.log"))).await?;
        let api = Api::at(&server, &api.token);
        let start = Instant::now();
        let mut requests = 0;
        let mut first = None;
        let got: LastCommits = loop {
            requests += 1;
            let got: LastCommits = serde_json::from_value(api.get(&path).await?)?;
            first.get_or_insert(start.elapsed());
            if got.complete {
                break got;
            }
            let wait = got
                .retry_after_ms
                .context("incomplete without retry_after_ms")?;
            tokio::time::sleep(Duration::from_millis(wait)).await;
        };
        let cold = start.elapsed();
        let warm_start = Instant::now();
        let again: LastCommits = serde_json::from_value(api.get(&path).await?)?;
        let warm = warm_start.elapsed();
        if again != got {
            bail!("the cached answer differs from the first");
        }
        server.stop();
        println!(
            "cold run {}: {} in {requests} requests (first answered in {}), then cached: {}",
            i + 1,
            secs(cold),
            secs(first.unwrap_or_default()),
            secs(warm)
        );
        colds.push(cold);
        answer = Some(got);
    }
    let answer = answer.context("no runs")?;
    let cold = median(colds);
    let found = answer.entries.iter().filter(|e| e.commit.is_some()).count();
    println!(
        "answer at {:.12}: {} entries, {found} with a commit, older: {:?}",
        answer.commit,
        answer.entries.len(),
        answer.older.as_ref().map(|o| &o.before)
    );

    // The same walk in-process, for reference.
    let start = Instant::now();
    let id = gix::ObjectId::from_hex(sha.as_bytes())?;
    let direct = Repo::open(&bare)?.last_commits(id, "big", Budget::UNLIMITED)?;
    let in_process = start.elapsed();
    if direct.entries != answer.entries {
        bail!("the in-process walk answers differently from the server");
    }

    // git log -1 per entry, on a sample spread over the folder.
    let capped: HashSet<String> = run(git(&bare).args([
        "rev-list",
        "--first-parent",
        "-n",
        &WALK_CAP.to_string(),
        &sha,
    ]))?
    .lines()
    .map(str::to_owned)
    .collect();
    let every = (answer.entries.len() / opts.sample.max(1)).max(1);
    let (mut git_all, mut git_found) = (Duration::ZERO, Duration::ZERO);
    let (mut sampled, mut sampled_found, mut agree) = (0, 0, 0);
    for entry in answer.entries.iter().step_by(every) {
        let start = Instant::now();
        let want = run(git(&bare).args([
            "log",
            "-1",
            "--first-parent",
            "--format=%H",
            &sha,
            "--",
            &entry.path,
        ]))?;
        let took = start.elapsed();
        git_all += took;
        sampled += 1;
        let ok = match &entry.commit {
            Some(commit) => {
                git_found += took;
                sampled_found += 1;
                commit.sha == want
            }
            None => !want.is_empty() && !capped.contains(&want),
        };
        if ok {
            agree += 1;
        } else {
            println!(
                "DISAGREE on {}: server {:?}, git {want}",
                entry.path,
                entry.commit.as_ref().map(|c| &c.sha)
            );
        }
    }
    let n = answer.entries.len() as f64;
    let git_total = git_all.as_secs_f64() * n / sampled as f64;
    let ratio = git_total / cold.as_secs_f64();
    println!();
    print_load();
    println!(
        "cold getLastCommits over HTTP (median of {}): {}; in-process walk {}",
        opts.runs,
        secs(cold),
        secs(in_process)
    );
    println!(
        "git log -1 per entry: {} for {sampled} sampled entries, extrapolated to {} entries: {git_total:.1} s",
        secs(git_all),
        answer.entries.len()
    );
    println!(
        "speed-up, cold: {ratio:.1}x (goal >= 20x: {})",
        if ratio >= 20.0 { "met" } else { "MISSED" }
    );
    if sampled_found > 0 {
        let like = git_found.as_secs_f64() * n / sampled_found as f64 / cold.as_secs_f64();
        println!(
            "speed-up counting only the {sampled_found} sampled entries the server found \
             (git time per found entry, times {}): {like:.1}x",
            answer.entries.len()
        );
    }
    println!(
        "agreement on the sample: {agree}/{sampled} ({} server commits equal git's; {} null \
         entries with git's answer beyond the {WALK_CAP}-commit cap)",
        sampled_found,
        sampled - sampled_found
    );

    if opts.keep {
        println!(
            "kept {} (clone URL {url}, token {})",
            dir.display(),
            api.token
        );
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    if agree != sampled {
        bail!("{} sampled entries disagree with git", sampled - agree);
    }
    Ok(())
}

/// Makes a bare repository at `bare` whose `main` has about `commits` commits: an import
/// of a 1,000-file folder `big/`, 200 files in `src/` and 20 at the root, then commits
/// touching 1 to 3 random files (one in ten in `big/`), and every 100th commit a merge
/// of a side branch that touched `big/`. Seeded: the same every time.
pub fn generate(bare: &Path, commits: usize) -> anyhow::Result<()> {
    let parent = bare.parent().context("no parent")?;
    let name = bare.file_name().context("no name")?;
    run(git(parent).args(["init", "-q", "--bare"]).arg(name))?;
    let mut stream = Vec::new();
    let mut rng = Lcg(42);
    let file = |stream: &mut Vec<u8>, path: &str, text: &str| {
        write!(
            stream,
            "M 100644 inline {path}\ndata {}\n{text}\n",
            text.len()
        )
    };
    let head = |stream: &mut Vec<u8>, branch: &str, mark: usize, msg: &str| {
        let time = 1_600_000_000 + mark * 60;
        write!(
            stream,
            "commit refs/heads/{branch}\nmark :{mark}\ncommitter A <a@example.com> {time} +0000\ndata {}\n{msg}\n",
            msg.len()
        )
    };
    head(&mut stream, "main", 1, "import")?;
    for i in 0..1_000 {
        file(&mut stream, &format!("big/f{i:04}.txt"), "0")?;
    }
    for i in 0..200 {
        file(&mut stream, &format!("src/m{i:03}.rs"), "0")?;
    }
    for i in 0..20 {
        file(&mut stream, &format!("root{i:02}.md"), "0")?;
    }
    let mut mark = 1;
    let mut main_tip = 1;
    while mark < commits {
        mark += 1;
        // Every 100th commit merges a side branch that touched the big folder.
        if mark % 100 == 0 {
            let path = format!("big/f{:04}.txt", rng.below(1_000));
            head(&mut stream, "side", mark, "side work")?;
            writeln!(stream, "from :{main_tip}")?;
            file(&mut stream, &path, &mark.to_string())?;
            mark += 1;
            head(&mut stream, "main", mark, "Merge side")?;
            writeln!(stream, "from :{main_tip}\nmerge :{}", mark - 1)?;
            file(&mut stream, &path, &(mark - 1).to_string())?;
        } else {
            head(&mut stream, "main", mark, "work")?;
            for _ in 0..1 + rng.below(3) {
                let path = match rng.below(10) {
                    0 => format!("big/f{:04}.txt", rng.below(1_000)),
                    1..=7 => format!("src/m{:03}.rs", rng.below(200)),
                    _ => format!("root{:02}.md", rng.below(20)),
                };
                file(&mut stream, &path, &mark.to_string())?;
            }
        }
        main_tip = mark;
    }
    fast_import(bare, &stream)?;
    run(git(bare).args(["repack", "-adfq"]))?;
    Ok(())
}
