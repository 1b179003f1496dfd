//! `svc-bench artifacts`: one repo with branches `feature` and `review`, then over HTTP
//! against a real `svc-server` (SQLite unless `--database-url`):
//!
//! - addArtifact of exactly 10 MiB of files (the upload limit): a 1.1 MiB Markdown
//!   document and 19 PNGs of random pixels (stored uncompressed, as random pixels would
//!   be anyway), one multipart request with its `Content-Length`, a new artifact on
//!   `feature` each time, against `sha256sum` of the same 20 files on disk plus `cp` of
//!   them on the same disk: what storing checked copies costs anyway. The two alternate
//!   which goes first; p50 of `--uploads` after an untimed one;
//! - getArtifactDocument of that document, warm, 20 images inlined: an upload holds at
//!   most 20 files counting the document, so the 20 are its 19 images, one shown twice;
//! - listBranchArtifactThreads of `review` with 100 artifacts (the most a branch holds)
//!   of 50 threads each: one answer of 5,000 threads, as the route does not page.
//!
//! The reads are p50 and p99 of `--runs` after 10 untimed, on one keep-alive client,
//! against getArtifact (one authenticated read of a small row) as the baseline.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::bail;
use futures_util::TryStreamExt;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::branches::{Client, ms, percentile};
use super::common::{Api, Lcg, Server, git, git_door, print_load, print_machine, run, work_dir};

/// All of an upload's files' bytes: the server's limit.
const TOTAL: usize = 10 * 1024 * 1024;
/// Images uploaded with the document: 20 files at most, the document one of them.
const IMAGES: usize = 19;
/// Images the document shows.
const SHOWN: usize = 20;
/// Each image's pixels (8-bit RGB): about 480 KiB as a PNG, so 19 leave the document
/// 1.1 MiB of the 10 MiB (it may have 1.5 MiB).
const WIDTH: usize = 256;
const HEIGHT: usize = 640;
/// Artifacts on `review` (the most a branch holds), and threads on each.
const ARTIFACTS: usize = 100;
const THREADS: usize = 50;
/// Comments sent at once while setting up.
const CONCURRENCY: usize = 8;
const UPLOAD_GOAL: Duration = Duration::from_millis(300);
const DOCUMENT_GOAL: Duration = Duration::from_millis(50);
const THREADS_GOAL: Duration = Duration::from_millis(30);
/// Separates the parts of an upload; random pixels hold it by chance all but never.
const BOUNDARY: &str = "svc-bench-artifacts-8d1c5e0b9a7f";

pub struct Options {
    pub uploads: usize,
    pub runs: usize,
    pub database_url: Option<String>,
}

