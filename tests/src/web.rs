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

    /// A form's POST from a browser without JavaScript: `fields` urlencoded, the session
    /// cookie, `origin` as `Origin` (the service's own: [`TestApp::origin`]); redirects
    /// not followed.
    pub async fn post_form(
        &self,
        cookie: &str,
        origin: &str,
        path: &str,
        fields: &[(&str, &str)],
    ) -> Response {
        self.request(Method::POST, path)
            .header(header::COOKIE, cookie)
            .header(header::ORIGIN, origin)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(
                url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(fields)
                    .finish(),
            )
            .send()
            .await
            .expect("form request")
    }
}
