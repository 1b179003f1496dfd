//! `svc-bench org-access`: the authorization of a request (`authz::monorepo`: resolve
//! the label, read the role) in an org's monorepo, for a person in 50 orgs whose largest
//! org owns 1,000 monorepos, against the same check in the person's own monorepo,
//! interleaved in one run, directly against the store: as requests get it (on SQLite the
//! store's access cache holds it until the next commit) and read from the database.

use std::time::{Duration, Instant};

use svc_protocol::user::CredentialKind;
use svc_server::accounts::{self, NewUser};
use svc_server::auth::Caller;
use svc_server::authz::{self, Need};
use svc_server::store::monorepos::{self, MonorepoRow};
use svc_server::store::orgs::{self, OrgRow};
use svc_server::store::{Store, now_ms};
use svc_server::token;

use super::common::{print_load, print_machine, work_dir};

/// Orgs the person is in.
const ORGS: usize = 50;
/// Monorepos of the largest org (each other org has 10).
const BIG_ORG_MONOREPOS: usize = 1_000;
/// Other people in each org.
const ORG_PEOPLE: usize = 20;
const ROUNDS: u32 = 20_000;

pub async fn run(database_url: Option<String>) -> anyhow::Result<()> {
    print_machine();
    let dir = work_dir("org-access")?;
    let url = database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}", dir.join("bench.db").display()));
    let store = Store::open(&url).await?;
    let run = token::new_id("").to_ascii_lowercase();
    let run = &run[run.len() - 6..];

    let started = Instant::now();
    let mut tx = store.begin().await?;
    let mut people = Vec::new();
    for i in 0..=ORG_PEOPLE {
        let email = format!("bench-{run}-{i}@example.com");
        let user = accounts::create_user(&mut tx, NewUser::verified_email(&email))
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        people.push(user);
    }
    let (person, founder) = (&people[0], &people[1]);
    let now = now_ms();
    let mut big = String::new();
    for o in 0..ORGS {
        let org = OrgRow {
            login: format!("b{run}-org-{o:02}"),
            name: None,
            description: None,
            picture_url: None,
            created_at: now,
        };
        orgs::create(tx.h(), &org, &founder.id).await?;
        for p in people.iter().filter(|p| p.id != founder.id) {
            orgs::put_member(tx.h(), &org.login, &p.id, "member", None, now).await?;
        }
        let count = if o == 0 { BIG_ORG_MONOREPOS } else { 10 };
        for m in 0..count {
            let row = MonorepoRow {
                id: token::new_id("m_"),
                owner: org.login.clone(),
                name: format!("m-{m:04}"),
                kind: "monorepo".into(),
                created_at: now,
            };
            monorepos::insert(tx.h(), &row).await?;
            monorepos::put_member(tx.h(), &row.id, &founder.id, "owner", None, now).await?;
        }
        if o == 0 {
            big = org.login;
        }
    }
    let own = MonorepoRow {
        id: token::new_id("m_"),
        owner: person.login.clone(),
        name: "own".into(),
        kind: "monorepo".into(),
        created_at: now,
    };
    monorepos::insert(tx.h(), &own).await?;
    monorepos::put_member(tx.h(), &own.id, &person.id, "owner", None, now).await?;
    let credential =
        accounts::issue_credential(&mut tx, &person.id, "bench", CredentialKind::Machine, None)
            .await?;
    tx.commit().await?;
    println!("backend: {}", store.backend());
    println!(
        "set-up: the person in {ORGS} orgs of {} people each; the largest owns \
         {BIG_ORG_MONOREPOS} monorepos, the others 10 ({:.1} s)",
        ORG_PEOPLE + 2,
        started.elapsed().as_secs_f64()
    );

    let caller = Caller {
        user_id: person.id.clone(),
        login: person.login.clone(),
        credential_id: credential.id.clone(),
        credential_name: "bench".into(),
        kind: CredentialKind::Machine,
        permissions: credential.permissions.clone(),
        via_cookie: false,
        scope: None,
    };
    let org_name = format!("m-{:04}", BIG_ORG_MONOREPOS / 2);
    let check = |owner: &str, name: &str, cached: bool| {
        let (store, caller) = (&store, &caller);
        let (owner, name) = (owner.to_owned(), name.to_owned());
        async move {
            let mut conn = store.read().await.expect("read");
            let mut h = conn.h();
            if !cached {
                h.access_cache = None;
            }
            let access = authz::monorepo(h, caller, &owner, &name, Need::Write)
                .await
                .expect("access");
            assert!(access.monorepo.name == name);
        }
    };
    println!(
        "rounds: {ROUNDS} of each, interleaved, after {} warm-up rounds",
        ROUNDS / 10
    );
    for _ in 0..ROUNDS / 10 {
        check(&person.login, "own", true).await;
        check(&big, &org_name, true).await;
        check(&big, &org_name, false).await;
    }
    let (mut mine, mut theirs, mut read) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS as usize {
        // Rotate which goes first, so none always runs on a warmer cache.
        for turn in 0..3 {
            let t = Instant::now();
            match (round + turn) % 3 {
                0 => {
                    check(&person.login, "own", true).await;
                    mine.push(t.elapsed());
                }
                1 => {
                    check(&big, &org_name, true).await;
                    theirs.push(t.elapsed());
                }
                _ => {
                    check(&big, &org_name, false).await;
                    read.push(t.elapsed());
                }
            }
        }
    }
    let (mine, theirs, read) = (Timing::of(mine), Timing::of(theirs), Timing::of(read));
    println!("baseline (authz::monorepo, the person's own monorepo): {mine}");
    println!("authz::monorepo in an org's monorepo (via the org):     {theirs}");
    println!("the same, read from the database (after any commit):    {read}");
    let ratio = theirs.p50.as_secs_f64() / mine.p50.as_secs_f64();
    println!(
        "p50 ratio {ratio:.2} (goal ≤ 1.2: {}); org p50 goal < 50 µs: {}",
        if ratio <= 1.2 { "met" } else { "MISSED" },
        if theirs.p50 < Duration::from_micros(50) {
            "met"
        } else {
            "MISSED"
        }
    );
    store.close().await;
    print_load();
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

struct Timing {
    p50: Duration,
    p99: Duration,
    mean: Duration,
}

impl Timing {
    fn of(mut samples: Vec<Duration>) -> Timing {
        samples.sort();
        let n = u32::try_from(samples.len()).unwrap_or(u32::MAX).max(1);
        Timing {
            p50: samples[samples.len() / 2],
            p99: samples[samples.len() * 99 / 100],
            mean: samples.iter().sum::<Duration>() / n,
        }
    }
}

impl std::fmt::Display for Timing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        write!(
            f,
            "mean {:.1} µs, p50 {:.1} µs, p99 {:.1} µs",
            us(self.mean),
            us(self.p50),
            us(self.p99)
        )
    }
}