pub async fn bench(opts: Options) -> anyhow::Result<()> {
    // The untimed upload makes one more artifact on `feature`, which holds 100.
    if !(1..ARTIFACTS).contains(&opts.uploads) || opts.runs == 0 {
        bail!("--uploads must be 1 to 99 and --runs at least 1");
    }
    print_machine();
    let dir = work_dir("artifacts")?;
    let server = Server::start(
        &dir.join("data"),
        opts.database_url.as_deref(),
        &dir.join("server.log"),
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
    let api = Api::bootstrap(&server).await?;
    let (full, url) = api.repo("bench", "app").await?;
    let work = dir.join("work");
    std::fs::create_dir_all(&work)?;
    run(git(&work).args(["init", "-q"]))?;
    std::fs::write(work.join("README"), "artifacts bench\n")?;
    run(git(&work).args(["add", "-A"]))?;
    run(git(&work).args(["commit", "-q", "-m", "first"]))?;
    run(git_door(&work, &api.token).args([
        "push",
        "-q",
        &url,
        "main",
        "main:refs/heads/feature",
        "main:refs/heads/review",
    ]))?;
    let on = format!("/v1/monorepos/{full}/repos/app/branches");

    // The files, in memory for the requests and on disk for the baseline.
    let mut rng = Lcg(3);
    let images: Vec<(String, Vec<u8>)> = (0..IMAGES)
        .map(|i| (format!("img/{i}.png"), png(&mut rng)))
        .collect();
    let image_bytes: usize = images.iter().map(|(_, b)| b.len()).sum();
    let doc = document(&mut rng, TOTAL - image_bytes);
    println!(
        "set-up: a {}-byte Markdown document and {IMAGES} PNGs of {} bytes ({WIDTH}×{HEIGHT} random RGB pixels)",
        doc.len(),
        image_bytes / IMAGES
    );
    let files = dir.join("files");
    std::fs::create_dir_all(files.join("img"))?;
    std::fs::write(files.join("report.md"), &doc)?;
    for (path, bytes) in &images {
        std::fs::write(files.join(path), bytes)?;
    }
    let paths: Vec<PathBuf> = std::iter::once("report.md")
        .chain(images.iter().map(|(p, _)| p.as_str()))
        .map(|p| files.join(p))
        .collect();
    let copies = dir.join("copies");
    std::fs::create_dir_all(&copies)?;
    let baseline = || -> anyhow::Result<Duration> {
        let start = Instant::now();
        run(Command::new("sha256sum").args(&paths))?;
        run(Command::new("cp").args(&paths).arg(&copies))?;
        Ok(start.elapsed())
    };

    let http = reqwest::Client::new();
    let upload = |branch: &str, body: Vec<u8>| {
        let request = http
            .post(format!("{}{on}/{branch}/artifacts", server.base))
            .bearer_auth(&api.token)
            .header(
                CONTENT_TYPE,
                format!("multipart/form-data; boundary={BOUNDARY}"),
            )
            .body(body);
        async move {
            let start = Instant::now();
            let r = request.send().await?;
            let status = r.status();
            let text = r.text().await?;
            let took = start.elapsed();
            if status != reqwest::StatusCode::CREATED {
                bail!("addArtifact: {status} {text}");
            }
            Ok(took)
        }
    };
    let mut request_size = 0;
    let (mut ups, mut bases) = (Vec::new(), Vec::new());
    for round in 0..=opts.uploads {
        let name = format!("report-{round}.md");
        let mut parts = vec![("file", name.as_str(), doc.as_slice())];
        parts.extend(
            images
                .iter()
                .map(|(p, b)| ("image", p.as_str(), b.as_slice())),
        );
        let body = multipart(&parts);
        request_size = body.len();
        let (up, base) = if round % 2 == 0 {
            let up = upload("feature", body).await?;
            (up, baseline()?)
        } else {
            let base = baseline()?;
            (upload("feature", body).await?, base)
        };
        // Round 0 warms the page cache and the server up.
        if round > 0 {
            ups.push(up);
            bases.push(base);
        }
    }

    let client = Client::new(&server, &api.token);
    let report = format!("{on}/feature/artifacts/report-0.md");
    let page = client
        .send(&format!("{report}/versions/1/document"))
        .await?
        .text()
        .await?;
    let inlined = page.matches("data:image/png;base64,").count();
    if inlined != SHOWN {
        bail!("the document shows {inlined} inlined images, not {SHOWN}");
    }
    let (document_times, page_size) = client
        .series(&format!("{report}/versions/1/document"), opts.runs)
        .await?;
    let (get_times, get_size) = client.series(&report, opts.runs).await?;

    // 100 small documents on `review`, then 50 threads on each, a few at a time.
    let started = Instant::now();
    for i in 0..ARTIFACTS {
        let name = format!("note-{i:03}.md");
        let text = format!("# Note {i}\n\nWhat the nightly run found.\n");
        upload("review", multipart(&[("file", &name, text.as_bytes())])).await?;
    }
    let review = format!("{on}/review");
    futures_util::stream::iter((0..ARTIFACTS * THREADS).map(Ok))
        .try_for_each_concurrent(CONCURRENCY, |k| {
            let (api, review) = (&api, &review);
            async move {
                let path = format!("{review}/artifacts/note-{:03}.md/comments", k % ARTIFACTS);
                let body = format!("Thread {k}: is this figure from the latest run?");
                api.post(&path, json!({ "body": body })).await.map(drop)
            }
        })
        .await?;
    println!(
        "set-up: {ARTIFACTS} artifacts × {THREADS} threads on review ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    let threads = format!("{review}/artifact-threads");
    let listed: Value = client.json(&threads).await?;
    let count = listed["items"].as_array().map_or(0, Vec::len);
    if count != ARTIFACTS * THREADS {
        bail!("listBranchArtifactThreads answered {count} threads");
    }
    let (thread_times, threads_size) = client.series(&threads, opts.runs).await?;
    print_load();

    let verdict = |p50: Duration, goal: Duration| if p50 < goal { "met" } else { "MISSED" };
    let (up, base) = (percentile(&ups, 50), percentile(&bases, 50));
    println!(
        "addArtifact, a document + {IMAGES} images, {TOTAL} bytes of files in a {request_size}-byte request: p50 {}, p99 {} ({} uploads), {:.1}× the baseline; goal p50 < {}: {}",
        ms(up),
        ms(percentile(&ups, 99)),
        ups.len(),
        up.as_secs_f64() / base.as_secs_f64(),
        ms(UPLOAD_GOAL),
        verdict(up, UPLOAD_GOAL)
    );
    println!(
        "baseline: sha256sum + cp of the same {} files on disk: p50 {}",
        paths.len(),
        ms(base)
    );
    let line = |what: &str, times: &[Duration], goal: Option<Duration>| {
        let p50 = percentile(times, 50);
        let verdict = goal.map_or(String::new(), |g| {
            format!("; goal p50 < {}: {}", ms(g), verdict(p50, g))
        });
        println!(
            "{what}: p50 {}, p99 {}, {} requests{verdict}",
            ms(p50),
            ms(percentile(times, 99)),
            times.len()
        );
    };
    line(
        &format!("getArtifactDocument, warm, {SHOWN} images inlined ({page_size} bytes)"),
        &document_times,
        Some(DOCUMENT_GOAL),
    );
    line(
        &format!(
            "listBranchArtifactThreads, {ARTIFACTS} artifacts × {THREADS} threads (one answer, no pages: {threads_size} bytes)"
        ),
        &thread_times,
        Some(THREADS_GOAL),
    );
    line(
        &format!("baseline: getArtifact ({get_size} bytes)"),
        &get_times,
        None,
    );
    server.stop();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A multipart/form-data body of `(field, file name, bytes)` parts.
fn multipart(parts: &[(&str, &str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::with_capacity(parts.iter().map(|p| p.2.len() + 160).sum());
    for (field, name, bytes) in parts {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n\
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

/// A Markdown report of exactly `size` bytes: a section per shown image, each a heading,
/// the image (its files in turn, the first again last) and generated prose.
fn document(rng: &mut Lcg, size: usize) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "latency",
        "the",
        "branch",
        "median",
        "of",
        "throughput",
        "regressed",
        "run",
        "improved",
        "and",
        "build",
        "cache",
    ];
    let mut doc = String::from("# Nightly report\n\n");
    for i in 0..SHOWN {
        doc.push_str(&format!(
            "## Figure {i}\n\n![figure {i}](img/{}.png)\n\n",
            i % IMAGES
        ));
        let mut words = 0;
        while doc.len() < size * (i + 1) / SHOWN {
            doc.push_str(WORDS[rng.below(WORDS.len())]);
            words += 1;
            doc.push(if words % 12 == 0 { '\n' } else { ' ' });
        }
        doc.push_str("\n\n");
    }
    doc.truncate(size);
    doc.into_bytes()
}

/// A valid PNG of random 8-bit RGB pixels. Its zlib stream is stored blocks, which any
/// decoder reads: random pixels would not compress anyway.
fn png(rng: &mut Lcg) -> Vec<u8> {
    let row = 1 + WIDTH * 3;
    let mut raw = vec![0u8; row * HEIGHT];
    for line in raw.chunks_mut(row) {
        // Byte 0 of each row is its filter: none.
        rng.fill(&mut line[1..]);
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks = raw.len().div_ceil(0xFFFF);
    for (i, block) in raw.chunks(0xFFFF).enumerate() {
        let len = u16::try_from(block.len()).unwrap_or(u16::MAX);
        zlib.push(u8::from(i + 1 == blocks));
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut header = Vec::new();
    header.extend_from_slice(&(WIDTH as u32).to_be_bytes());
    header.extend_from_slice(&(HEIGHT as u32).to_be_bytes());
    // 8 bits, RGB, deflate, adaptive filtering, not interlaced.
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", &header), (b"IDAT", &zlib), (b"IEND", &Vec::new())] {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        let crc = crc32(&png[start..]);
        png.extend_from_slice(&crc.to_be_bytes());
    }
    png
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

/// The CRC-32 PNG chunks end with (bit by bit: only a few MiB, once).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
