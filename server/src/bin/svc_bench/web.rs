//! `svc-bench web`: the server-rendered pages (`server/src/web/`) of a real `svc-server`
//! (SQLite unless `--database-url`), read the way a browser reads them: signed in with a
//! password (`POST /v1/login/password` with the server's `Origin`), the session cookie on
//! every request, one keep-alive connection, redirects not followed (a sign-in redirect
//! fails the bench).
//!
//! - home: one person with `--monorepos` monorepos (one repo each) and `--lines`
//!   activity lines spread evenly over them, all made through the git door: per repo a
//!   first push of main and `--branches` new branches (a line each), then pushes moving
//!   those branches forward by 1 to 3 commits, up to all of them at once (a `push` line
//!   per branch moved), until the repo has its share. The count is checked with
//!   listActivity per monorepo, and every branch's facts are waited for, so nothing runs
//!   in the background. Every open branch is the person's and ready, so each is also a
//!   line of the home's "needs you" list. Then `GET /` whole, `--runs` times after 10
//!   untimed (goal p50 < 30 ms), on PostgreSQL again after `ANALYZE` (autovacuum may not
//!   have gathered statistics), and each of the three API reads the page is made of
//!   alone;
//! - branch page: a repo `big` in the first monorepo with a long main (2 × `--files`
//!   source files, a 1,000-entry folder, a ~400 KB file, 200 commits) and branches each
//!   editing `--files` of its files. Cold: `--cold-runs` times, a new branch is pushed
//!   and its page asked for right away, while its facts are being computed and with no
//!   diff cached; then the warm page of a branch whose facts are done, `--runs` times
//!   after 10 untimed. Time to the response headers, to the first body chunk (goal <
//!   100 ms) and to the end (the page is rendered whole, then sent); and the diff the
//!   page reads (getBranchDiff, 256 KiB of patches) alone;
//! - commit page: topic-0's one commit (the same `--files`-file diff, against its
//!   parent), `--runs` times after 10 untimed: first byte (goal < 100 ms) and whole;
//! - CI job page: the server's Buildkite API is a stand-in on loopback
//!   (`stand_in_buildkite`), the monorepo gets a CI connection, a build of topic-0 is
//!   started through the API and its job finished by a signed `job.finished` webhook,
//!   and the stand-in holds a 1 MiB log with colour for it. The job's page reads the log
//!   from Buildkite at every load (`routes::ci_builds::log`) and renders its 48 KB tail:
//!   `--runs` loads after 10 untimed, first byte (goal p50 < 50 ms) and whole, each
//!   alternating with a read of the same log through the API (`GET .../jobs/{job}/log`
//!   with the session cookie, as the page's raw-log link) as the baseline;
//! - page sizes: every kind of page with big data (the branch, commit and CI job pages
//!   above, big's folder and big file, its history, 40 releases with notes and files,
//!   200 issues, an issue with a 300-comment timeline, an artifact with a 300 KB
//!   document and 120 threads), each fetched whole and timed 20 times after its
//!   warm-up. Goal: every page's HTML under 100 KB (100,000 bytes) before images; the
//!   stylesheet and the script, loaded once and cached, are reported beside them. A page
//!   at or over it makes the bench exit non-zero (after printing everything).

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::StreamExt;
use reqwest::header::{CONTENT_TYPE, COOKIE, ORIGIN, SET_COOKIE};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use svc_protocol::branch::{Branch, BranchList};

use super::branches::{Client, ms, percentile};
use super::common::{
    Api, Lcg, SECRET, Server, fast_import, git, git_door, print_load, print_machine, run, secs,
    timed, work_dir,
};
use super::stand_in_buildkite::StandInBuildkite;

/// Goal: `GET /` p50.
const HOME_GOAL: Duration = Duration::from_millis(30);
/// Goal: the branch page's first byte.
const FIRST_BYTE_GOAL: Duration = Duration::from_millis(100);
/// Goal: the CI job page's first byte.
const JOB_GOAL: Duration = Duration::from_millis(50);
/// Bytes of the job's log.
const JOB_LOG: usize = 1024 * 1024;
/// The server's Buildkite token, the CI pipeline and the job.
const BUILDKITE_TOKEN: &str = "svc-bench-buildkite";
const PIPELINE: &str = "bench";
const JOB: &str = "0190c0de-0000-4000-8000-00000000b0b0";
/// Goal: every page's HTML below this many bytes.
const PAGE_GOAL: usize = 100_000;
/// Untimed requests before a timed series.
const WARM_UP: usize = 10;
/// Timed requests of each page in the size table.
const PAGE_RUNS: usize = 20;
/// How long facts may take.
const FACTS_WAIT: Duration = Duration::from_secs(300);
/// The browser password of the bench's person.
const PASSWORD: &str = "svc-bench web password";
/// Commits of the big repo's main.
const HISTORY: usize = 200;
/// Entries of its big folder.
const FOLDER: usize = 1_000;
/// Bytes of its big file, about.
const BIG_FILE: usize = 400_000;
/// Releases, each with this many files.
const RELEASES: usize = 40;
const RELEASE_FILES: usize = 3;
/// Issues, and comments on the long one.
const ISSUES: usize = 200;
const COMMENTS: usize = 300;
/// The artifact: document bytes, images, threads and replies in each.
const DOCUMENT: usize = 300_000;
const IMAGES: usize = 5;
const THREADS: usize = 120;
const REPLIES: usize = 2;
/// Seeding requests in flight at once.
const CONCURRENCY: usize = 4;
/// The long issue's title.
const LONG_TITLE: &str =
    "The request path is slow under load: what we measured and what we changed";
const BOUNDARY: &str = "svc-bench-web-3f9a1c7e5b";

