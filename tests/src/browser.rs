//! A real headless Chromium, driven over WebDriver by chromedriver, for the pages people
//! use in a browser. A machine without Chromium fails these tests with the fix, unless
//! `SVC_TEST_NO_BROWSER=1` says it runs without one on purpose.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

/// How long a page may take to show what a test waits for.
const PAGE_WAIT: Duration = Duration::from_secs(20);

/// The flags Chromium needs here: no sandbox (tests run as root), no GPU, and none of
/// the background traffic a first run makes.
const CHROMIUM_ARGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// A Chromium session on a fresh profile; chromedriver and its browser die with it.
pub struct Browser {
    pub client: Client,
    driver: DriverProcess,
    _profile: tempfile::TempDir,
}

/// chromedriver in a process group of its own, so Chromium's processes go with it.
struct DriverProcess(std::process::Child);

impl Drop for DriverProcess {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Browser {
    /// Starts chromedriver on a free port and opens a session; `None` (the caller
    /// skips) only when `SVC_TEST_NO_BROWSER=1`.
    pub async fn launch() -> Option<Browser> {
        Browser::start(true).await
    }

    /// The same with JavaScript turned off in the browser's settings, for the pages as a
    /// person without scripts has them (WebDriver's own commands still run).
    pub async fn launch_without_scripts() -> Option<Browser> {
        Browser::start(false).await
    }

    async fn start(scripts: bool) -> Option<Browser> {
        if std::env::var_os("SVC_TEST_NO_BROWSER").is_some_and(|v| v == "1") {
            eprintln!("SVC_TEST_NO_BROWSER=1: skipping a test that needs Chromium");
            return None;
        }
        let (Some(chromium), Some(chromedriver)) = (on_path("chromium"), on_path("chromedriver"))
        else {
            panic!(
                "this test needs Chromium and chromedriver on PATH \
                 (Debian: apt-get install -y chromium chromium-driver); \
                 set SVC_TEST_NO_BROWSER=1 to skip the browser tests instead"
            );
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut cmd = Command::new(&chromedriver);
        cmd.arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut driver = DriverProcess(cmd.spawn().expect("chromedriver starts"));
        let webdriver = format!("http://127.0.0.1:{port}");
        wait_for_driver(&webdriver, &mut driver.0).await;

        let profile = tempfile::tempdir().expect("temp profile");
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|a| (*a).to_owned()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let mut options = json!({"binary": chromium, "args": args});
        if !scripts {
            options["prefs"] = json!({"profile.managed_default_content_settings.javascript": 2});
        }
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": options,
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!("an object literal")
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(capabilities)
            .connect(&webdriver)
            .await
            .unwrap_or_else(|e| panic!("chromedriver could not start Chromium: {e}"));
        Some(Browser {
            client,
            driver,
            _profile: profile,
        })
    }

    /// Opens `url`.
    pub async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("cannot open {url}: {e}"));
    }

