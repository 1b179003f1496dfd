//! Issues and labels through the API: numbering, updates as timeline items and one event,
//! comments, reactions, the timeline, idempotent creates, search, labels.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use svc_tests::{TestApp, expect_error, expect_json};

const M: &str = "/v1/monorepos/ann/mono";

/// ann owns `ann/mono` (with repo `api`), bob is a member, eve an outsider.
struct World {
    app: TestApp,
    ann: String,
    bob: String,
    eve: String,
}

async fn world() -> World {
    let app = TestApp::start().await;
    let mut tokens = Vec::new();
    for who in ["ann", "bob", "eve"] {
        let user = app
            .bootstrap(json!({"email": format!("{who}@example.com")}))
            .await;
        tokens.push(user.credential.token);
    }
    let [ann, bob, eve] = <[String; 3]>::try_from(tokens).unwrap();
    app.monorepo(&ann, json!({"name": "mono"})).await;
    app.repo(&ann, "ann/mono", "api").await;
    let r = app
        .as_user(Method::PUT, &format!("{M}/members/bob"), &ann)
        .json(&json!({"role": "member"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    World { app, ann, bob, eve }
}

impl World {
    async fn send(&self, method: Method, path: &str, token: &str, body: Option<Value>) -> Response {
        let mut r = self.app.as_user(method, &format!("{M}{path}"), token);
        if let Some(body) = body {
            r = r.json(&body);
        }
        r.send().await.unwrap()
    }

    async fn create(&self, token: &str, body: Value) -> Value {
        let r = self.send(Method::POST, "/issues", token, Some(body)).await;
        expect_json(r, StatusCode::CREATED).await
    }

    async fn update(&self, token: &str, number: i64, body: Value) -> Value {
        let r = self
            .send(
                Method::PATCH,
                &format!("/issues/{number}"),
                token,
                Some(body),
            )
            .await;
        expect_json(r, StatusCode::OK).await
    }

    async fn get(&self, token: &str, path: &str) -> Value {
        self.app.get_json(token, &format!("{M}{path}")).await
    }

    /// The `issue.*` and `label.*` events so far, as (kind, event).
    async fn events(&self) -> Vec<(String, Value)> {
        let page = self.get(&self.ann, "/events?topics=issues&limit=500").await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["kind"].as_str().unwrap().to_owned(), e.clone()))
            .collect()
    }

    async fn numbers(&self, query: &str) -> Vec<i64> {
        let page = self.get(&self.ann, &format!("/issues?{query}")).await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["number"].as_i64().unwrap())
            .collect()
    }
}

fn kinds(timeline: &Value) -> Vec<&str> {
    timeline["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_new_monorepo_starts_with_four_labels() {
    let w = world().await;
    let labels = w.get(&w.bob, "/labels").await;
    let rows: Vec<(&str, &str)> = labels["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["name"].as_str().unwrap(), l["color"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            ("bug", "orange"),
            ("documentation", "teal"),
            ("enhancement", "blue"),
            ("question", "purple")
        ]
    );
}

