//! `svc-bench issues`: a monorepo with 100,000 issues of 30 generated words each (one in
//! ten labelled `bug`), then over HTTP against a real `svc-server` on the same store:
//! a 3-word search with a prefix against a `LIKE '%word%'` scan of the same rows (in the
//! same run), the first page of listIssues with a label filter, and createIssue.

use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::json;
use svc_protocol::user::CredentialKind;
use svc_server::accounts::{self, NewUser};
use svc_server::search;
use svc_server::store::issues::{self, IssueRow};
use svc_server::store::monorepos::{self, MonorepoRow};
use svc_server::store::{Db, Store, labels, now_ms};
use svc_server::token;

use super::common::{Server, print_load, print_machine, work_dir};

const ISSUES: usize = 100_000;
const WORDS: usize = 30;
/// Distinct words the text is drawn from.
const VOCABULARY: usize = 5_000;
const BATCH: usize = 5_000;

/// A small deterministic generator, so runs and stores see the same text.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap_or_default() % n
    }
}

/// Word `i` of the vocabulary: syllables, 2 to 4 of them.
fn word(i: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "de", "po", "gu", "fa", "zen", "tor",
        "bil", "mar",
    ];
    let mut w = String::new();
    let mut n = i;
    for _ in 0..2 + i % 3 {
        w.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    w.push_str(&(i % 7).to_string());
    w
}

fn text(rng: &mut Lcg, words: usize) -> Vec<String> {
    (0..words).map(|_| word(rng.next(VOCABULARY))).collect()
}