pub struct Options {
    pub runs: usize,
    pub cold_runs: usize,
    pub monorepos: usize,
    pub lines: usize,
    pub branches: usize,
    pub files: usize,
    pub database_url: Option<String>,
    pub keep: bool,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    if opts.monorepos == 0
        || !opts.lines.is_multiple_of(opts.monorepos)
        || opts.lines / opts.monorepos < 2
    {
        bail!("--lines must be a multiple of --monorepos, at least two lines each");
    }
    if opts.runs == 0 || opts.cold_runs == 0 || opts.branches == 0 || opts.files < 10 {
        bail!("--runs, --cold-runs and --branches must be at least 1, --files at least 10");
    }
    print_machine();
    let dir = work_dir("web")?;
    let buildkite = StandInBuildkite::start(BUILDKITE_TOKEN).await?;
    let config = dir.join("svc.toml");
    std::fs::write(
        &config,
        format!(
            "[ci.buildkite]\napi_url = \"{}\"\ntoken = \"{BUILDKITE_TOKEN}\"\n",
            buildkite.api_url
        ),
    )?;
    let server = Server::start_with(
        &dir.join("data"),
        opts.database_url.as_deref(),
        &dir.join("server.log"),
        Some(&config),
    )
    .await?;
    println!(
        "backend: {}",
        if opts.database_url.is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        }
    );
    let (rest, login) = bootstrap(&server).await?;
    let api = Api::at(&server, &rest.token);
    let client = Client::new(&server, &rest.token);
    let browser = Browser::sign_in(&server, &login).await?;
    println!("signed in as {login} with a password; session cookie taken");

    // (1) The home page.
    let started = Instant::now();
    let monorepos = seed_feed(&dir, &api, &client, &opts).await?;
    let lines = count_lines(&client, &monorepos).await?;
    let plan = FeedPlan::new(opts.lines / opts.monorepos, opts.branches);
    println!(
        "set-up: {} monorepos, {lines} activity lines through the git door ({} pushes and \
         {} open branches each), every branch's facts done ({})",
        monorepos.len(),
        plan.pushes().len(),
        plan.branches,
        secs(started.elapsed())
    );
    if lines != opts.lines {
        bail!("listActivity counts {lines} lines, not {}", opts.lines);
    }
    print_load();
    let home = browser.series("/", opts.runs).await?;
    // PostgreSQL plans by table statistics, which autovacuum gathers only when it is on
    // and has come round (it is off in CI): the home again after ANALYZE.
    let analyzed = match opts.database_url.as_deref() {
        Some(url) => {
            let pool = sqlx::PgPool::connect(url).await?;
            sqlx::query("ANALYZE").execute(&pool).await?;
            pool.close().await;
            Some(browser.series("/", opts.runs).await?)
        }
        None => None,
    };
    // The API reads the home is made of, each on its own with the credential
    // (on PostgreSQL after ANALYZE).
    let mut parts = Vec::new();
    for (what, path) in [
        ("listActivity, 50 lines", "/v1/events?limit=50"),
        ("needs you (GET /v1/branches)", "/v1/branches"),
        ("monorepos with summaries", "/v1/monorepos?summary=1"),
    ] {
        let (times, size) = client.series(path, opts.runs).await?;
        parts.push((what, times, size));
    }
    let home_html = String::from_utf8_lossy(&home.body).into_owned();
    let shown = (
        home_html.matches("data-key=\"").count(),
        home_html.matches("data-monorepo-id=\"").count(),
        home_html.matches("data-need=\"").count(),
    );
    let (css, js) = assets(&browser, &home_html).await?;

    // (2) The branch page of a big diff.
    let first = &monorepos[0];
    let started = Instant::now();
    let big = seed_big(&dir, &api, &client, first, &opts).await?;
    let main_files = run(git(&big.local).args(["ls-tree", "-r", "--name-only", "main"]))?
        .lines()
        .count();
    println!(
        "set-up: repo {}/big: main of {main_files} files and {HISTORY} commits, topic-0 \
         editing {} files, facts done ({})",
        first.full,
        opts.files,
        secs(started.elapsed())
    );
    print_load();
    let mut cold = Vec::new();
    for i in 1..=opts.cold_runs {
        let branch = format!("topic-{i}");
        let push = timed(git_door(&big.local, &rest.token).args([
            "push",
            "-q",
            &big.url,
            &format!("refs/heads/{branch}:refs/heads/{branch}"),
        ]))?;
        let page = format!("{}/branches/{branch}", big.page);
        let got = browser.first_byte(&page).await?;
        check_diff_page(&got.body, opts.files)?;
        println!(
            "cold {branch} (pushed in {}, its page asked for at once): headers {}, first byte \
             {}, whole {}, {} bytes",
            secs(push),
            ms(got.headers),
            ms(got.first_byte),
            ms(got.total),
            got.body.len()
        );
        let head = run(git(&big.local).args(["rev-parse", &format!("refs/heads/{branch}")]))?;
        wait_fresh(&client, &big.api, &branch, &head).await?;
        cold.push(got);
    }
    let warm_page = format!("{}/branches/topic-0", big.page);
    for _ in 0..WARM_UP {
        browser.first_byte(&warm_page).await?;
    }
    let mut warm = Vec::with_capacity(opts.runs);
    for _ in 0..opts.runs {
        warm.push(browser.first_byte(&warm_page).await?);
    }
    check_diff_page(&warm[0].body, opts.files)?;
    // The commit page of topic-0's one commit, the same diff against its parent.
    let topic = run(git(&big.local).args(["rev-parse", "refs/heads/topic-0"]))?;
    let commit_page = format!("{}/commit/{}", big.page, topic.trim());
    for _ in 0..WARM_UP {
        browser.first_byte(&commit_page).await?;
    }
    let mut commits = Vec::with_capacity(opts.runs);
    for _ in 0..opts.runs {
        commits.push(browser.first_byte(&commit_page).await?);
    }
    check_diff_page(&commits[0].body, opts.files)?;
    // What the page asks the diff API for (the plain form, 256 KiB of patches), alone.
    let (diff_times, diff_size) = client
        .series(
            &format!("{}/branches/topic-0/diff?max_bytes=262144", big.api),
            opts.runs,
        )
        .await?;

    // The CI job page of a 1 MiB log, against the same log through the API.
    let started = Instant::now();
    let job_page = seed_ci(&server, &api, &buildkite, first).await?;
    println!(
        "set-up: a CI connection to the stand-in Buildkite at {}, build {} of topic-0 \
         started through the API, its job finished by a signed webhook, a {JOB_LOG}-byte \
         log with colour ({})",
        buildkite.api_url,
        job_page.build,
        secs(started.elapsed())
    );
    print_load();
    let reads_before = buildkite.log_reads();
    for _ in 0..WARM_UP {
        browser.first_byte(&job_page.page).await?;
        browser.first_byte(&job_page.log).await?;
    }
    let (mut jobs, mut logs) = (Vec::with_capacity(opts.runs), Vec::with_capacity(opts.runs));
    for _ in 0..opts.runs {
        jobs.push(browser.first_byte(&job_page.page).await?);
        logs.push(browser.first_byte(&job_page.log).await?);
    }
    let log_reads = buildkite.log_reads() - reads_before;
    check_job_page(&jobs[0].body)?;
    if logs[0].body.len() != JOB_LOG {
        bail!(
            "the API answered {} bytes of log, not {JOB_LOG}",
            logs[0].body.len()
        );
    }

    // (3) Every kind of page with big data.
    let started = Instant::now();
    let seeded = seed_pages(&api, &rest, first, &big).await?;
    println!(
        "set-up: {RELEASES} releases × {RELEASE_FILES} files, {ISSUES} issues, issue #{} with \
         {COMMENTS} comments, artifact {} ({} bytes, {IMAGES} images) with {THREADS} threads × \
         {REPLIES} replies ({})",
        seeded.long_issue,
        seeded.artifact,
        seeded.document_bytes,
        secs(started.elapsed())
    );
    print_load();
    let m = &first.page;
    let pages: Vec<(String, String)> = vec![
        ("home".into(), "/".to_owned()),
        ("monorepo".into(), m.clone()),
        ("tree: repo root".into(), big.page.clone()),
        (
            format!("tree: {FOLDER}-entry folder"),
            format!("{}/tree/main/vendor", big.page),
        ),
        (
            format!("blob: {} KB file", BIG_FILE / 1000),
            format!("{}/blob/main/data/big.rs", big.page),
        ),
        (
            format!("history ({HISTORY} commits)"),
            format!("{}/commits/main", big.page),
        ),
        (
            format!("releases ({RELEASES})"),
            format!("{}/releases", big.page),
        ),
        (
            format!("branch: {}-file diff", opts.files),
            warm_page.clone(),
        ),
        (
            format!("commit: {}-file diff", opts.files),
            commit_page.clone(),
        ),
        ("CI job: 1 MiB log".into(), job_page.page.clone()),
        (format!("issues ({ISSUES})"), format!("{m}/issues")),
        (
            format!("issue: {COMMENTS} comments"),
            format!("{m}/issues/{}", seeded.long_issue),
        ),
        (
            "artifact viewer".into(),
            format!(
                "{}/branches/topic-0/artifacts/{}",
                big.page, seeded.artifact
            ),
        ),
    ];
    let mut sizes = Vec::new();
    for (kind, path) in pages {
        let body = browser.settled(&path).await?;
        let (times, _) = browser.times(&path, PAGE_RUNS).await?;
        sizes.push((kind, path, body.len(), times));
    }
    let document = browser
        .page(&format!(
            "{}/branches/topic-0/artifacts/{}/versions/2/document",
            big.page, seeded.artifact
        ))
        .await?;
    print_load();

    // The figures.
    for (tag, series) in
        std::iter::once(("", &home)).chain(analyzed.iter().map(|a| ("after ANALYZE, ", a)))
    {
        let p50 = percentile(&series.times, 50);
        println!(
            "{tag}home `GET /`, {} monorepos, {lines} lines ({} lines, {} monorepos and {} \
             needs-you branches on the page), {} bytes: p50 {}, p99 {}, max {} ({} \
             requests); goal p50 < {}: {}",
            monorepos.len(),
            shown.0,
            shown.1,
            shown.2,
            series.body.len(),
            ms(p50),
            ms(percentile(&series.times, 99)),
            ms(percentile(&series.times, 100)),
            series.times.len(),
            ms(HOME_GOAL),
            verdict(p50 < HOME_GOAL)
        );
    }
    println!("  the API reads it is made of, each alone over HTTP with the credential:");
    for (what, times, size) in &parts {
        println!(
            "    {what}: p50 {}, p99 {}, {size} bytes",
            ms(percentile(times, 50)),
            ms(percentile(times, 99))
        );
    }
    let pick = |runs: &[Fetch], f: fn(&Fetch) -> Duration| -> Vec<Duration> {
        runs.iter().map(f).collect()
    };
    let cold_first = pick(&cold, |f| f.first_byte);
    let warm_first = pick(&warm, |f| f.first_byte);
    println!(
        "branch page, {} files changed, cold (new branch, facts computing, no diff cached), \
         {} loads: first byte p50 {}, max {}; headers p50 {}; whole p50 {}; {} bytes",
        opts.files,
        cold.len(),
        ms(percentile(&cold_first, 50)),
        ms(percentile(&cold_first, 100)),
        ms(percentile(&pick(&cold, |f| f.headers), 50)),
        ms(percentile(&pick(&cold, |f| f.total), 50)),
        cold.last().map_or(0, |f| f.body.len())
    );
    println!(
        "branch page, warm (facts done), {} loads: first byte p50 {}, p99 {}, max {}; \
         headers p50 {}; whole p50 {}, p99 {}; {} bytes",
        warm.len(),
        ms(percentile(&warm_first, 50)),
        ms(percentile(&warm_first, 99)),
        ms(percentile(&warm_first, 100)),
        ms(percentile(&pick(&warm, |f| f.headers), 50)),
        ms(percentile(&pick(&warm, |f| f.total), 50)),
        ms(percentile(&pick(&warm, |f| f.total), 99)),
        warm[0].body.len()
    );
    println!(
        "  of which the diff the page is made of, getBranchDiff with max_bytes=262144 alone \
         over HTTP: p50 {}, p99 {}, {diff_size} bytes of JSON",
        ms(percentile(&diff_times, 50)),
        ms(percentile(&diff_times, 99))
    );
    let commit_first = pick(&commits, |f| f.first_byte);
    println!(
        "commit page, one commit of {} files, {} loads: first byte p50 {}, p99 {}, max {}; \
         whole p50 {}, p99 {}; {} bytes (baseline: the warm branch page above, the same diff)",
        opts.files,
        commits.len(),
        ms(percentile(&commit_first, 50)),
        ms(percentile(&commit_first, 99)),
        ms(percentile(&commit_first, 100)),
        ms(percentile(&pick(&commits, |f| f.total), 50)),
        ms(percentile(&pick(&commits, |f| f.total), 99)),
        commits[0].body.len()
    );
    let (cold50, warm50) = (percentile(&cold_first, 50), percentile(&warm_first, 50));
    let commit50 = percentile(&commit_first, 50);
    println!(
        "goal branch page first byte < {}: cold p50 {}: {}; warm p50 {}: {}; commit page \
         p50 {}: {}",
        ms(FIRST_BYTE_GOAL),
        ms(cold50),
        verdict(cold50 < FIRST_BYTE_GOAL),
        ms(warm50),
        verdict(warm50 < FIRST_BYTE_GOAL),
        ms(commit50),
        verdict(commit50 < FIRST_BYTE_GOAL)
    );
    let job_first = pick(&jobs, |f| f.first_byte);
    let log_first = pick(&logs, |f| f.first_byte);
    println!(
        "CI job page, a {JOB_LOG}-byte log with colour (job finished; read from the \
         stand-in Buildkite at each load: {log_reads} reads for {} loads of the page and \
         the API), {} loads: first byte p50 {}, p99 {}, max {}; headers p50 {}; whole \
         p50 {}, p99 {}; {} bytes",
        2 * (WARM_UP + jobs.len()),
        jobs.len(),
        ms(percentile(&job_first, 50)),
        ms(percentile(&job_first, 99)),
        ms(percentile(&job_first, 100)),
        ms(percentile(&pick(&jobs, |f| f.headers), 50)),
        ms(percentile(&pick(&jobs, |f| f.total), 50)),
        ms(percentile(&pick(&jobs, |f| f.total), 99)),
        jobs[0].body.len()
    );
    println!(
        "  baseline, the same log through the API (GET {}, each load after a page load): \
         first byte p50 {}, p99 {}; whole p50 {}, p99 {}; {} bytes",
        job_page.log,
        ms(percentile(&log_first, 50)),
        ms(percentile(&log_first, 99)),
        ms(percentile(&pick(&logs, |f| f.total), 50)),
        ms(percentile(&pick(&logs, |f| f.total), 99)),
        logs[0].body.len()
    );
    let job50 = percentile(&job_first, 50);
    println!(
        "goal CI job page first byte < {}: p50 {}: {}",
        ms(JOB_GOAL),
        ms(job50),
        verdict(job50 < JOB_GOAL)
    );
    println!(
        "page sizes (the HTML; every page also loads the stylesheet, {css} bytes, and the \
         script, {js} bytes, once and cached; p50/p99 of {PAGE_RUNS} warm requests):"
    );
    let mut over = Vec::new();
    for (kind, path, size, times) in &sizes {
        let ok = *size < PAGE_GOAL;
        if !ok {
            over.push(format!("{kind} ({size} bytes)"));
        }
        println!(
            "  {kind:<26} {size:>7} bytes ({:>5.1} KB)  p50 {:>9}  p99 {:>9}  {}  {path}",
            *size as f64 / 1000.0,
            ms(percentile(times, 50)),
            ms(percentile(times, 99)),
            verdict(ok)
        );
    }
    println!(
        "  (the artifact's framed document, version 2, is a request of its own: {} bytes, \
         {} of them outside its inlined images)",
        document.len(),
        without_data_urls(&document)
    );
    let largest = sizes.iter().map(|s| s.2).max().unwrap_or(0);
    println!(
        "goal every page < 100 KB before images: largest {largest} bytes: {}",
        verdict(over.is_empty())
    );
    server.stop();
    if opts.keep {
        println!(
            "kept {} (token {}, password {PASSWORD:?} for {login})",
            dir.display(),
            rest.token
        );
    } else {
        std::fs::remove_dir_all(&dir)?;
    }
    if !over.is_empty() {
        bail!("pages at or over 100 KB: {}", over.join(", "));
    }
    Ok(())
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "MISSED" }
}

