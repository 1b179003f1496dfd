//! Signing in to the web pages and reading them as a browser would, without one.

use reqwest::{Method, Response, StatusCode, header};
use serde_json::json;

use crate::TestApp;

impl TestApp {
    /// Signs `login` in with its password; answers the session cookie pair.
    pub async fn sign_in(&self, login: &str, password: &str) -> String {
        let r = self
            .request(Method::POST, "/v1/login/password")
            .header(header::ORIGIN, self.origin())
            .json(&json!({"login": login, "password": password}))
            .send()
            .await
            .expect("sign-in request");
        assert_eq!(r.status(), StatusCode::OK);
        let set = r.headers()[header::SET_COOKIE]
            .to_str()
            .expect("cookie")
            .to_owned();
        set.split(';').next().unwrap_or_default().to_owned()
    }

    /// GETs a page (with the session cookie, when given), redirects not followed.
    pub async fn get_page(&self, cookie: Option<&str>, path: &str) -> Response {
        let mut r = self.request(Method::GET, path);
        if let Some(c) = cookie {
            r = r.header(header::COOKIE, c);
        }
        r.send().await.expect("page request")
    }
}