#[tokio::test]
async fn issues_are_numbered_from_one_and_read_back_whole() {
    let w = world().await;
    let first = w
        .create(
            &w.bob,
            json!({"title": "Crash on start", "body": "It crashes.", "labels": ["bug"],
                   "assignees": ["ann"], "project": "api", "link": [{"repo": "api", "branch": "fix"}]}),
        )
        .await;
    assert_eq!(first["number"], 1);
    assert_eq!(first["state"], "open");
    assert_eq!(first["author"], "bob");
    assert_eq!(first["labels"], json!(["bug"]));
    assert_eq!(first["assignees"], json!(["ann"]));
    assert_eq!(first["project"], "api");
    assert_eq!(first["body_version"], 1);
    assert_eq!(first["links"], json!([{"repo": "api", "branch": "fix"}]));
    assert_eq!(first["participants"], json!(["ann", "bob"]));
    assert_eq!(first["reactions"], json!([]));
    let second = w.create(&w.ann, json!({"title": "Second"})).await;
    assert_eq!(second["number"], 2);
    let r = w.send(Method::GET, "/issues/1", &w.eve, None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = w.send(Method::GET, "/issues/9", &w.ann, None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = w
        .send(
            Method::POST,
            "/issues",
            &w.ann,
            Some(json!({"title": "x", "labels": ["nope"]})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let r = w
        .send(
            Method::POST,
            "/issues",
            &w.ann,
            Some(json!({"title": "x", "assignees": ["eve"]})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        w.events()
            .await
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        ["issue.opened", "issue.opened"]
    );
}

#[tokio::test]
async fn repo_topics_carry_an_issues_project_and_linked_repos() {
    let w = world().await;
    w.app.repo(&w.ann, "ann/mono", "web").await;
    w.create(
        &w.bob,
        json!({"title": "Both", "project": "api", "link": [{"repo": "web", "branch": "fix"}]}),
    )
    .await;
    w.create(&w.bob, json!({"title": "Api only", "project": "api"}))
        .await;
    w.update(
        &w.ann,
        2,
        json!({"links": {"add": [{"repo": "web", "branch": "other"}]}}),
    )
    .await;
    let w = &w;
    let of = |topic: &'static str| async move {
        let page = w.get(&w.ann, &format!("/events?topics={topic}")).await;
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["collection"] == "issues")
            .map(|e| {
                (
                    e["kind"].as_str().unwrap().to_owned(),
                    e["number"].as_i64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let opened = |n| ("issue.opened".to_owned(), n);
    let updated = |n| ("issue.updated".to_owned(), n);
    assert_eq!(of("repo:api").await, [opened(1), opened(2), updated(2)]);
    assert_eq!(of("repo:web").await, [opened(1), updated(2)]);
    assert_eq!(of("repo:we").await, []);
}

#[tokio::test]
async fn fifty_concurrent_creates_get_fifty_numbers() {
    let w = world().await;
    let creates = (0..50).map(|i| {
        let r = w
            .app
            .as_user(Method::POST, &format!("{M}/issues"), &w.bob)
            .json(&json!({"title": format!("issue {i}")}));
        async move { r.send().await.unwrap() }
    });
    let mut numbers = Vec::new();
    for r in futures_util::future::join_all(creates).await {
        let issue: Value = expect_json(r, StatusCode::CREATED).await;
        numbers.push(issue["number"].as_i64().unwrap());
    }
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=50).collect::<Vec<_>>());
}

#[tokio::test]
async fn an_update_is_items_for_each_change_and_one_event() {
    let w = world().await;
    w.create(&w.bob, json!({"title": "Old", "body": "text"}))
        .await;
    let before = w.events().await.len();
    let issue = w
        .update(
            &w.ann,
            1,
            json!({"title": "New", "body": "better text", "base_version": 1, "state": "closed",
                   "labels": {"add": ["bug", "question"]}, "assignees": {"add": ["bob"]}}),
        )
        .await;
    assert_eq!(issue["title"], "New");
    assert_eq!(issue["state"], "closed");
    assert_eq!(issue["state_reason"], "completed");
    assert_eq!(issue["body_version"], 2);
    assert_eq!(issue["labels"], json!(["bug", "question"]));
    let timeline = w.get(&w.bob, "/issues/1/timeline").await;
    assert_eq!(
        kinds(&timeline),
        [
            "renamed", "edited", "closed", "labeled", "labeled", "assigned"
        ]
    );
    assert_eq!(timeline["items"][0]["from"], "Old");
    assert_eq!(timeline["items"][2]["state_reason"], "completed");
    let events = w.events().await;
    assert_eq!(events.len(), before + 1, "one event for the call");
    let (kind, body) = events.last().unwrap();
    assert_eq!(kind, "issue.closed");
    assert_eq!(body["number"], 1);
    assert_eq!(body["items"].as_array().unwrap().len(), 6);

    // The same state again, labels already there, one removed that is not: nothing.
    let same = w
        .update(
            &w.ann,
            1,
            json!({"state": "closed", "labels": {"add": ["bug"]}, "assignees": {"remove": ["ann"]}}),
        )
        .await;
    assert_eq!(same["updated_at"], issue["updated_at"]);
    assert_eq!(w.events().await.len(), before + 1);
    assert_eq!(w.get(&w.bob, "/issues/1/timeline").await["total"], 6);

    let reopened = w
        .update(
            &w.bob,
            1,
            json!({"state": "open", "labels": {"remove": ["bug"]}}),
        )
        .await;
    assert_eq!(reopened["state"], "open");
    assert_eq!(reopened["state_reason"], json!(null));
    assert_eq!(reopened["labels"], json!(["question"]));
    assert_eq!(w.events().await.last().unwrap().0, "issue.reopened");
    let closed = w
        .update(
            &w.bob,
            1,
            json!({"state": "closed", "state_reason": "not_planned"}),
        )
        .await;
    assert_eq!(closed["state_reason"], "not_planned");
}

#[tokio::test]
async fn a_stale_base_version_loses_nothing() {
    let w = world().await;
    w.create(&w.bob, json!({"title": "T", "body": "one"})).await;
    w.update(&w.ann, 1, json!({"body": "two", "base_version": 1}))
        .await;
    let r = w
        .send(
            Method::PATCH,
            "/issues/1",
            &w.bob,
            Some(json!({"body": "mine", "base_version": 1, "title": "Not applied"})),
        )
        .await;
    let error = expect_error(r, StatusCode::CONFLICT, "edited").await;
    assert_eq!(error["error"]["current"], "two");
    let issue = w.get(&w.ann, "/issues/1").await;
    assert_eq!(
        (&issue["body"], &issue["title"]),
        (&json!("two"), &json!("T"))
    );
    // Without base_version the last writer wins.
    let issue = w.update(&w.bob, 1, json!({"body": "three"})).await;
    assert_eq!(
        (&issue["body"], &issue["body_version"]),
        (&json!("three"), &json!(3))
    );
}

#[tokio::test]
async fn comments_reactions_and_the_timeline() {
    let w = world().await;
    w.create(&w.ann, json!({"title": "T"})).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let r = w
            .send(
                Method::POST,
                "/issues/1/comments",
                &w.bob,
                Some(json!({"body": format!("comment {i}")})),
            )
            .await;
        let c: Value = expect_json(r, StatusCode::CREATED).await;
        ids.push(c["id"].as_i64().unwrap());
    }
    assert_eq!(w.get(&w.ann, "/issues/1").await["comments"], 5);
    assert_eq!(w.events().await.last().unwrap().0, "issue.commented");

    // Only the author edits; the author or an owner deletes.
    let path = format!("/issues/1/comments/{}", ids[0]);
    let r = w
        .send(
            Method::PATCH,
            &path,
            &w.ann,
            Some(json!({"body": "hijack"})),
        )
        .await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = w
        .send(
            Method::PATCH,
            &path,
            &w.bob,
            Some(json!({"body": "edited"})),
        )
        .await;
    assert_eq!(
        expect_json::<Value>(r, StatusCode::OK).await["body"],
        "edited"
    );
    let r = w.send(Method::DELETE, &path, &w.ann, None).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = w.send(Method::GET, &path, &w.ann, None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;

    // Reactions: fixed order, one per person and content, taken back.
    for (who, content) in [
        (&w.bob, "heart"),
        (&w.ann, "+1"),
        (&w.bob, "+1"),
        (&w.bob, "+1"),
    ] {
        let r = w
            .send(
                Method::PUT,
                &format!("/issues/1/reactions/{content}"),
                who,
                None,
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    let issue = w.get(&w.ann, "/issues/1").await;
    assert_eq!(
        issue["reactions"],
        json!([{"content": "+1", "count": 2, "me": true}, {"content": "heart", "count": 1, "me": false}])
    );
    let r = w
        .send(Method::DELETE, "/issues/1/reactions/heart", &w.bob, None)
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = w
        .send(Method::PUT, "/issues/1/reactions/thumbsup", &w.bob, None)
        .await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let path = format!("/issues/1/comments/{}/reactions/eyes", ids[1]);
    let r = w.send(Method::PUT, &path, &w.ann, None).await;
    assert_eq!(
        expect_json::<Value>(r, StatusCode::OK).await,
        json!([{"content": "eyes", "count": 1, "me": true}])
    );

    // Four comments are left; paging, and the newest N oldest first.
    let all = w.get(&w.bob, "/issues/1/timeline").await;
    assert_eq!(all["total"], 4);
    assert_eq!(all["items"][0]["body"], "comment 1");
    assert_eq!(all["items"][0]["reactions"][0]["content"], "eyes");
    let first = w.get(&w.bob, "/issues/1/timeline?limit=3").await;
    assert_eq!(first["items"].as_array().unwrap().len(), 3);
    let cursor = first["next_cursor"].as_str().unwrap();
    let rest = w
        .get(
            &w.bob,
            &format!("/issues/1/timeline?limit=3&cursor={cursor}"),
        )
        .await;
    assert_eq!(rest["items"][0]["body"], "comment 4");
    assert_eq!(rest["next_cursor"], json!(null));
    let last = w.get(&w.bob, "/issues/1/timeline?last=2").await;
    let bodies: Vec<&str> = last["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["body"].as_str().unwrap())
        .collect();
    assert_eq!(bodies, ["comment 3", "comment 4"]);
    assert_eq!(last["total"], 4);
}

#[tokio::test]
async fn an_idempotency_key_answers_the_first_issue() {
    let w = world().await;
    let send = |body: Value, key: &'static str| {
        w.app
            .as_user(Method::POST, &format!("{M}/issues"), &w.bob)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
    };
    let r = send(json!({"title": "Once"}), "k-1").await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = send(json!({"title": "Once"}), "k-1").await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["svc-replayed"], "true");
    let replay: Value = r.json().await.unwrap();
    assert_eq!(replay["number"], 1);
    let r = send(json!({"title": "Other"}), "k-1").await.unwrap();
    expect_error(
        r,
        StatusCode::UNPROCESSABLE_ENTITY,
        "idempotency_key_reused",
    )
    .await;
    // Another person's same key is theirs.
    let r = w
        .app
        .as_user(Method::POST, &format!("{M}/issues"), &w.ann)
        .header("Idempotency-Key", "k-1")
        .json(&json!({"title": "Once"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(w.numbers("state=all").await, [2, 1]);
}

#[tokio::test]
async fn search_and_filters_keep_the_sort() {
    let w = world().await;
    w.create(
        &w.bob,
        json!({"title": "Parser crashes on Ünïcode", "labels": ["bug"]}),
    )
    .await;
    w.create(
        &w.bob,
        json!({"title": "Docs", "body": "the parsing guide is old", "labels": ["documentation"]}),
    )
    .await;
    w.create(
        &w.bob,
        json!({"title": "Unrelated", "assignees": ["ann"], "labels": ["bug", "question"]}),
    )
    .await;
    let r = w
        .send(
            Method::POST,
            "/issues/3/comments",
            &w.ann,
            Some(json!({"body": "parser unicode"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(w.numbers("q=pars").await, [2, 1], "prefix of the last word");
    assert_eq!(
        w.numbers("q=UNICODE%20pars").await,
        [1],
        "folded; comments not searched"
    );
    assert_eq!(
        w.numbers("q=crash%20on").await,
        Vec::<i64>::new(),
        "whole words before the last"
    );
    assert_eq!(w.numbers("q=crashes%20on").await, [1]);
    assert_eq!(w.numbers("q=%22%20OR%20*").await, Vec::<i64>::new());
    let r = w
        .send(
            Method::GET,
            "/issues?q=a%20b%20c%20d%20e%20f%20g%20h%20i%20j%20k",
            &w.ann,
            None,
        )
        .await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    assert_eq!(w.numbers("labels=bug").await, [3, 1]);
    assert_eq!(w.numbers("labels=bug,question").await, [3]);
    assert_eq!(w.numbers("assignee=ann").await, [3]);
    assert_eq!(w.numbers("sort=oldest&limit=2").await, [1, 2]);

    w.update(&w.ann, 2, json!({"state": "closed"})).await;
    let page = w.get(&w.ann, "/issues?labels=bug").await;
    assert_eq!(
        (&page["open_count"], &page["closed_count"]),
        (&json!(2), &json!(0))
    );
    let page = w.get(&w.ann, "/issues?q=pars").await;
    assert_eq!(
        (&page["open_count"], &page["closed_count"]),
        (&json!(1), &json!(1))
    );
    assert_eq!(w.numbers("state=closed").await, [2]);
    assert_eq!(w.numbers("state=all&sort=comments").await, [3, 2, 1]);

    // Keyset paging keeps the sort.
    let first = w.get(&w.ann, "/issues?state=all&sort=oldest&limit=2").await;
    let cursor = first["next_cursor"].as_str().unwrap();
    assert_eq!(
        w.numbers(&format!("state=all&sort=oldest&limit=2&cursor={cursor}"))
            .await,
        [3]
    );
    // The issue edited last comes first by update.
    w.update(
        &w.ann,
        1,
        json!({"title": "Parser crashes on Unicode input"}),
    )
    .await;
    assert_eq!(w.numbers("state=all&sort=updated").await[0], 1);
    assert_eq!(w.numbers("q=input").await, [1], "the index follows an edit");
}

impl World {
    /// listIssues' (open_count, closed_count) for a query.
    async fn counts(&self, query: &str) -> (i64, i64) {
        let page = self.get(&self.ann, &format!("/issues?{query}")).await;
        (
            page["open_count"].as_i64().unwrap(),
            page["closed_count"].as_i64().unwrap(),
        )
    }

    /// Each label's `open_issues`, by name.
    async fn open_by_label(&self) -> Vec<(String, i64)> {
        let labels = self.get(&self.ann, "/labels").await["items"].clone();
        labels
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let name = l["name"].as_str().unwrap().to_owned();
                (name, l["open_issues"].as_i64().unwrap())
            })
            .collect()
    }
}

#[tokio::test]
async fn counts_follow_closes_and_label_changes() {
    let w = world().await;
    for labels in [json!(["bug"]), json!(["bug", "question"]), json!([])] {
        w.create(&w.bob, json!({"title": "T", "labels": labels}))
            .await;
    }
    assert_eq!(w.counts("").await, (3, 0));
    assert_eq!(w.counts("labels=BUG").await, (2, 0), "names without case");
    w.update(&w.ann, 1, json!({"state": "closed"})).await;
    w.update(&w.ann, 1, json!({"state": "closed"})).await;
    assert_eq!(w.counts("state=all").await, (2, 1));
    assert_eq!(w.counts("labels=bug").await, (1, 1));
    w.update(
        &w.ann,
        3,
        json!({"labels": {"add": ["bug"]}, "state": "closed"}),
    )
    .await;
    w.update(&w.ann, 2, json!({"labels": {"remove": ["bug"]}}))
        .await;
    assert_eq!(w.counts("labels=bug").await, (0, 2));
    assert_eq!(w.counts("labels=question").await, (1, 0));
    w.update(&w.ann, 1, json!({"state": "open"})).await;
    assert_eq!(w.counts("").await, (2, 1));
    assert_eq!(w.counts("labels=bug").await, (1, 1));
    // Two labels count the issues with both, the same way.
    assert_eq!(w.counts("labels=bug,question").await, (0, 0));
    assert_eq!(
        w.open_by_label().await,
        [
            ("bug".to_owned(), 1),
            ("documentation".to_owned(), 0),
            ("enhancement".to_owned(), 0),
            ("question".to_owned(), 1)
        ]
    );
    let r = w
        .send(
            Method::PATCH,
            "/labels/bug",
            &w.ann,
            Some(json!({"name": "defect"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(w.counts("labels=defect").await, (1, 1));
    assert_eq!(w.counts("labels=bug").await, (0, 0));
    let r = w.send(Method::DELETE, "/labels/defect", &w.ann, None).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let r = w
        .send(
            Method::POST,
            "/labels",
            &w.ann,
            Some(json!({"name": "defect", "color": "gray"})),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(
        w.counts("labels=defect").await,
        (0, 0),
        "a new label starts at none"
    );
    assert_eq!(w.counts("").await, (2, 1));
}

#[tokio::test]
async fn labels_are_renamed_and_deleted_everywhere_at_once() {
    let w = world().await;
    w.create(&w.bob, json!({"title": "A", "labels": ["bug"]}))
        .await;
    w.create(&w.bob, json!({"title": "B", "labels": ["bug", "question"]}))
        .await;
    let r = w
        .send(
            Method::PATCH,
            "/labels/bug",
            &w.bob,
            Some(json!({"name": "defect"})),
        )
        .await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = w
        .send(
            Method::PATCH,
            "/labels/BUG",
            &w.ann,
            Some(json!({"name": "defect", "color": "pink"})),
        )
        .await;
    let label: Value = expect_json(r, StatusCode::OK).await;
    assert_eq!(
        label,
        json!({"name": "defect", "color": "pink", "description": "Something does not work", "open_issues": 2})
    );
    assert_eq!(
        w.get(&w.ann, "/issues/2").await["labels"],
        json!(["defect", "question"])
    );
    let (kind, body) = w.events().await.pop().unwrap();
    assert_eq!(
        (kind.as_str(), &body["from"]),
        ("label.updated", &json!("bug"))
    );
    assert_eq!(w.get(&w.ann, "/issues/1/timeline").await["total"], 0);

    let r = w.send(Method::DELETE, "/labels/defect", &w.ann, None).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        w.get(&w.ann, "/issues/2").await["labels"],
        json!(["question"])
    );
    assert_eq!(
        w.get(&w.ann, "/issues/1/timeline").await["total"],
        0,
        "no items"
    );

    let r = w
        .send(
            Method::POST,
            "/labels",
            &w.ann,
            Some(json!({"name": "Question", "color": "green"})),
        )
        .await;
    expect_error(r, StatusCode::CONFLICT, "label_exists").await;
    let r = w
        .send(
            Method::POST,
            "/labels",
            &w.ann,
            Some(json!({"name": "x", "color": "red"})),
        )
        .await;
    assert_eq!(
        r.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "red is no theme colour"
    );
    for i in 0..497 {
        let r = w
            .send(
                Method::POST,
                "/labels",
                &w.ann,
                Some(json!({"name": format!("l{i}"), "color": "gray"})),
            )
            .await;
        assert_eq!(r.status(), StatusCode::CREATED, "label {i}");
    }
    let r = w
        .send(
            Method::POST,
            "/labels",
            &w.ann,
            Some(json!({"name": "one-too-many", "color": "gray"})),
        )
        .await;
    expect_error(r, StatusCode::CONFLICT, "too_many_labels").await;
    assert_eq!(
        w.get(&w.bob, "/labels").await["items"]
            .as_array()
            .unwrap()
            .len(),
        500
    );
    let r = w.send(Method::GET, "/labels", &w.eve, None).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn a_merge_closes_the_issues_it_names() {
    let w = svc_tests::Cloned::new("mono", "api").await;
    let (app, token) = (&w.app, &w.token);
    w.git.commit(&w.work, "base", &[("a.txt", b"a\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "main"]);
    let create = |title: &str, link: Value| {
        app.as_user(Method::POST, &format!("{M}/issues"), token)
            .json(&json!({"title": title, "link": link}))
            .send()
    };
    for (title, link) in [
        ("linked", json!([{"repo": "api", "branch": "fix"}])),
        ("named", json!([])),
        ("untouched", json!([])),
    ] {
        assert_eq!(
            create(title, link).await.unwrap().status(),
            StatusCode::CREATED
        );
    }
    w.git.ok(&w.work, &["checkout", "-q", "-b", "fix"]);
    w.git.commit(&w.work, "fix", &[("a.txt", b"b\n")]);
    w.git.ok(&w.work, &["push", "-q", "origin", "fix"]);
    let r = app
        .as_user(Method::PATCH, &format!("{M}/repos/api/branches/fix"), token)
        .json(&json!({"title": "Fix the parser", "description": "Fixes #2."}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "{}",
        r.text().await.unwrap_or_default()
    );
    let r = app
        .as_user(
            Method::POST,
            &format!("{M}/repos/api/branches/fix/merge"),
            token,
        )
        .send()
        .await
        .unwrap();
    let merge: Value = expect_json(r, StatusCode::OK).await;
    for number in [1, 2] {
        let issue = app.get_json(token, &format!("{M}/issues/{number}")).await;
        assert_eq!(
            (&issue["state"], &issue["state_reason"]),
            (&json!("closed"), &json!("completed"))
        );
        let timeline = app
            .get_json(token, &format!("{M}/issues/{number}/timeline"))
            .await;
        assert_eq!(timeline["items"][0]["kind"], "closed");
        assert_eq!(
            timeline["items"][0]["merge"],
            json!({"repo": "api", "branch": "fix", "sha": merge["sha"]})
        );
    }
    assert_eq!(
        app.get_json(token, &format!("{M}/issues/3")).await["state"],
        "open"
    );
    let events = app
        .get_json(token, &format!("{M}/events?kinds=merged,issue.closed"))
        .await;
    let kinds: Vec<&str> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["merged", "issue.closed", "issue.closed"]);
}

#[tokio::test]
async fn assigned_open_issues_feed_the_needs_list() {
    let w = world().await;
    let needs = w.app.get_json(&w.bob, "/v1/branches").await;
    assert_eq!(needs["issues"], json!([]));
    w.create(&w.ann, json!({"title": "Older", "assignees": ["bob"]}))
        .await;
    w.create(&w.ann, json!({"title": "Not bob's"})).await;
    w.create(&w.ann, json!({"title": "Newer", "assignees": ["bob"]}))
        .await;
    w.create(&w.ann, json!({"title": "Closed", "assignees": ["bob"]}))
        .await;
    w.update(&w.ann, 4, json!({"state": "closed"})).await;
    let needs = w.app.get_json(&w.bob, "/v1/branches").await;
    let issues = needs["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1);
    assert_eq!(
        (&issues[0]["monorepo"], &issues[0]["open"]),
        (&json!("ann/mono"), &json!(2))
    );
    assert_eq!(issues[0]["newest"]["number"], 3);
    w.update(&w.ann, 1, json!({"title": "Older, edited"})).await;
    let needs = w.app.get_json(&w.bob, "/v1/branches").await;
    assert_eq!(
        needs["issues"][0]["newest"]["number"], 1,
        "most recently updated"
    );
}
