//! `svc release ...` and `svc deploy ...` end to end: the real `svc` against a real
//! server, files streamed both ways, an interrupted download resumed, a corrupt one
//! caught by its SHA-256.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;

struct Ann {
    cloned: svc_tests::Cloned,
    machine: Machine,
}

impl Ann {
    fn svc(&self, args: &[&str]) -> Command {
        let mut cmd = self.machine.svc(args);
        cmd.env("SVC_TOKEN", &self.cloned.token)
            .env("SVC_SERVER", &self.cloned.app.base);
        cmd
    }

    fn run(&self, args: &[&str]) -> Output {
        let args: Vec<&str> = args.iter().copied().chain(["-R", "ann/mono/app"]).collect();
        self.svc(&args).output().unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(&self, args: &[&str]) -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&self.ok(&args)).unwrap()
    }
}

/// Bytes that differ along the file, so a resumed download that skipped or repeated a
/// part would not match.
fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

fn dir(path: &Path) -> String {
    std::fs::create_dir_all(path).unwrap();
    path.to_string_lossy().into_owned()
}

#[tokio::test]
async fn releases_and_deployments_from_the_command_line() {
    let cloned = svc_tests::Cloned::new("mono", "app").await;
    let main = cloned
        .git
        .commit(&cloned.work, "first", &[("a.txt", b"a\n")]);
    cloned
        .git
        .ok(&cloned.work, &["push", "-q", "origin", "main"]);
    let ann = Ann {
        cloned,
        machine: Machine::new(),
    };
    let home = ann.cloned.git.home.path().to_owned();

    let r = ann.json(&[
        "release", "create", "v1", "--title", "One", "--notes", "First.",
    ]);
    assert_eq!(
        (r["tag"].as_str(), r["draft"].as_bool()),
        (Some("v1"), Some(false))
    );
    assert_eq!(r["commit"], main.as_str());

    let bytes = content(700_000);
    let file = home.join("tool.bin");
    std::fs::write(&file, &bytes).unwrap();
    let out = ann.ok(&["release", "upload", "v1", &file.to_string_lossy()]);
    assert!(out.contains("tool.bin"), "{out}");
    let view = ann.json(&["release", "view", "v1"]);
    assert_eq!(view["files"][0]["size"], bytes.len());

    // Whole, then resumed from a partial file, then a corrupt partial caught.
    let d1 = home.join("d1");
    ann.ok(&["release", "download", "latest", "--dir", &dir(&d1)]);
    assert_eq!(std::fs::read(d1.join("tool.bin")).unwrap(), bytes);
    let d2 = home.join("d2");
    std::fs::write(
        Path::new(&dir(&d2)).join("tool.bin.part"),
        &bytes[..300_000],
    )
    .unwrap();
    ann.ok(&[
        "release",
        "download",
        "v1",
        "tool.bin",
        "--dir",
        &d2.to_string_lossy(),
    ]);
    assert_eq!(std::fs::read(d2.join("tool.bin")).unwrap(), bytes);
    assert!(!d2.join("tool.bin.part").exists());
    let d3 = home.join("d3");
    std::fs::write(Path::new(&dir(&d3)).join("tool.bin.part"), vec![0u8; 1000]).unwrap();
    let out = ann.run(&["release", "download", "v1", "--dir", &d3.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(all_output(&out).contains("SHA-256"), "{}", all_output(&out));
    assert!(
        !d3.join("tool.bin").exists(),
        "a mismatch is not put in place"
    );

    // Drafts, publishing, notes, deployments.
    let d = ann.json(&["release", "create", "v2", "--draft"]);
    assert_eq!(d["draft"], true);
    let p = ann.json(&["release", "publish", "v2"]);
    assert_eq!(p["draft"], false);
    let list = ann.json(&["release", "list"]);
    let tags: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tag"].as_str().unwrap())
        .collect();
    assert_eq!(tags, ["v2", "v1"]);
    let notes = ann.ok(&["release", "notes", "v1"]);
    assert!(notes.contains("First."), "{notes}");
    let dep = ann.json(&["deploy", "record", "production", "--release", "v1"]);
    assert_eq!(dep["sha"], main.as_str());
    let deps = ann.json(&["deploy", "list"]);
    assert_eq!(deps["items"][0]["environment"], "production");
    let out = ann
        .svc(&[
            "repo",
            "edit",
            "ann/mono",
            "app",
            "--releases-public",
            "true",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let repo: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(repo["releases_public"], true);
    let url = ann
        .cloned
        .app
        .url("/v1/monorepos/ann/mono/repos/app/releases/latest/files/tool.bin");
    let anonymous = ann.cloned.app.client.get(&url).send().await.unwrap();
    assert_eq!(
        anonymous.status(),
        reqwest::StatusCode::NOT_FOUND,
        "v2 is the latest, without files"
    );
    let url = ann
        .cloned
        .app
        .url("/v1/monorepos/ann/mono/repos/app/releases/v1/files/tool.bin");
    let anonymous = ann.cloned.app.client.get(&url).send().await.unwrap();
    assert_eq!(anonymous.bytes().await.unwrap().as_ref(), bytes.as_slice());
    let out = ann.run(&["release", "create", "latest"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
}