/// Creates the person with a browser password; answers a REST client speaking with
/// its credential, and its login.
async fn bootstrap(server: &Server) -> anyhow::Result<(Rest, String)> {
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{}/v1/users", server.base))
        .bearer_auth(SECRET)
        .json(&json!({"email": "bench@example.com", "password": PASSWORD}))
        .send()
        .await?;
    let status = r.status();
    let body: Value = r.json().await?;
    if status != StatusCode::CREATED {
        bail!("bootstrap: {status} {body}");
    }
    let token = body["credential"]["token"]
        .as_str()
        .context("no credential in the bootstrap answer")?
        .to_owned();
    let login = body["user"]["login"]
        .as_str()
        .context("no login in the bootstrap answer")?
        .to_owned();
    Ok((
        Rest {
            http,
            base: server.base.clone(),
            token,
        },
        login,
    ))
}

/// The API with the bench's credential, for the methods `Api` lacks.
struct Rest {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Rest {
    /// Sends a request; fails on anything but a 2xx.
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: reqwest::Body,
        content_type: &str,
    ) -> anyhow::Result<Value> {
        let r = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header(CONTENT_TYPE, content_type)
            .body(body)
            .send()
            .await?;
        let status = r.status();
        let text = r.text().await?;
        if !status.is_success() {
            bail!("{method} {path}: {status} {text}");
        }
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn json(&self, method: Method, path: &str, body: &Value) -> anyhow::Result<Value> {
        self.send(method, path, body.to_string().into(), "application/json")
            .await
    }
}

/// A signed-in browser: the session cookie on every request, redirects not followed.
struct Browser {
    http: reqwest::Client,
    base: String,
    cookie: String,
}

/// One page load.
struct Fetch {
    headers: Duration,
    first_byte: Duration,
    total: Duration,
    body: Vec<u8>,
}

/// A timed series of one page.
struct Series {
    times: Vec<Duration>,
    body: Vec<u8>,
}

impl Browser {
    async fn sign_in(server: &Server, login: &str) -> anyhow::Result<Browser> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let r = http
            .post(format!("{}/v1/login/password", server.base))
            .header(ORIGIN, &server.base)
            .json(&json!({"login": login, "password": PASSWORD}))
            .send()
            .await?;
        if r.status() != StatusCode::OK {
            bail!("password sign-in: {} {}", r.status(), r.text().await?);
        }
        let cookie = r
            .headers()
            .get_all(SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.split(';').next())
            .find(|pair| pair.starts_with("__Host-svc_session="))
            .context("no session cookie in the sign-in answer")?
            .to_owned();
        Ok(Browser {
            http,
            base: server.base.clone(),
            cookie,
        })
    }

