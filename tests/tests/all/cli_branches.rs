//! `svc branch|review|status|checks` end to end: a sealed machine with an svc clone, a real
//! server, real git pushing through the door; diffs checked against git's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::git::{Git, all_output};
use svc_tests::machine::Machine;

/// A machine that cloned `ann/mono` (repo `web`), with `ann`'s token in its environment.
struct World {
    app: TestApp,
    ann: String,
    seed: Git,
    m: Machine,
}

impl World {
    async fn start() -> World {
        let app = TestApp::start().await;
        let ann = app
            .bootstrap(json!({"email": "ann@example.com"}))
            .await
            .credential
            .token;
        app.monorepo(&ann, json!({"name": "mono"})).await;
        let url = app.repo(&ann, "ann/mono", "web").await["clone_url"]
            .as_str()
            .unwrap()
            .to_owned();
        let seed = Git::new(&ann);
        seed.ok(seed.home.path(), &["clone", "-q", &url, "web"]);
        seed.commit(
            &seed.path("web"),
            "main",
            &[
                ("a/one.txt", b"1\n2\n3\n4\n5\n"),
                ("b.txt", b"keep\n"),
                ("c.txt", b"gone\n"),
            ],
        );
        seed.ok(&seed.path("web"), &["push", "-q", "origin", "main"]);
        let w = World {
            app,
            ann,
            seed,
            m: Machine::new(),
        };
        w.ok(w.m.home.path(), &["clone", "ann/mono"]);
        w
    }

    fn web(&self) -> PathBuf {
        self.m.home.path().join("mono/web")
    }

