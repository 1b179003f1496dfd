//! Every answer compared with git's own, byte for byte, on the same repository.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::*;
use crate::git::door::command;
use crate::git::read::fixture::{Fixture, git_in};

/// A repository made as the server makes them, filled by pushes from a work tree.
struct Served {
    fixture: Fixture,
    bare: PathBuf,
}

impl Served {
    fn new() -> Served {
        let fixture = Fixture::new();
        let bare = fixture.dir.path().join("served.git");
        crate::git::read::Repo::init_bare(&bare).unwrap();
        Served { fixture, bare }
    }

    fn push(&self, refspecs: &[&str]) {
        let mut args = vec!["push", "-q", self.bare.to_str().unwrap()];
        args.extend_from_slice(refspecs);
        self.fixture.git(&args);
    }

    fn in_bare(&self, args: &[&str]) {
        git_in(&self.bare, args);
    }

    fn repo(&self) -> gix::Repository {
        crate::git::read::Repo::open(&self.bare)
            .unwrap()
            .shared()
            .to_thread_local()
    }
}

async fn learned_here() -> &'static Learned {
    learned(&std::env::temp_dir(), command)
        .await
        .expect("git's advertisement")
}

/// What the door's git prints for `--http-backend-info-refs`.
async fn git_info_refs(dir: &Path, receive: bool, protocol: Option<&str>) -> Vec<u8> {
    let out = command(receive, dir, protocol)
        .arg("--http-backend-info-refs")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What the door's git answers to a v2 request.
fn git_v2(dir: &Path, request: &[u8]) -> Vec<u8> {
    let mut cmd = std::process::Command::new("git");
    cmd.args([
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "uploadpack.allowFilter=true",
        "-c",
        "uploadpack.allowAnySHA1InWant=true",
        "upload-pack",
        "--stateless-rpc",
    ])
    .arg(dir)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .env("GIT_CONFIG_GLOBAL", "/dev/null")
    .env("GIT_PROTOCOL", "version=2")
    .stdin(Stdio::piped())
    .stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(request).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

fn ls_refs_request(args: &[&str]) -> Vec<u8> {
    let mut body = pkt::line(b"command=ls-refs\n");
    body.extend(pkt::line(b"agent=git/2.47.3\n"));
    body.extend(pkt::line(b"object-format=sha1\n"));
    body.extend_from_slice(b"0001");
    for arg in args {
        body.extend(pkt::line(format!("{arg}\n").as_bytes()));
    }
    body.extend_from_slice(pkt::FLUSH);
    body
}

const ARGUMENTS: &[&[&str]] = &[
    &[],
    &["peel"],
    &["symrefs"],
    &["symrefs", "peel", "unborn"],
    &[
        "peel",
        "symrefs",
        "unborn",
        "ref-prefix HEAD",
        "ref-prefix refs/heads/",
    ],
    &[
        "symrefs",
        "ref-prefix refs/tags/",
        "ref-prefix refs/heads/ma",
    ],
    &[
        "unborn",
        "symrefs",
        "ref-prefix refs/heads/",
        "ref-prefix refs/heads/main",
    ],
    &["peel", "ref-prefix refs/nothing/"],
];

/// Compares every answer with git's on the repository.
async fn same_as_git(served: &Served) {
    let learned = learned_here().await;
    let repo = served.repo();
    for (which, receive) in [
        (Advertisement::UploadPack, false),
        (Advertisement::ReceivePack, true),
    ] {
        let ours = advertisement(&repo, learned, which).expect("answered");
        let git = git_info_refs(&served.bare, receive, None).await;
        assert_eq!(
            ours.as_bstr(),
            git.as_bstr(),
            "{which:?} differs from git's"
        );
    }
    let ours = advertisement(&repo, learned, Advertisement::V2).unwrap();
    let git = git_info_refs(&served.bare, false, Some("version=2")).await;
    assert_eq!(ours.as_bstr(), git.as_bstr());
    for args in ARGUMENTS {
        let request = ls_refs_request(args);
        let ours = LsRefs::parse(&request)
            .expect("an ls-refs")
            .answer(&repo, learned)
            .expect("answered");
        let git = git_v2(&served.bare, &request);
        assert_eq!(ours.as_bstr(), git.as_bstr(), "ls-refs {args:?} differs");
    }
}

#[tokio::test]
async fn an_empty_repository_is_advertised_as_git_does() {
    let served = Served::new();
    same_as_git(&served).await;
    let learned = learned_here().await;
    let ours = advertisement(&served.repo(), learned, Advertisement::UploadPack).unwrap();
    assert!(ours.find(b"capabilities^{}\0").is_some());
    let request = ls_refs_request(&["symrefs", "unborn"]);
    let answer = LsRefs::parse(&request)
        .unwrap()
        .answer(&served.repo(), learned)
        .unwrap();
    assert_eq!(
        answer.as_bstr(),
        b"002eunborn HEAD symref-target:refs/heads/main\n0000".as_bstr()
    );
}

#[tokio::test]
async fn branches_tags_and_symrefs_are_advertised_as_git_does() {
    let mut served = Served::new();
    served.fixture.write("a.txt", "a");
    served.fixture.commit("first");
    served.fixture.git(&["tag", "light"]);
    served.fixture.git(&["tag", "-a", "-m", "annotated", "v1"]);
    served
        .fixture
        .git(&["tag", "-a", "-m", "a tag of a tag", "v1-again", "v1"]);
    served.fixture.git(&["branch", "feature/x"]);
    served.fixture.git(&["branch", "feature-y"]);
    served.fixture.write("b.txt", "b");
    served.fixture.commit("second");
    let blob = served.fixture.git(&["rev-parse", "HEAD:a.txt"]);
    served
        .fixture
        .git(&["tag", "-a", "-m", "a blob", "blob-tag", &blob]);
    served.push(&["refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"]);
    same_as_git(&served).await;

    // Packed refs (peeled there), loose ones beside them, a ref whose object is missing,
    // a symbolic ref in refs/ and one whose target is gone.
    served.in_bare(&["pack-refs", "--all"]);
    served.fixture.write("c.txt", "c");
    served.fixture.commit("third");
    served.fixture.git(&["tag", "-a", "-m", "loose", "v2"]);
    served.push(&["main:refs/heads/later", "refs/tags/v2:refs/tags/v2"]);
    served.in_bare(&["symbolic-ref", "refs/heads/alias", "refs/heads/feature/x"]);
    served.in_bare(&["symbolic-ref", "refs/heads/dangling", "refs/heads/gone"]);
    std::fs::write(
        served.bare.join("refs/heads/broken"),
        "1234567890123456789012345678901234567890\n",
    )
    .unwrap();
    same_as_git(&served).await;

    // HEAD on a branch that does not exist, then detached on an annotated tag.
    served.in_bare(&["symbolic-ref", "HEAD", "refs/heads/unborn"]);
    same_as_git(&served).await;
    let tag = git_in(&served.bare, &["rev-parse", "refs/tags/v1"]);
    std::fs::write(served.bare.join("HEAD"), tag).unwrap();
    same_as_git(&served).await;
}

#[tokio::test]
async fn many_packed_and_loose_refs_are_advertised_as_git_does() {
    let mut served = Served::new();
    served.fixture.write("a.txt", "a");
    served.fixture.commit("first");
    for i in 0..300 {
        served.fixture.git(&["branch", &format!("b/{i:03}")]);
        served
            .fixture
            .git(&["tag", "-a", "-m", "t", &format!("t{i}"), "HEAD"]);
    }
    served.push(&["refs/heads/*:refs/heads/*", "refs/tags/*:refs/tags/*"]);
    served.in_bare(&["pack-refs", "--all"]);
    served.fixture.write("b.txt", "b");
    served.fixture.commit("second");
    served.push(&["main:refs/heads/b/150", "main:refs/heads/b/150-x"]);
    same_as_git(&served).await;
}

#[tokio::test]
async fn a_repository_configured_otherwise_is_left_to_git() {
    let served = Served::new();
    let learned = learned_here().await;
    served.in_bare(&["config", "transfer.hideRefs", "refs/heads/secret"]);
    assert_eq!(
        advertisement(&served.repo(), learned, Advertisement::UploadPack),
        None
    );
    let request = ls_refs_request(&[]);
    assert_eq!(
        LsRefs::parse(&request)
            .unwrap()
            .answer(&served.repo(), learned),
        None
    );
}

#[test]
fn only_a_plain_ls_refs_is_taken() {
    assert!(LsRefs::parse(&ls_refs_request(&["peel", "ref-prefix refs/"])).is_some());
    // A fetch, an unknown argument, a capability git would refuse, a cut body.
    let mut fetch = pkt::line(b"command=fetch\n");
    fetch.extend_from_slice(b"00010000");
    assert_eq!(LsRefs::parse(&fetch), None);
    assert_eq!(LsRefs::parse(&ls_refs_request(&["exclude-bogus"])), None);
    let mut odd = pkt::line(b"command=ls-refs\n");
    odd.extend(pkt::line(b"object-format=sha256\n"));
    odd.extend_from_slice(b"00010000");
    assert_eq!(LsRefs::parse(&odd), None);
    let whole = ls_refs_request(&["peel"]);
    assert_eq!(LsRefs::parse(&whole[..whole.len() - 2]), None);
    assert_eq!(LsRefs::parse(b""), None);
}

#[test]
fn the_protocol_version_is_the_highest_git_knows() {
    assert_eq!(protocol_version(None), 0);
    assert_eq!(protocol_version(Some("version=2")), 2);
    assert_eq!(protocol_version(Some("version=1:version=2")), 2);
    assert_eq!(protocol_version(Some("version=2:version=1")), 2);
    assert_eq!(protocol_version(Some("version=3")), 0);
    assert_eq!(protocol_version(Some("foo=bar")), 0);
}