    /// GETs a page; fails on anything but 200 (a sign-in redirect included).
    async fn send(&self, path: &str) -> anyhow::Result<reqwest::Response> {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .header(COOKIE, &self.cookie)
            .send()
            .await?;
        if r.status() != StatusCode::OK {
            let status = r.status();
            let to = r
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(|l| format!(" (to {l})"))
                .unwrap_or_default();
            let text = r.text().await.unwrap_or_default();
            bail!(
                "GET {path}: {status}{to} {}",
                text.chars().take(300).collect::<String>()
            );
        }
        Ok(r)
    }

    async fn page(&self, path: &str) -> anyhow::Result<Vec<u8>> {
        Ok(self.send(path).await?.bytes().await?.to_vec())
    }

    /// A page whole, with the time to its headers and to its first body chunk.
    async fn first_byte(&self, path: &str) -> anyhow::Result<Fetch> {
        let start = Instant::now();
        let mut r = self.send(path).await?;
        let headers = start.elapsed();
        let mut body = Vec::new();
        let mut first_byte = None;
        while let Some(chunk) = r.chunk().await? {
            first_byte.get_or_insert_with(|| start.elapsed());
            body.extend_from_slice(&chunk);
        }
        Ok(Fetch {
            headers,
            first_byte: first_byte.unwrap_or(headers),
            total: start.elapsed(),
            body,
        })
    }