    /// `svc` in `dir`, signed in through `SVC_TOKEN`.
    fn svc(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = self.m.svc(args);
        cmd.current_dir(dir)
            .env("SVC_TOKEN", &self.ann)
            .env("SVC_SERVER", &self.app.base);
        cmd
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Output {
        self.svc(dir, args).output().unwrap()
    }

    fn ok(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.run(dir, args);
        assert!(out.status.success(), "svc {args:?}: {}", all_output(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, dir: &Path, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        serde_json::from_str(&self.ok(dir, &args)).unwrap()
    }

    /// Fails with exit status 1; answers stderr.
    fn refused(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.run(dir, args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "svc {args:?}: {}",
            all_output(&out)
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(!err.contains("panicked"), "{err}");
        err
    }

    /// The machine's git, which gets its credential from `svc git-credential` (set up by
    /// `svc clone`) and so from `SVC_TOKEN`.
    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let home = self.m.home.path();
        let out = Command::new("git")
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("SVC_CONFIG_DIR", self.m.config_dir())
            .env("SVC_TOKEN", &self.ann)
            .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
            .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", all_output(&out));
        String::from_utf8(out.stdout).unwrap()
    }
}

#[tokio::test]
async fn branch_review_checks_diff_and_merge_from_a_clone() {
    let w = World::start().await;
    let web = w.web();
    w.git(&web, &["checkout", "-q", "-b", "feature/x"]);
    std::fs::write(web.join("a/one.txt"), "1\n2\nthree\n4\n5\n").unwrap();
    std::fs::remove_file(web.join("c.txt")).unwrap();
    std::fs::write(web.join("d.bin"), b"\0\x01\x02\x03").unwrap();
    w.git(&web, &["add", "-A"]);
    w.git(&web, &["commit", "-q", "-m", "Change things"]);
    w.git(&web, &["push", "-q", "-u", "origin", "feature/x"]);
    let head = w.git(&web, &["rev-parse", "HEAD"]).trim().to_owned();
    let short = &head[..7];

    // The repo and the branch come from the clone and the checkout.
    let list = w.json(&web, &["branch", "list"]);
    assert_eq!(list["default_branch"], "main");
    let row = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "feature/x")
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(row["head"], head.as_str());

    let branch = w.json(&web, &["branch", "view"]);
    assert_eq!(branch["name"], "feature/x");
    assert_eq!(branch["head"], head.as_str());
    assert_eq!(branch["state"], "open");
    assert_eq!(branch["author"], "ann");
    assert_eq!(
        (branch["ahead"].as_u64(), branch["behind"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(branch["mergeable"], "clean");
    let view = w.ok(&web, &["branch", "view"]);
    for part in [
        "feature/x  open\n",
        &format!("Head: {head} (1 ahead, 0 behind main)\n"),
        "Mergeable: clean\n",
        "Author: ann",
    ] {
        assert!(view.contains(part), "{part:?} in {view}");
    }

    // The list: a header and aligned columns, RFC 3339 off a terminal, alone on stdout
    // (a pipe's first line is the header); main's head is said on stderr.
    let list = w.json(&web, &["branch", "list"]);
    let pushed = list["items"][0]["pushed_at"].as_str().unwrap();
    assert!(pushed.ends_with('Z'), "{pushed}");
    assert_eq!(list["items"][0]["checks"]["build_state"], "not_built");
    let main = list["default_head"].as_str().unwrap();
    let out = w.run(&web, &["branch", "list"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "BRANCH     STATE  COMMITS            MERGEABLE  CHECKS     AUTHOR  PUSHED                TITLE\n\
             feature/x  open   ahead 1, behind 0  clean      not built  ann     {}Z\n",
            &pushed[..19]
        )
    );
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("main is at {}\n", &main[..7])
    );

    // The diff is git's, byte for byte; plain when not on a terminal, and never paged.
    let git_diff = w.git(&web, &["diff", "--patience", "origin/main...HEAD"]);
    let diff = w.ok(&web, &["branch", "diff"]);
    assert_eq!(diff, git_diff);
    assert!(diff.contains("Binary files /dev/null and b/d.bin differ\n"));
    assert!(!diff.contains('\x1b'));
    let colored = w.ok(&web, &["branch", "diff", "--color", "always"]);
    assert!(colored.contains("\x1b[32m+three\x1b[m\n"), "{colored}");
    assert!(colored.contains("\x1b[31m-3\x1b[m\n"), "{colored}");
    let paged = w
        .svc(&web, &["branch", "diff"])
        .env("PAGER", "false")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(paged.stdout).unwrap(), git_diff);
    let stat = w.ok(&web, &["branch", "diff", "--stat"]);
    let git_stat = w.git(&web, &["diff", "--stat", "origin/main...HEAD"]);
    assert_eq!(stat.lines().count(), git_stat.lines().count(), "{stat}");
    for (ours, theirs) in stat.lines().zip(git_stat.lines()) {
        // git adds the sizes of binary files, which the API does not carry.
        assert!(theirs.starts_with(ours), "{ours:?} vs git's {theirs:?}");
    }
    assert!(stat.contains(" d.bin     | Bin\n"), "{stat}");
    let json = w.json(&web, &["branch", "diff"]);
    let paths: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a/one.txt", "c.txt", "d.bin"]);
    assert_eq!(json["head"], head.as_str());

    // A failing status fails the checks (exit 1) and the merge gate.
    let posted = w.ok(
        &web,
        &[
            "checks",
            "post",
            "HEAD",
            "ci/test",
            "failure",
            "--url",
            "https://ci.example/1",
            "--description",
            "2 failed",
        ],
    );
    assert_eq!(posted.trim(), format!("Posted ci/test failure on {short}"));
    let out = w.run(&web, &["checks"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.starts_with(&format!("Checks of {short}: failure\n")),
        "{said}"
    );
    assert!(
        said.contains("  failure  ci/test: 2 failed  https://ci.example/1\n"),
        "{said}"
    );
    let checks: Value = serde_json::from_slice(&w.run(&web, &["checks", "--json"]).stdout).unwrap();
    assert_eq!(checks["state"], "failure");
    let err = w.refused(&web, &["branch", "merge"]);
    assert!(
        err.contains("feature/x is not merged: checks are not green")
            && err.contains("ci/test failure")
            && err.contains("--force"),
        "{err}"
    );

    // Reviews are not a gate, and show in the view.
    let reviewed = w.ok(&web, &["review", "--approve", "-m", "ship it"]);
    assert_eq!(
        reviewed.trim(),
        format!("Reviewed feature/x at {short}: approved")
    );
    let err = w.refused(&web, &["review", "--comment"]);
    assert!(err.contains("-m"), "{err}");
    let reviews = w.json(&web, &["review", "feature/x", "--list"]);
    assert_eq!(reviews["items"][0]["state"], "approve");
    assert_eq!(reviews["items"][0]["author"], "ann");
    assert_eq!(reviews["items"][0]["body"], "ship it");
    assert!(
        w.ok(&web, &["branch", "view"])
            .contains(&format!("  approved  ann  {short}  "))
    );

    // --force merges past the red check, recording the agent from SVC_AGENT.
    let out = w
        .svc(&web, &["branch", "merge", "--force"])
        .env("SVC_AGENT", "bot")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let merged = String::from_utf8(out.stdout).unwrap();
    let main = w.git(&web, &["ls-remote", "origin", "refs/heads/main"]);
    let main = main.split('\t').next().unwrap();
    assert_eq!(
        merged.trim(),
        format!(
            "Merged feature/x into main as {main}, forced past its checks (by ann through agent bot)"
        )
    );
    let branch = w.json(&web, &["branch", "view", "feature/x"]);
    assert_eq!(branch["state"], "merged");
    assert_eq!(branch["merge_sha"], main);
    assert_eq!(branch["merged_agent"], "bot");
    let view = w.ok(&web, &["branch", "view"]);
    assert!(
        view.contains("Merged by ann at ")
            && view.contains(&format!(" as {main} (agent bot), forced")),
        "{view}"
    );

    // A green status makes `svc checks` succeed.
    w.ok(&web, &["checks", "post", &head, "ci/test", "success"]);
    let out = w.run(&web, &["checks", &head]);
    assert!(out.status.success(), "{}", all_output(&out));

    // Conflicts refuse even a forced merge, naming the paths.
    let seed_web = w.seed.path("web");
    w.seed.ok(&seed_web, &["checkout", "-q", "-b", "clash"]);
    w.seed
        .commit(&seed_web, "clash", &[("a/one.txt", b"1\n2\nTHREE\n4\n5\n")]);
    w.seed.ok(&seed_web, &["push", "-q", "origin", "clash"]);
    let err = w.refused(&web, &["branch", "merge", "clash", "--force"]);
    assert!(
        err.contains("clash is not merged: it conflicts with main in a/one.txt"),
        "{err}"
    );

    // Branches made, edited and deleted on the server.
    let home = w.m.home.path();
    let r = ["-R", "ann/mono/web"];
    let made = w.ok(
        home,
        &[&["branch", "create", "topic"][..], &r, &["--title", "T"]].concat(),
    );
    assert_eq!(made.trim(), format!("Created branch topic at {main}"));
    // Made at main, it has nothing to merge: refused, forced or not, saying so.
    for force in [&[][..], &["--force"]] {
        let err = w.refused(
            home,
            &[&["branch", "merge", "topic"][..], &r, force].concat(),
        );
        assert!(
            err.contains("topic is not merged: main has every commit of it already, so there is nothing to merge")
                && err.contains("hint: commit to the branch and push first"),
            "{err}"
        );
    }
    let main_now = w.git(&web, &["ls-remote", "origin", "refs/heads/main"]);
    assert!(main_now.starts_with(main), "{main_now}");
    let edited = w.json(
        home,
        &[&["branch", "edit", "topic", "--title", "New"][..], &r].concat(),
    );
    assert_eq!(edited["title"], "New");
    let cleared = w.json(
        home,
        &[&["branch", "edit", "topic", "--title", ""][..], &r].concat(),
    );
    assert_eq!(cleared["title"], Value::Null);
    assert_eq!(
        w.ok(
            home,
            &[&["branch", "delete", "topic", "--yes"][..], &r].concat()
        )
        .trim(),
        "Deleted branch topic"
    );
    let list = w.json(home, &[&["branch", "list"][..], &r].concat());
    assert!(!list.to_string().contains("\"topic\""), "{list}");
}

#[tokio::test]
async fn which_repo_a_command_is_about() {
    let w = World::start().await;
    let home = w.m.home.path();
    let err = w.refused(home, &["branch", "list"]);
    assert!(
        err.contains("not in an svc clone") && err.contains("-R"),
        "{err}"
    );
    let err = w.refused(&home.join("mono"), &["branch", "list"]);
    assert!(err.contains("in none of its repos"), "{err}");
    let err = w.refused(home, &["branch", "list", "-R", "ann/mono"]);
    assert!(
        err.contains("ann/mono is a monorepo") && err.contains("ann/mono/<repo>"),
        "{err}"
    );
    let err = w.refused(home, &["branch", "list", "-R", "ann"]);
    assert!(err.contains("is not <owner>/<monorepo>/<repo>"), "{err}");

    // A folder deep in a repo of the clone is that repo.
    let deep = w.web().join("a");
    assert_eq!(w.json(&deep, &["branch", "list"])["default_branch"], "main");

    // A plain repo is <owner>/<repo>.
    w.app
        .monorepo(&w.ann, json!({"name": "tool", "kind": "repo"}))
        .await;
    w.seed.ok(
        w.seed.home.path(),
        &["clone", "-q", &w.app.url("/ann/tool.git"), "tool"],
    );
    let tool = w.seed.path("tool");
    w.seed.commit(&tool, "t", &[("t.txt", b"t\n")]);
    w.seed.ok(&tool, &["push", "-q", "origin", "main"]);
    w.seed.ok(&tool, &["checkout", "-q", "-b", "fix"]);
    w.seed.commit(&tool, "fix", &[("t.txt", b"fixed\n")]);
    w.seed.ok(&tool, &["push", "-q", "origin", "fix"]);
    let list = w.json(home, &["branch", "list", "-R", "ann/tool"]);
    assert_eq!(list["items"][0]["name"], "fix");
    let diff = w.ok(home, &["branch", "diff", "fix", "-R", "ann/tool"]);
    assert!(diff.contains("-t\n+fixed\n"), "{diff}");

    // A repo by its path as well as by its name.
    w.app.repo(&w.ann, "ann/mono", "services/api").await;
    for r in [
        "ann/mono/services/api",
        "ann/mono/services/api/",
        "ann/mono/services-api",
    ] {
        let list = w.json(home, &["branch", "list", "-R", r]);
        assert_eq!(list["default_branch"], "main", "{r}: {list}");
    }
    let err = w.refused(home, &["branch", "list", "-R", "ann/mono/services/apx"]);
    assert!(
        err.contains("ann/mono has no repo at services/apx") && err.contains("svc repo list"),
        "{err}"
    );
    // A name or path that is part of a repo's finds it.
    let err = w.refused(home, &["branch", "list", "-R", "ann/mono/apps/api"]);
    assert!(
        err.contains("ann/mono has no repo at apps/api; did you mean ann/mono/services/api?"),
        "{err}"
    );
    let err = w.refused(home, &["branch", "list", "-R", "ann/mono/api"]);
    assert_eq!(
        err.trim(),
        "svc: repo ann/mono/api not found; did you mean ann/mono/services-api?"
    );
}

/// The server's 404 names what was not found and suggests near names the caller may
/// see; the CLI shows it as it is.
#[tokio::test]
async fn not_found_says_what_and_suggests_near_names() {
    let w = World::start().await;
    let home = w.m.home.path();
    let web = w.seed.path("web");
    w.seed.ok(&web, &["checkout", "-q", "-b", "feature"]);
    w.seed.commit(&web, "f", &[("f.txt", b"f\n")]);
    w.seed.ok(&web, &["push", "-q", "origin", "feature"]);

    let err = w.refused(home, &["branch", "list", "-R", "ann/mnoo/web"]);
    assert_eq!(
        err.trim(),
        "svc: monorepo ann/mnoo not found; did you mean ann/mono?"
    );
    let err = w.refused(home, &["branch", "list", "-R", "ann/mono/wbe"]);
    assert_eq!(
        err.trim(),
        "svc: repo ann/mono/wbe not found; did you mean ann/mono/web?"
    );
    let err = w.refused(home, &["branch", "view", "featuer", "-R", "ann/mono/web"]);
    assert_eq!(
        err.trim(),
        "svc: branch featuer not found; did you mean feature?"
    );
    let err = w.refused(home, &["branch", "view", "zzzzzzzz", "-R", "ann/mono/web"]);
    assert_eq!(err.trim(), "svc: branch zzzzzzzz not found");

    // An outsider learns nothing: ann's hidden monorepo answers as a missing name does,
    // and is never offered, even for a near miss; only bob's own names are.
    let bob = w
        .app
        .bootstrap(json!({"email": "bob@example.com"}))
        .await
        .credential
        .token;
    w.app.monorepo(&bob, json!({"name": "bits"})).await;
    let error_of = |path: &'static str| {
        let (app, bob) = (&w.app, &bob);
        async move {
            let r = app
                .as_user(reqwest::Method::GET, path, bob)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), reqwest::StatusCode::NOT_FOUND, "{path}");
            r.json::<Value>().await.unwrap()
        }
    };
    let hidden = error_of("/v1/monorepos/ann/mono").await;
    let missing = error_of("/v1/monorepos/ann/mona").await;
    assert_eq!(
        hidden,
        json!({"error": {"code": "not_found", "message": "monorepo ann/mono not found"}})
    );
    assert_eq!(
        missing,
        json!({"error": {"code": "not_found", "message": "monorepo ann/mona not found"}})
    );
    let near_hidden = error_of("/v1/monorepos/ann/mnoo/repos/web/branches").await;
    assert_eq!(
        near_hidden["error"]["message"],
        "monorepo ann/mnoo not found"
    );
    let own = error_of("/v1/monorepos/bob/bist").await;
    assert_eq!(
        own["error"]["message"],
        "monorepo bob/bist not found; did you mean bob/bits?"
    );
}

/// `feature/x` beside `feature` cannot exist in git: refused naming the clash, exit 1.
#[tokio::test]
async fn a_branch_that_clashes_with_another_is_refused_clearly() {
    let w = World::start().await;
    let web = w.web();
    w.ok(&web, &["branch", "create", "feature"]);
    let err = w.refused(&web, &["branch", "create", "feature/x"]);
    assert_eq!(
        err.lines().count(),
        1,
        "one line, not an internal error: {err}"
    );
    assert!(
        err.contains("feature/x clashes with the existing branch feature"),
        "{err}"
    );
    w.ok(&web, &["branch", "create", "topic/x"]);
    let out = w.run(&web, &["branch", "create", "topic", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "branch_exists");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("topic clashes with the existing branch topic/x"),
        "{err}"
    );
}