    /// Waits for the element `css` to appear, showing the page when it does not.
    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        match self
            .client
            .wait()
            .at_most(PAGE_WAIT)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(element) => element,
            Err(e) => panic!("no {css} ({e}) on {}", self.describe().await),
        }
    }

    /// Types `text` into the field `css`.
    pub async fn fill(&self, css: &str, text: &str) {
        let field = self.find(css).await;
        field.clear().await.expect("clear the field");
        field.send_keys(text).await.expect("type into the field");
    }

    /// Clicks the element `css`.
    pub async fn click(&self, css: &str) {
        self.find(css).await.click().await.expect("click");
    }

    /// Waits until the text of `css` contains `want`; answers that text.
    pub async fn wait_for_text(&self, css: &str, want: &str) -> String {
        let deadline = Instant::now() + PAGE_WAIT;
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await
                && let Ok(text) = element.text().await
                && text.contains(want)
            {
                return text;
            }
            if Instant::now() > deadline {
                panic!("{css} never said {want:?} on {}", self.describe().await);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the page's path is `path`.
    pub async fn wait_for_path(&self, path: &str) {
        let deadline = Instant::now() + PAGE_WAIT;
        loop {
            if let Ok(url) = self.client.current_url().await
                && url.path() == path
            {
                return;
            }
            if Instant::now() > deadline {
                panic!("never reached {path}: {}", self.describe().await);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Signs in with a session cookie (`name=value`, from `TestApp::sign_in`) for the
    /// server at `origin`, without the sign-in page.
    pub async fn use_session(&self, origin: &str, pair: &str) {
        self.goto(&format!("{origin}/favicon.ico")).await;
        let (name, value) = pair.split_once('=').expect("name=value");
        let cookie = json!({"name": name, "value": value, "path": "/", "secure": true,
            "httpOnly": true, "sameSite": "Lax"});
        self.client
            .issue_cmd(AddHostCookie(cookie))
            .await
            .expect("set the session cookie");
    }

    /// Saves a screenshot of the page as `<dir>/<name>.png`, for people to review.
    pub async fn screenshot(&self, dir: &std::path::Path, name: &str) {
        let png = self.client.screenshot().await.expect("screenshot");
        std::fs::create_dir_all(dir).expect("screenshot folder");
        std::fs::write(dir.join(format!("{name}.png")), png).expect("write the screenshot");
    }

    /// Runs axe-core (installed by `.ci/mcp-clients.sh` beside the MCP tools) on the page
    /// open, with the WCAG 2.x A and AA rules; answers its violations as `rule: nodes`
    /// lines (empty: none). `None` when the node tools are skipped on purpose
    /// (`SVC_TEST_NO_NODE_TOOLS=1`).
    pub async fn axe(&self) -> Option<Vec<String>> {
        let tools = crate::npm_tools::NpmTools::find()?;
        let engine = tools.dir.join("node_modules/axe-core/axe.min.js");
        let source = std::fs::read_to_string(&engine).unwrap_or_else(|e| {
            panic!(
                "axe-core at {}: {e}; run .ci/mcp-clients.sh",
                engine.display()
            )
        });
        // WebDriver's scripts run whatever the page's policy says: axe goes in this way.
        self.client
            .execute(&format!("{source}\nreturn true;"), vec![])
            .await
            .expect("load axe-core");
        let found = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
                   .then((r) => done(r.violations.map((v) =>
                     v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', '))))
                   .catch((e) => done(['axe failed: ' + e]));",
                vec![],
            )
            .await
            .expect("run axe-core");
        Some(
            found
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        )
    }

    /// The page's address and source, for a failure message.
    async fn describe(&self) -> String {
        let url = self
            .client
            .current_url()
            .await
            .map(|u| u.to_string())
            .unwrap_or_default();
        let source = self.client.source().await.unwrap_or_default();
        format!("{url}\n{source}")
    }

    /// Ends the session (Chromium quits); chromedriver stops when `self` drops.
    pub async fn close(self) {
        let Browser { client, driver, .. } = self;
        let _ = client.close().await;
        drop(driver);
    }
}

/// WebDriver's Add Cookie without a `domain` (fantoccini sends `null`, which chromedriver
/// refuses): a host-only cookie for the page open, as `__Host-` cookies must be.
#[derive(Debug)]
struct AddHostCookie(serde_json::Value);

impl fantoccini::wd::WebDriverCompatibleCommand for AddHostCookie {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/cookie",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (reqwest::Method, Option<String>) {
        let body = json!({"cookie": self.0});
        (reqwest::Method::POST, Some(body.to_string()))
    }
}

/// Waits until chromedriver answers its status route.
async fn wait_for_driver(webdriver: &str, driver: &mut std::process::Child) {
    let http = crate::client();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(r) = http.get(format!("{webdriver}/status")).send().await
            && r.status().is_success()
        {
            return;
        }
        if let Ok(Some(status)) = driver.try_wait() {
            panic!("chromedriver exited early: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "chromedriver did not answer on {webdriver}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}
