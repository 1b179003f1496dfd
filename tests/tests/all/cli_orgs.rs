//! `svc org ...` and org-owned monorepos end to end: the real `svc` against a real server.

use std::process::Output;

use serde_json::{Value, json};
use svc_tests::TestApp;
use svc_tests::git::all_output;
use svc_tests::machine::Machine;

/// Someone at a machine, running `svc` with their token against `app`.
struct Person<'a> {
    app: &'a TestApp,
    token: String,
    machine: Machine,
}

impl<'a> Person<'a> {
    async fn new(app: &'a TestApp, email: &str) -> Person<'a> {
        let token = app
            .bootstrap(json!({"email": email}))
            .await
            .credential
            .token;
        Person {
            app,
            token,
            machine: Machine::new(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        self.machine
            .svc(args)
            .env("SVC_TOKEN", &self.token)
            .env("SVC_SERVER", &self.app.base)
            .output()
            .unwrap()
    }

    /// Runs `svc`, insisting on success; answers stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs `svc ... --json`, insisting on success; answers the JSON on stdout.
    fn json(&self, args: &[&str]) -> Value {
        let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
        serde_json::from_str(&self.ok(&args)).unwrap()
    }

    /// Runs `svc`, insisting on exit 1 (a user error); answers stderr.
    fn refused(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", all_output(&out));
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

/// An RFC 3339 time of the API as the CLI prints it off a terminal: UTC, to the second.
fn to_second(t: &Value) -> String {
    let t = t.as_str().unwrap();
    format!("{}Z", &t[..19])
}

/// The cells of each line of a table, split on spaces.
fn cells(table: &str) -> Vec<Vec<&str>> {
    table
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect()
}

#[tokio::test]
async fn create_view_list_and_edit_an_org() {
    let app = TestApp::start().await;
    let ann = Person::new(&app, "ann@example.com").await;

    let made = ann.ok(&[
        "org",
        "create",
        "acme",
        "--name",
        "Acme",
        "--description",
        "Tools",
    ]);
    assert!(
        made.starts_with("Created org acme; you are its owner\n")
            && made.contains("svc org add acme <login>")
            && made.contains("svc monorepo create <name> --owner acme"),
        "{made}"
    );
    let org = ann.json(&["org", "view", "acme"]);
    assert_eq!(
        (&org["login"], &org["name"], &org["description"]),
        (&json!("acme"), &json!("Acme"), &json!("Tools"))
    );
    assert_eq!(
        (&org["role"], &org["members"]),
        (&json!("owner"), &json!(1))
    );
    assert_eq!(org["picture_url"], Value::Null);
    let created = to_second(&org["created_at"]);
    assert_eq!(
        ann.ok(&["org", "view", "ACME"]),
        format!("acme (Acme)\nTools\nyou are owner; 1 member; created {created}\n")
    );
    assert_eq!(
        ann.ok(&["org", "list"]),
        format!(
            "ORG   NAME  ROLE   MEMBERS  CREATED\n\
             acme  Acme  owner  1        {created}\n"
        )
    );
    let list = ann.json(&["org", "list"]);
    assert_eq!(list["items"], json!([org]));

    // A taken name and a reserved one are refused with their advice.
    for (name, code) in [
        ("acme", "namespace_taken"),
        ("ann", "namespace_taken"),
        ("orgs", "reserved_name"),
    ] {
        let err = ann.refused(&["org", "create", name]);
        assert!(
            err.lines().nth(1) == Some("hint: pick another name"),
            "{name}: {err}"
        );
        let out = ann.run(&["org", "create", name, "--json"]);
        let err: Value = serde_json::from_slice(&out.stderr).unwrap();
        assert_eq!(err["error"]["code"], code, "{name}");
    }

    // Edit: what is given changes, --no-... clears, the rest stays.
    let edited = ann.json(&[
        "org",
        "edit",
        "acme",
        "--no-name",
        "--picture-url",
        "https://example.com/acme.png",
    ]);
    assert_eq!(
        (
            &edited["name"],
            &edited["description"],
            &edited["picture_url"]
        ),
        (
            &Value::Null,
            &json!("Tools"),
            &json!("https://example.com/acme.png")
        )
    );
    assert_eq!(
        ann.ok(&[
            "org",
            "edit",
            "acme",
            "--name",
            "Acme Inc",
            "--no-description"
        ]),
        format!(
            "Updated acme\nacme (Acme Inc)\nPicture: https://example.com/acme.png\n\
             you are owner; 1 member; created {created}\n"
        )
    );
    let err = ann.refused(&["org", "edit", "acme"]);
    assert!(
        err.starts_with("svc: nothing to change\nhint: pass --name"),
        "{err}"
    );
    let out = ann.run(&["org", "edit", "acme", "--name", "A", "--no-name"]);
    assert_eq!(out.status.code(), Some(2), "{}", all_output(&out));

    // Someone outside sees the header, without a role or the people's count.
    let bob = Person::new(&app, "bob@example.com").await;
    let seen = bob.json(&["org", "view", "acme"]);
    assert_eq!(
        (&seen["role"], &seen["members"]),
        (&Value::Null, &Value::Null)
    );
    assert!(
        bob.ok(&["org", "view", "acme"])
            .contains("you are not in it; created "),
        "an outsider is told so"
    );
    let out = bob.run(&["org", "list"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(
        (
            out.stdout.as_slice(),
            String::from_utf8(out.stderr).unwrap()
        ),
        (
            &b""[..],
            "You are in no organization (make one with svc org create <login>)\n".to_owned()
        )
    );
    assert_eq!(bob.json(&["org", "list"])["items"], json!([]));
}

#[tokio::test]
async fn people_invites_and_the_last_owner() {
    let app = TestApp::start().await;
    let ann = Person::new(&app, "ann@example.com").await;
    let bob = Person::new(&app, "bob@example.com").await;
    let _dee = Person::new(&app, "dee@example.com").await;
    ann.ok(&["org", "create", "acme"]);

    // Add by login, then change the role the same way.
    assert_eq!(
        ann.ok(&["org", "add", "acme", "bob"]),
        "bob is now a member of acme\n"
    );
    let bob_row = ann.json(&["org", "add", "acme", "bob", "--role", "owner"]);
    assert_eq!(
        (&bob_row["login"], &bob_row["role"], &bob_row["added_by"]),
        (&json!("bob"), &json!("owner"), &json!("ann"))
    );
    let members = ann.json(&["org", "members", "acme"]);
    let rows: Vec<(&Value, &Value)> = members["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (&m["login"], &m["role"]))
        .collect();
    assert_eq!(
        rows,
        [
            (&json!("ann"), &json!("owner")),
            (&json!("bob"), &json!("owner"))
        ]
    );
    // routes.md's word for the command works too.
    assert_eq!(ann.json(&["org", "member", "acme"]), members);
    let table = ann.ok(&["org", "members", "acme"]);
    let table = cells(&table);
    assert_eq!(
        table[0],
        [
            "LOGIN", "NAME", "ROLE", "ADDED", "ADDED", "BY", "LAST", "ACTIVE"
        ]
    );
    assert_eq!(
        table[1][..2],
        ["ann", "owner"],
        "no name, no adder: the creator"
    );
    let bob_added = to_second(&members["items"][1]["added_at"]);
    assert_eq!(table[2][..4], ["bob", "owner", &bob_added, "ann"]);

    // An invite says whether the person is in at once or must first sign in.
    assert_eq!(
        ann.ok(&["org", "invite", "acme", "dee@example.com"]),
        "Added dee (dee@example.com) to acme as member at once: that email has signed in before\n"
    );
    // Without an identity provider, a waiting invite comes with a link to pass on.
    let said = ann.ok(&["org", "invite", "acme", "cy@example.com"]);
    assert!(
        said.starts_with(
            "Invited cy@example.com to acme as member\n\
             No one has an account with that email yet. Send them this sign-in link"
        ),
        "{said}"
    );
    assert!(
        said.contains(&format!("{}/login/link/", app.base)),
        "{said}"
    );
    assert!(
        said.ends_with(
            "See pending invites with svc org invites acme; withdraw this one with \
             svc org uninvite acme cy@example.com\n"
        ),
        "{said}"
    );
    let invited = ann.json(&[
        "org",
        "invite",
        "acme",
        "eve@example.com",
        "--role",
        "owner",
    ]);
    assert_eq!(
        (
            &invited["status"],
            &invited["invite"]["email"],
            &invited["invite"]["role"]
        ),
        (
            &json!("invited"),
            &json!("eve@example.com"),
            &json!("owner")
        )
    );
    let fay = Person::new(&app, "fay@example.com").await;
    let added = ann.json(&["org", "invite", "acme", "fay@example.com"]);
    assert_eq!(
        (
            &added["status"],
            &added["member"]["login"],
            &added["member"]["role"]
        ),
        (&json!("added"), &json!("fay"), &json!("member"))
    );
    let pending = ann.ok(&["org", "invites", "acme"]);
    let pending = cells(&pending);
    assert_eq!(pending[0], ["EMAIL", "ROLE", "INVITED", "BY", "SENT"]);
    assert_eq!(pending[1][..3], ["cy@example.com", "member", "ann"]);
    assert_eq!(pending[2][..3], ["eve@example.com", "owner", "ann"]);
    assert_eq!(
        ann.ok(&["org", "uninvite", "acme", "eve@example.com"]),
        "Withdrew the invite of eve@example.com to acme\n"
    );
    assert_eq!(
        ann.json(&["org", "uninvite", "acme", "cy@example.com"]),
        json!({"org": "acme", "withdrawn": "cy@example.com"})
    );
    let out = ann.run(&["org", "invites", "acme"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(
        (
            out.stdout.as_slice(),
            String::from_utf8(out.stderr).unwrap()
        ),
        (&b""[..], "No pending invites to acme\n".to_owned())
    );
    assert_eq!(ann.json(&["org", "invites", "acme"])["items"], json!([]));

    // Members may look but not manage.
    let err = fay.refused(&["org", "remove", "acme", "dee"]);
    assert!(err.starts_with("svc: "), "{err}");
    assert_eq!(
        fay.json(&["org", "members", "acme"])["items"]
            .as_array()
            .unwrap()
            .len(),
        4
    );

    // Removing someone, and leaving.
    assert_eq!(
        ann.ok(&["org", "remove", "acme", "dee"]),
        "Removed dee from acme\n"
    );
    assert_eq!(
        ann.json(&["org", "remove", "acme", "fay"]),
        json!({"org": "acme", "removed": "fay"})
    );
    assert_eq!(bob.ok(&["org", "leave", "acme"]), "You (bob) left acme\n");
    assert_eq!(ann.json(&["org", "view", "acme"])["members"], 1);
    assert_eq!(bob.json(&["org", "view", "acme"])["role"], Value::Null);

    // The last owner may not leave, nor be demoted; the refusal says what to do.
    let err = ann.refused(&["org", "leave", "acme"]);
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines[0].starts_with("svc: "), "{err}");
    assert_eq!(
        lines[1..],
        [
            "hint: make someone else an owner first: svc org add <org> <login> --role owner in an org, svc api for a monorepo's members"
        ]
    );
    let out = ann.run(&["org", "add", "acme", "ann", "--role", "member", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "last_owner");
    assert_eq!(
        err["error"]["hints"][0].as_str().unwrap().split(':').next(),
        Some("make someone else an owner first")
    );
    ann.ok(&["org", "add", "acme", "bob", "--role", "owner"]);
    assert_eq!(
        ann.json(&["org", "leave", "acme"]),
        json!({"org": "acme", "left": "ann"})
    );
    assert_eq!(ann.json(&["org", "list"])["items"], json!([]));
}

#[tokio::test]
async fn monorepos_made_in_and_moved_to_an_org() {
    let app = TestApp::start().await;
    let ann = Person::new(&app, "ann@example.com").await;
    let bob = Person::new(&app, "bob@example.com").await;
    ann.ok(&["org", "create", "acme"]);
    ann.ok(&["org", "add", "acme", "bob"]);

    let made = ann.json(&["monorepo", "create", "web", "--owner", "acme"]);
    assert_eq!(made["full_name"], "acme/web");
    let said = ann.ok(&["monorepo", "create", "api", "--owner", "acme"]);
    assert!(said.starts_with("Created acme/api ("), "{said}");
    let seen = bob.json(&["monorepo", "list"]);
    let names: Vec<&Value> = seen["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["full_name"])
        .collect();
    assert_eq!(
        names,
        [&json!("acme/api"), &json!("acme/web")],
        "the org's people gain them"
    );

    // Transfer: to an org you are in; the name stays.
    ann.ok(&["monorepo", "create", "tool"]);
    assert_eq!(
        ann.ok(&["monorepo", "transfer", "ann/tool", "acme"]),
        "ann/tool is now acme/tool\n"
    );
    ann.ok(&["monorepo", "create", "lib"]);
    let moved = ann.json(&["monorepo", "transfer", "ann/lib", "ACME"]);
    assert_eq!(moved["full_name"], "acme/lib");

    // Refusals carry their advice.
    let cy = Person::new(&app, "cy@example.com").await;
    cy.ok(&["org", "create", "cyco"]);
    ann.ok(&["monorepo", "create", "own"]);
    let err = ann.refused(&["monorepo", "transfer", "ann/own", "cyco"]);
    assert!(
        err.lines().any(|l| l
            == "hint: use your own login, or an organization you are in; svc org list shows them"),
        "{err}"
    );
    let err = ann.refused(&["monorepo", "create", "x", "--owner", "cyco"]);
    assert!(err.contains("hint: use your own login"), "{err}");
    let err = ann.refused(&["monorepo", "transfer", "ann/own", "bob"]);
    assert!(
        err.lines().any(|l| l
            == "hint: move it to an organization you are in, or to a person who already owns it; svc org list shows your organizations"),
        "{err}"
    );
}