    /// `runs` whole GETs after a few untimed ones; answers the times and the last body.
    async fn times(&self, path: &str, runs: usize) -> anyhow::Result<(Vec<Duration>, Vec<u8>)> {
        for _ in 0..3 {
            self.page(path).await?;
        }
        let mut times = Vec::with_capacity(runs);
        let mut body = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            body = self.page(path).await?;
            times.push(start.elapsed());
        }
        Ok((times, body))
    }

    async fn series(&self, path: &str, runs: usize) -> anyhow::Result<Series> {
        for _ in 0..WARM_UP {
            self.page(path).await?;
        }
        let (times, body) = self.times(path, runs).await?;
        Ok(Series { times, body })
    }

    /// A page once the server has all of it: a folder whose last commits are still
    /// being walked says when to ask again (`data-retry-ms`).
    async fn settled(&self, path: &str) -> anyhow::Result<Vec<u8>> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let body = self.page(path).await?;
            let partial = body.windows(14).any(|w| w == b"data-retry-ms=");
            if !partial {
                return Ok(body);
            }
            if Instant::now() > deadline {
                bail!("{path} still has last commits to come after 60 s");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// The sizes of the stylesheet and the script the page links.
async fn assets(browser: &Browser, html: &str) -> anyhow::Result<(usize, usize)> {
    let attr = |after: &str, name: &str| -> anyhow::Result<String> {
        let at = html.find(after).context("no asset link on the page")?;
        let rest = &html[at..];
        let start = rest.find(name).context("no asset address")? + name.len();
        let end = rest[start..].find('"').context("no asset address end")?;
        Ok(rest[start..start + end].to_owned())
    };
    let css = attr("<link rel=\"stylesheet\"", "href=\"")?;
    let js = attr("<script src=", "src=\"")?;
    Ok((
        browser.page(&css).await?.len(),
        browser.page(&js).await?.len(),
    ))
}

/// Checks a branch or commit page shows the diff's count.
fn check_diff_page(body: &[u8], files: usize) -> anyhow::Result<()> {
    let html = String::from_utf8_lossy(body);
    let want = format!("{files} files changed");
    if !html.contains(&want) {
        bail!("the page does not say {want:?}");
    }
    Ok(())
}

/// Bytes of `doc` outside `data:` URLs.
fn without_data_urls(doc: &[u8]) -> usize {
    let text = String::from_utf8_lossy(doc);
    let mut kept = 0;
    let mut rest = text.as_ref();
    while let Some(at) = rest.find("data:") {
        kept += at;
        let tail = &rest[at..];
        let end = tail.find(['"', '\'', ')']).unwrap_or(tail.len());
        rest = &tail[end..];
    }
    kept + rest.len()
}

// ---------------------------------------------------------------------------------------
// The home's data

/// One of the person's monorepos.
struct Mono {
    /// `owner/name`.
    full: String,
    /// Its page, `/owner/name`.
    page: String,
}

/// Makes the monorepos and pushes the lines; waits for every branch's facts.
async fn seed_feed(
    dir: &Path,
    api: &Api,
    client: &Client,
    opts: &Options,
) -> anyhow::Result<Vec<Mono>> {
    let plan = FeedPlan::new(opts.lines / opts.monorepos, opts.branches);
    let local = dir.join("feed.git");
    feed_repo(&local, &plan)?;
    let mut made = Vec::with_capacity(opts.monorepos);
    for i in 0..opts.monorepos {
        let (full, url) = api.repo(&format!("mono-{i:02}"), "app").await?;
        made.push((full, url));
    }
    let token = api.token.clone();
    let pushes = futures_util::stream::iter(made.iter().cloned().map(|(_, url)| {
        let (local, token, plan) = (local.clone(), token.clone(), plan.clone());
        tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
            for refspecs in plan.pushes() {
                run(git_door(&local, &token)
                    .args(["push", "-q", &url])
                    .args(refspecs))?;
            }
            Ok(())
        })
    }))
    .buffer_unordered(CONCURRENCY)
    .collect::<Vec<_>>()
    .await;
    for pushed in pushes {
        pushed??;
    }
    // Every branch's facts, so the timed pages share the CPU with nothing.
    let deadline = Instant::now() + FACTS_WAIT;
    for (full, _) in &made {
        loop {
            let list: BranchList = client
                .json(&format!(
                    "/v1/monorepos/{full}/repos/app/branches?limit=100"
                ))
                .await?;
            if list.items.len() != plan.branches {
                bail!(
                    "{full} lists {} branches, not {}",
                    list.items.len(),
                    plan.branches
                );
            }
            if list.items.iter().all(|b| !b.stale) {
                break;
            }
            if Instant::now() > deadline {
                bail!("facts not done in {}", secs(FACTS_WAIT));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    Ok(made
        .into_iter()
        .map(|(full, _)| Mono {
            page: format!("/{full}"),
            full,
        })
        .collect())
}

/// How one monorepo's lines are pushed: main and `branches` new branches in the first
/// push (a line each), then `moves` more lines as pushes moving up to every branch
/// forward at once (a line per branch moved), round the branches in turn.
#[derive(Clone)]
struct FeedPlan {
    branches: usize,
    moves: usize,
}

impl FeedPlan {
    fn new(per: usize, branches: usize) -> FeedPlan {
        let branches = branches.min(per - 1);
        FeedPlan {
            branches,
            moves: per - 1 - branches,
        }
    }

    /// The refspecs of each push, in order.
    fn pushes(&self) -> Vec<Vec<String>> {
        let mut first = vec!["refs/heads/main:refs/heads/main".to_owned()];
        first.extend((0..self.branches).map(|b| format!("refs/heads/{0}:refs/heads/{0}", work(b))));
        let mut pushes = vec![first];
        for (j, chunk) in (0..self.moves)
            .collect::<Vec<_>>()
            .chunks(self.branches.max(1))
            .enumerate()
        {
            pushes.push(
                chunk
                    .iter()
                    .map(|i| {
                        let b = i % self.branches;
                        format!("refs/heads/step-{}/{1}:refs/heads/{1}", j + 1, work(b))
                    })
                    .collect(),
            );
        }
        pushes
    }

    /// The pushes that move branch `b`.
    fn steps(&self, b: usize) -> usize {
        self.moves / self.branches + usize::from(b < self.moves % self.branches)
    }
}

fn work(b: usize) -> String {
    format!("work-{b:02}")
}

/// Main (a few files) and the plan's branches: one commit on main each, then for each
/// push that moves a branch `refs/heads/step-<n>/<branch>`, 1 to 3 commits further.
fn feed_repo(bare: &Path, plan: &FeedPlan) -> anyhow::Result<()> {
    init_bare(bare)?;
    let mut s = Vec::new();
    commit(&mut s, "refs/heads/main", 1, None, 0, "Start the app\n")?;
    file(&mut s, "README.md", "# app\n\nThe bench's app.\n")?;
    file(
        &mut s,
        "src/main.rs",
        "fn main() {\n    println!(\"hello\");\n}\n",
    )?;
    let mut mark = 1;
    for b in 0..plan.branches {
        let name = work(b);
        let path = format!("work/{name}.md");
        let mut text = format!("# {name}\n");
        mark += 1;
        let message = format!("Start {name}\n\nA first step.\n");
        let git_ref = format!("refs/heads/{name}");
        commit(&mut s, &git_ref, mark, Some(1), 60, &message)?;
        file(&mut s, &path, &text)?;
        for step in 1..=plan.steps(b) {
            let git_ref = format!("refs/heads/step-{step}/{name}");
            for c in 0..1 + (b + step) % 3 {
                mark += 1;
                text.push_str(&format!("- step {step}, change {c}\n"));
                let message = format!("Step {step} of {name}, change {c}\n");
                commit(
                    &mut s,
                    &git_ref,
                    mark,
                    Some(mark - 1),
                    60 + 60 * step,
                    &message,
                )?;
                file(&mut s, &path, &text)?;
            }
        }
    }
    fast_import(bare, &s)
}

/// Lines of listActivity, per monorepo (so the 20-logs-a-page limit does not matter).
async fn count_lines(client: &Client, monorepos: &[Mono]) -> anyhow::Result<usize> {
    let mut total = 0;
    for m in monorepos {
        let mut cursor = String::new();
        loop {
            let page: Value = client
                .json(&format!("/v1/events?in={}&limit=200{cursor}", m.full))
                .await?;
            total += page["items"].as_array().map_or(0, Vec::len);
            match page["next"].as_str() {
                Some(next) => cursor = format!("&cursor={}", encode(next)),
                None => break,
            }
        }
    }
    Ok(total)
}

fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

// ---------------------------------------------------------------------------------------
// The big repo

struct Big {
    /// The local bare repository it was pushed from (with every topic branch).
    local: std::path::PathBuf,
    url: String,
    /// `/v1/monorepos/<full>/repos/big`.
    api: String,
    /// `/<full>/-/big`.
    page: String,
}

async fn seed_big(
    dir: &Path,
    api: &Api,
    client: &Client,
    m: &Mono,
    opts: &Options,
) -> anyhow::Result<Big> {
    let local = dir.join("big.git");
    big_repo(&local, opts.files, opts.cold_runs + 1)?;
    let r = api
        .post(
            &format!("/v1/monorepos/{}/repos", m.full),
            json!({"path": "big"}),
        )
        .await?;
    let url = r["clone_url"]
        .as_str()
        .context("no clone_url for the repo")?
        .to_owned();
    let big = Big {
        url,
        api: format!("/v1/monorepos/{}/repos/big", m.full),
        page: format!("{}/-/big", m.page),
        local,
    };
    for branch in ["main", "topic-0"] {
        let took = timed(git_door(&big.local, &api.token).args([
            "push",
            "-q",
            &big.url,
            &format!("refs/heads/{branch}:refs/heads/{branch}"),
        ]))?;
        println!("push of big's {branch} through the door: {}", secs(took));
    }
    let head = run(git(&big.local).args(["rev-parse", "refs/heads/topic-0"]))?;
    wait_fresh(client, &big.api, "topic-0", &head).await?;
    Ok(big)
}

/// Waits until `branch` is at `head` with fresh facts.
async fn wait_fresh(client: &Client, r: &str, branch: &str, head: &str) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        let b: Branch = client.json(&format!("{r}/branches/{branch}")).await?;
        if b.head == head && !b.stale {
            return Ok(());
        }
        if start.elapsed() > FACTS_WAIT {
            bail!(
                "the facts of {branch} were not done in {}",
                secs(FACTS_WAIT)
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Main: `2 × files` source files in 20 folders under `src/` (the first `files` of them
/// the ones the branches edit), `vendor/` with 1,000 small files, `data/big.rs` of about
/// 400 KB, a README, then 199 more commits each rewriting one of ten notes files. Branch
/// `topic-<t>` for each `t < topics`: one commit on main editing the first `files`
/// source files in 1 to 4 places, each branch differently.
fn big_repo(bare: &Path, files: usize, topics: usize) -> anyhow::Result<()> {
    init_bare(bare)?;
    let mut rng = Lcg(42);
    let mut s = Vec::new();
    commit(
        &mut s,
        "refs/heads/main",
        1,
        None,
        0,
        "Import the service\n\nEverything the service had when it moved here.\n",
    )?;
    let mut edited = Vec::with_capacity(files);
    for i in 0..2 * files {
        let lines: Vec<String> = (0..40 + rng.below(161))
            .map(|n| code_line(&mut rng, n))
            .collect();
        let path = format!("src/m{:02}/f{i:05}.rs", i % 20);
        file(&mut s, &path, &lines.concat())?;
        if i < files {
            edited.push((path, lines));
        }
    }
    for i in 0..FOLDER {
        file(
            &mut s,
            &format!("vendor/pkg-{i:04}.toml"),
            &format!(
                "[package]\nname = \"pkg-{i:04}\"\nversion = \"1.{}.{}\"\n\
                 checksum = \"{:016x}{:016x}\"\n",
                i % 17,
                i % 5,
                rng.next_u64(),
                rng.next_u64()
            ),
        )?;
    }
    let mut big = String::with_capacity(BIG_FILE + 100);
    let mut n = 0;
    while big.len() < BIG_FILE {
        big.push_str(&code_line(&mut rng, n));
        n += 1;
    }
    file(&mut s, "data/big.rs", &big)?;
    file(
        &mut s,
        "README.md",
        "# big\n\nA service with a long history.\n",
    )?;
    for k in 2..=HISTORY {
        let message = format!(
            "Tune step {k} of the request path\n\n\
             The handler read the whole table before it answered; it now reads the page it\n\
             shows and keeps the rest for the next request. Measured on the staging data:\n\
             about {} ms less per request.\n\nRefs #{}\n",
            k % 40 + 1,
            k % 97 + 1
        );
        commit(&mut s, "refs/heads/main", k, Some(k - 1), 600 * k, &message)?;
        let notes: String = (0..20 + k % 30)
            .map(|l| format!("- revision {k}, note {l}: {}\n", rng.below(100_000)))
            .collect();
        file(&mut s, &format!("docs/notes-{}.md", k % 10), &notes)?;
    }
    for t in 0..topics {
        let mut rng = Lcg(1_000 + t as u64);
        let message = format!("Rework the handlers, take {t}\n\nEvery handler of the service.\n");
        commit(
            &mut s,
            &format!("refs/heads/topic-{t}"),
            0,
            Some(HISTORY),
            600 * HISTORY + 60 * (t + 1),
            &message,
        )?;
        for (path, lines) in &edited {
            file(&mut s, path, &edit(&mut rng, lines.clone()).concat())?;
        }
    }
    fast_import(bare, &s)?;
    run(git(bare).args(["repack", "-adq"]))?;
    Ok(())
}

fn init_bare(bare: &Path) -> anyhow::Result<()> {
    let parent = bare.parent().context("no parent")?;
    let name = bare.file_name().context("no name")?;
    run(git(parent).args(["init", "-q", "--bare"]).arg(name))?;
    Ok(())
}

/// A fast-import commit header: `mark` (0 for none), from mark `from`, `at` seconds
/// after a fixed time.
fn commit(
    s: &mut Vec<u8>,
    git_ref: &str,
    mark: usize,
    from: Option<usize>,
    at: usize,
    message: &str,
) -> std::io::Result<()> {
    writeln!(s, "commit {git_ref}")?;
    if mark > 0 {
        writeln!(s, "mark :{mark}")?;
    }
    writeln!(
        s,
        "committer Bench <bench@example.com> {} +0000",
        1_767_000_000 + at
    )?;
    write!(s, "data {}\n{message}", message.len())?;
    if let Some(from) = from {
        writeln!(s, "from :{from}")?;
    }
    Ok(())
}

fn file(s: &mut Vec<u8>, path: &str, text: &str) -> std::io::Result<()> {
    write!(s, "M 100644 inline {path}\ndata {}\n{text}\n", text.len())
}

/// A line of Rust-like code.
fn code_line(rng: &mut Lcg, n: usize) -> String {
    match rng.below(10) {
        0 => "}\n".to_owned(),
        1 => "\n".to_owned(),
        2 => format!("pub fn item_{n}_{}(arg: u32) -> u32 {{\n", rng.below(1_000)),
        3 => format!("    // step {n}: keep the {} in order\n", rng.below(1_000)),
        4 => format!("        if arg > {} {{\n", rng.below(100)),
        _ => format!(
            "    let value_{n} = compute(arg, {}, \"{}\");\n",
            rng.below(10_000),
            rng.below(10_000)
        ),
    }
}

/// `lines` with 1 to 4 hunks replaced, inserted or deleted (never unchanged).
fn edit(rng: &mut Lcg, old: Vec<String>) -> Vec<String> {
    let mut lines = old.clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(lines.len());
        let len = (1 + rng.below(4)).min(lines.len() - at);
        let new: Vec<String> = (0..rng.below(5))
            .map(|_| code_line(rng, at + 100_000))
            .collect();
        match rng.below(3) {
            0 => {
                lines.splice(at..at, new);
            }
            1 => {
                lines.drain(at..at + len);
            }
            _ => {
                lines.splice(at..at + len, new);
            }
        }
    }
    if lines == old {
        lines.push("// edited\n".to_owned());
    }
    lines
}

// ---------------------------------------------------------------------------------------
// A CI job with a big log

/// The job's page and its log in the API.
struct CiJobPages {
    /// The build's number.
    build: i64,
    page: String,
    log: String,
}

/// Connects `m` to the stand-in Buildkite, starts a build of big's topic-0 through the
/// API (the stand-in answers it), finishes its job with a signed `job.finished` webhook
/// as Buildkite sends it, and gives the stand-in the job's log.
async fn seed_ci(
    server: &Server,
    api: &Api,
    buildkite: &StandInBuildkite,
    m: &Mono,
) -> anyhow::Result<CiJobPages> {
    let base = format!("/v1/monorepos/{}", m.full);
    let made = api
        .post(
            &format!("{base}/ci/connections"),
            json!({"service": "buildkite", "organization": "acme"}),
        )
        .await?;
    let connection = made["id"].as_str().context("no connection id")?;
    let webhook_token = made["webhook_token"].as_str().context("no webhook_token")?;
    let build = api
        .post(
            &format!("{base}/ci/pipelines/{PIPELINE}/builds"),
            json!({"branch": "topic-0", "repo": "big"}),
        )
        .await?;
    let id = build["id"].as_str().context("no build id")?;
    let number = build["number"].as_i64().context("no build number")?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_secs();
    let event = json!({"event": "job.finished", "pipeline": {"slug": PIPELINE},
        "build": {"id": id, "number": number, "state": "passed", "commit": build["commit"],
            "branch": "topic-0", "meta_data": build["meta_data"]},
        "job": {"id": JOB, "type": "script", "name": "cargo test", "state": "passed",
            "exit_status": 0}});
    let body = serde_json::to_vec(&event)?;
    let r = reqwest::Client::new()
        .post(format!("{}/v1/ci/webhooks/{connection}", server.base))
        .header("x-buildkite-event", "job.finished")
        .header(
            "x-buildkite-signature",
            svc_server::ci::signature::sign(webhook_token, i64::try_from(now)?, &body),
        )
        .header(CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await?;
    if !r.status().is_success() {
        bail!(
            "the job.finished webhook: {} {}",
            r.status(),
            r.text().await?
        );
    }
    buildkite.set_log(JOB, job_log());
    Ok(CiJobPages {
        build: number,
        page: format!("{}/ci/builds/{id}/jobs/{JOB}", m.page),
        log: format!("{base}/ci/builds/{id}/jobs/{JOB}/log"),
    })
}

/// The last line of the job's log.
const LOG_END: &str = "bench log end";

/// A test run's log as Buildkite keeps it, [`JOB_LOG`] bytes: each line stamped with
/// Buildkite's timestamp escape, groups, passing tests in green, warnings in yellow,
/// 256-colour timings, compiler lines in bold; [`LOG_END`] last.
fn job_log() -> Vec<u8> {
    let mut rng = Lcg(11);
    let last = format!("\x1b_bk;t=1767000999999\x07\x1b[1;32m{LOG_END}\x1b[0m\n");
    let mut log = Vec::with_capacity(JOB_LOG);
    for n in 0u64.. {
        let t = 1_767_000_000_000 + 7 * n;
        let text = match rng.below(20) {
            0 => format!("~~~ Running tests of crate_{}\n", rng.below(40)),
            1 => format!(
                "\x1b[33mwarning\x1b[0m: unused variable: `value_{n}` \x1b[38;5;244m(src/m{:02}/f{:05}.rs:{})\x1b[0m\n",
                rng.below(20),
                rng.below(2_000),
                rng.below(200)
            ),
            2 => format!(
                "\x1b[1m   Compiling\x1b[0m crate_{} v0.{}.0 (/workdir/crates/crate_{})\n",
                rng.below(40),
                rng.below(9),
                rng.below(40)
            ),
            _ => format!(
                "test handlers::m{:02}::case_{n} ... \x1b[32mok\x1b[0m \x1b[38;5;244m({} ms)\x1b[0m\n",
                rng.below(20),
                rng.below(900)
            ),
        };
        let line = format!("\x1b_bk;t={t}\x07{text}");
        if log.len() + line.len() + last.len() > JOB_LOG {
            break;
        }
        log.extend_from_slice(line.as_bytes());
    }
    let room = JOB_LOG - log.len() - last.len();
    if room > 0 {
        log.extend_from_slice(format!("{}\n", ".".repeat(room - 1)).as_bytes());
    }
    log.extend_from_slice(last.as_bytes());
    log
}

/// Checks the job page shows the log's tail in colour and no raw escape.
fn check_job_page(body: &[u8]) -> anyhow::Result<()> {
    let html = String::from_utf8_lossy(body);
    if !html.contains(LOG_END) || !html.contains("class=\"a-f2\"") {
        bail!("the job page does not show the log's tail in colour");
    }
    if html.contains('\u{1b}') {
        bail!("a raw escape code reached the job page");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Releases, issues and an artifact

struct Seeded {
    long_issue: i64,
    artifact: String,
    document_bytes: usize,
}

async fn seed_pages(api: &Api, rest: &Rest, m: &Mono, big: &Big) -> anyhow::Result<Seeded> {
    let mut rng = Lcg(7);
    // Releases with notes and files, oldest first.
    for i in 0..RELEASES {
        let tag = format!("v1.{i}.0");
        let notes = release_notes(&mut rng, i);
        api.post(
            &format!("{}/releases", big.api),
            json!({"tag": tag, "title": format!("Release 1.{i}"), "notes": notes}),
        )
        .await?;
        for f in 0..RELEASE_FILES {
            let name = format!(
                "big-1.{i}.0-{}.tar.gz",
                ["linux", "macos", "windows"][f % 3]
            );
            let mut bytes = vec![0u8; 4096 + rng.below(4096)];
            rng.fill(&mut bytes);
            rest.send(
                Method::PUT,
                &format!("{}/releases/{tag}/files/{name}", big.api),
                bytes.into(),
                "application/octet-stream",
            )
            .await?;
        }
    }

    // Issues: a long one first, then the rest, labelled.
    let issues = format!("/v1/monorepos/{}/issues", m.full);
    let labels = ["bug", "enhancement", "documentation", "question"];
    let long = api
        .post(
            &issues,
            json!({"title": LONG_TITLE, "body": markdown(&mut rng, 4_000), "labels": ["bug"]}),
        )
        .await?;
    let long_issue = long["number"].as_i64().context("no issue number")?;
    let bodies: Vec<String> = (0..ISSUES - 1)
        .map(|_| {
            let size = 300 + rng.below(1_500);
            markdown(&mut rng, size)
        })
        .collect();
    let made = futures_util::stream::iter(bodies.into_iter().enumerate().map(|(i, body)| {
        let (issues, labels) = (&issues, &labels);
        async move {
            api.post(
                issues,
                json!({"title": format!("Issue {i}: {}", title(i)), "body": body,
                       "labels": [labels[i % 4], labels[(i / 4) % 4]]}),
            )
            .await
        }
    }))
    .buffer_unordered(CONCURRENCY)
    .collect::<Vec<_>>()
    .await;
    for m in made {
        m?;
    }
    let comments = format!("{issues}/{long_issue}/comments");
    let patch = format!("{issues}/{long_issue}");
    for c in 0..COMMENTS {
        let size = 200 + rng.below(1_200);
        let body = markdown(&mut rng, size);
        api.post(&comments, json!({ "body": body })).await?;
        if c % 15 == 14 {
            let label = labels[(c / 15) % 4];
            let change = if (c / 15) % 2 == 0 { "add" } else { "remove" };
            let body = json!({"labels": {change: [label]}});
            rest.json(Method::PATCH, &patch, &body).await?;
        }
    }

    // An artifact on topic-0: two versions of a big document with images, then threads.
    let name = "report.md".to_owned();
    let images: Vec<(String, Vec<u8>)> = (0..IMAGES)
        .map(|i| (format!("img/fig-{i}.svg"), svg(&mut rng)))
        .collect();
    let mut document_bytes = 0;
    let on = format!("{}/branches/topic-0/artifacts", big.api);
    for version in 0..2 {
        let doc = document(&mut rng, DOCUMENT + version * 1_000);
        document_bytes = doc.len();
        let mut parts = vec![("file", name.as_str(), doc.as_slice())];
        parts.extend(
            images
                .iter()
                .map(|(p, b)| ("image", p.as_str(), b.as_slice())),
        );
        rest.send(
            Method::POST,
            &on,
            multipart(&parts).into(),
            &format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .await?;
    }
    let thread_path = format!("{on}/{name}/comments");
    for t in 0..THREADS {
        let size = 100 + rng.below(600);
        let body = markdown(&mut rng, size);
        let root = api
            .post(
                &thread_path,
                json!({"body": body, "quote": format!("figure {} of the nightly run", t % 20)}),
            )
            .await?;
        let id = root["id"].as_str().context("no comment id")?.to_owned();
        for _ in 0..REPLIES {
            let size = 80 + rng.below(300);
            let body = markdown(&mut rng, size);
            api.post(&thread_path, json!({"body": body, "in_reply_to": id}))
                .await?;
        }
    }
    Ok(Seeded {
        long_issue,
        artifact: name,
        document_bytes,
    })
}

fn title(i: usize) -> &'static str {
    const TITLES: [&str; 8] = [
        "the branch page shows a stale merge state after a force push",
        "releases list loses its files after a tag rename",
        "home feed repeats a line when two pushes land together",
        "tree view sorts folders after files on the second page",
        "blob view cuts the last line of a file without a newline",
        "history page ignores the path when the ref is a sha",
        "artifact threads do not scroll to a quoted passage",
        "issue search misses words with accents",
    ];
    TITLES[i % TITLES.len()]
}

/// Markdown of about `size` bytes: paragraphs, a list, a code block and a link.
fn markdown(rng: &mut Lcg, size: usize) -> String {
    const WORDS: [&str; 16] = [
        "request",
        "the",
        "branch",
        "median",
        "of",
        "latency",
        "regressed",
        "after",
        "merge",
        "cache",
        "and",
        "page",
        "render",
        "p99",
        "when",
        "rebuilt",
    ];
    let mut out = String::with_capacity(size + 200);
    let mut n = 0;
    while out.len() < size {
        match n % 5 {
            1 => {
                for i in 0..3 {
                    out.push_str(&format!(
                        "- step {i}: `{}` took {} ms\n",
                        WORDS[rng.below(16)],
                        rng.below(500)
                    ));
                }
                out.push('\n');
            }
            3 => out.push_str(&format!(
                "```rust\nlet took = measure(\"{}\", {});\nassert!(took < budget);\n```\n\n",
                WORDS[rng.below(16)],
                rng.below(1_000)
            )),
            4 => out.push_str(&format!(
                "See [the run](https://ci.example.com/builds/{}) for the **whole** log.\n\n",
                rng.below(100_000)
            )),
            _ => {
                for w in 0..40 {
                    out.push_str(WORDS[rng.below(16)]);
                    out.push(if w % 13 == 12 { '\n' } else { ' ' });
                }
                out.push_str("\n\n");
            }
        }
        n += 1;
    }
    out
}

/// Release notes: what a generated changelog of 20 to 40 merges looks like.
fn release_notes(rng: &mut Lcg, i: usize) -> String {
    let mut notes = format!("## What changed in 1.{i}.0\n\n");
    for k in 0..20 + rng.below(21) {
        notes.push_str(&format!(
            "- {} (#{}, merged by @bench from `topic-{}`)\n",
            title(k + i),
            rng.below(5_000),
            rng.below(500)
        ));
    }
    notes.push_str("\n### Upgrading\n\nNothing to do: the data moves on first start.\n");
    notes
}

/// A report in Markdown of about `size` bytes, with the images between its sections.
fn document(rng: &mut Lcg, size: usize) -> Vec<u8> {
    let mut doc = String::from("# Nightly report\n\n");
    let sections = 40;
    for k in 0..sections {
        doc.push_str(&format!("## Section {k}\n\n"));
        if k % (sections / IMAGES) == 0 {
            doc.push_str(&format!(
                "![figure {k}](img/fig-{}.svg)\n\n",
                (k / (sections / IMAGES)) % IMAGES
            ));
        }
        let part = markdown(rng, size / sections);
        doc.push_str(&part);
        doc.push_str("| run | p50 | p99 |\n|---|---|---|\n");
        for r in 0..5 {
            doc.push_str(&format!(
                "| {r} | {} ms | {} ms |\n",
                rng.below(50),
                50 + rng.below(200)
            ));
        }
        doc.push('\n');
    }
    doc.into_bytes()
}

/// A chart as SVG: a polyline of 200 points.
fn svg(rng: &mut Lcg) -> Vec<u8> {
    let points: Vec<String> = (0..200)
        .map(|x| format!("{},{}", x * 3, 20 + rng.below(260)))
        .collect();
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"300\" \
         viewBox=\"0 0 600 300\"><polyline fill=\"none\" stroke=\"#36c\" \
         stroke-width=\"2\" points=\"{}\"/></svg>\n",
        points.join(" ")
    )
    .into_bytes()
}

fn multipart(parts: &[(&str, &str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::with_capacity(parts.iter().map(|p| p.2.len() + 160).sum());
    for (field, name, bytes) in parts {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; \
                 filename=\"{name}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}