fn p50(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (
        samples[samples.len() / 2],
        samples[samples.len() * 99 / 100],
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

pub async fn run(database_url: Option<String>) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("issues")?;
    let url = database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.join("bench.db").display()));
    let store = Store::open(&url).await?;
    println!("backend: {}", store.backend());
    let started = Instant::now();
    let mut tx = store.begin().await?;
    let user = accounts::create_user(&mut tx, NewUser::verified_email("bench@example.com"))
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let monorepo = MonorepoRow {
        id: token::new_id("m_"),
        owner: user.login.clone(),
        name: "issues".into(),
        kind: "monorepo".into(),
        created_at: now_ms(),
    };
    monorepos::insert(tx.h(), &monorepo).await?;
    monorepos::put_member(tx.h(), &monorepo.id, &user.id, "owner", None, now_ms()).await?;
    let credential =
        accounts::issue_credential(&mut tx, &user.id, "bench", CredentialKind::Machine, None)
            .await?;
    let bug = labels::by_name(tx.h(), &monorepo.id, "bug")
        .await?
        .context("no bug label")?
        .id;
    tx.commit().await?;
    let mut rng = Lcg(42);
    let mut sample_texts = Vec::new();
    for batch in 0..ISSUES / BATCH {
        let mut tx = store.begin().await?;
        for i in 0..BATCH {
            let words = text(&mut rng, WORDS);
            let title = words[..6].join(" ");
            let body = words[6..].join(" ");
            if i == 0 {
                sample_texts.push(words);
            }
            let number = issues::next_number(tx.h(), &monorepo.id).await?;
            let now = now_ms();
            let mut row = IssueRow {
                id: 0,
                monorepo_id: monorepo.id.clone(),
                number,
                title,
                body,
                body_version: 1,
                state: if number % 4 == 0 { "closed" } else { "open" }.into(),
                state_reason: None,
                author: user.login.clone(),
                project: None,
                comments: 0,
                created_at: now,
                updated_at: now,
                closed_at: None,
            };
            row.id = issues::insert(tx.h(), &row).await?;
            issues::index(tx.h(), row.id, &row.title, &row.body).await?;
            if (batch * BATCH + i).is_multiple_of(10) {
                issues::add_label(tx.h(), row.id, bug).await?;
            }
        }
        tx.commit().await?;
    }
    println!(
        "set-up: {ISSUES} issues of {WORDS} words from {VOCABULARY} ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    if let Some(pool) = store.postgres() {
        sqlx::query("ANALYZE").execute(pool).await?;
    }

    let server = Server::start(&dir, Some(&url), &dir.join("server.log")).await?;
    let client = reqwest::Client::new();
    let base = format!("{}/v1/monorepos/{}/issues", server.base, monorepo.label());
    let get = |query: String| {
        let request = client
            .get(format!("{base}?{query}"))
            .bearer_auth(&credential.token);
        async move {
            let t = Instant::now();
            let r = request.send().await?;
            anyhow::ensure!(r.status().is_success(), "{}", r.status());
            let body: serde_json::Value = r.json().await?;
            Ok::<_, anyhow::Error>((t.elapsed(), body))
        }
    };

    // Three words of one issue, the last cut to a prefix.
    let queries: Vec<(String, [String; 3])> = sample_texts
        .iter()
        .cycle()
        .take(100)
        .enumerate()
        .map(|(i, words)| {
            let (a, b, c) = (&words[i % 20], &words[(i + 3) % 20], &words[(i + 7) % 20]);
            let prefix = &c[..c.len().min(4)];
            (
                format!("{a} {b} {prefix}"),
                [a.clone(), b.clone(), prefix.to_owned()],
            )
        })
        .collect();
    let mut found = 0;
    let mut fts = Vec::new();
    for (q, _) in &queries {
        let (took, body) = get(format!("state=all&q={}", urlencode(q))).await?;
        found += body["items"].as_array().map_or(0, Vec::len);
        fts.push(took);
    }
    let mut scans = Vec::new();
    for (_, words) in queries.iter().take(10) {
        let t = Instant::now();
        let like = |w: &str| format!("%{}%", search::fold(w));
        let sql = "SELECT COUNT(*) FROM issues WHERE monorepo_id = $1
                   AND LOWER(title || ' ' || body) LIKE $2 AND LOWER(title || ' ' || body) LIKE $3
                   AND LOWER(title || ' ' || body) LIKE $4";
        let mut conn = store.read().await?;
        let (a, b, c) = (like(&words[0]), like(&words[1]), like(&words[2]));
        let n: i64 = match conn.h().db {
            Db::Sqlite(conn) => {
                sqlx::query_scalar(sql)
                    .bind(&monorepo.id)
                    .bind(&a)
                    .bind(&b)
                    .bind(&c)
                    .fetch_one(conn)
                    .await?
            }
            Db::Postgres(conn) => {
                sqlx::query_scalar(sql)
                    .bind(&monorepo.id)
                    .bind(&a)
                    .bind(&b)
                    .bind(&c)
                    .fetch_one(conn)
                    .await?
            }
        };
        anyhow::ensure!(n > 0, "the scan found nothing");
        scans.push(t.elapsed());
    }
    let (fts50, fts99) = p50(fts);
    let (scan50, _) = p50(scans);
    println!(
        "search, 3 words with a prefix, over HTTP (first page of 30): p50 {:.2} ms, p99 {:.2} ms ({found} rows over 100 queries); goal p50 < 20 ms: {}",
        ms(fts50),
        ms(fts99),
        if fts50 < Duration::from_millis(20) {
            "met"
        } else {
            "MISSED"
        }
    );
    println!(
        "baseline: LIKE '%word%' scan of the same rows, in the store: p50 {:.2} ms",
        ms(scan50)
    );

    let mut listed = Vec::new();
    for _ in 0..100 {
        listed.push(get("labels=bug".into()).await?.0);
    }
    let (list50, list99) = p50(listed);
    println!(
        "listIssues first page with labels=bug, over HTTP: p50 {:.2} ms, p99 {:.2} ms; goal p50 < 10 ms: {}",
        ms(list50),
        ms(list99),
        if list50 < Duration::from_millis(10) {
            "met"
        } else {
            "MISSED"
        }
    );

    let mut created = Vec::new();
    let mut rng = Lcg(7);
    for _ in 0..200 {
        let words = text(&mut rng, WORDS);
        let request = client
            .post(&base)
            .bearer_auth(&credential.token)
            .json(&json!({"title": words[..6].join(" "), "body": words[6..].join(" "), "labels": ["bug"]}));
        let t = Instant::now();
        let r = request.send().await?;
        anyhow::ensure!(r.status().as_u16() == 201, "{}", r.status());
        created.push(t.elapsed());
    }
    let (create50, create99) = p50(created);
    println!(
        "createIssue over HTTP: p50 {:.2} ms, p99 {:.2} ms; goal p50 < 5 ms (SQLite): {}",
        ms(create50),
        ms(create99),
        if create50 < Duration::from_millis(5) {
            "met"
        } else {
            "MISSED"
        }
    );
    server.stop();
    store.close().await;
    print_load();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
