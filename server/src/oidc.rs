//! An OpenID Connect identity provider (authorization code flow with PKCE).
//!
//! The provider only proves who the person is; no provider token is kept. The ID token
//! comes straight from the provider's token endpoint over TLS, which OpenID Connect
//! Core 3.1.3.7 (6) accepts in place of checking its signature; its issuer, audience,
//! expiry and nonce are checked.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;
use url::Url;

use crate::config::OidcSettings;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("identity provider unreachable: {0}")]
    Http(#[from] reqwest::Error),
    #[error("identity provider answered badly: {0}")]
    Provider(String),
    #[error("the sign-in could not be verified: {0}")]
    Claims(&'static str),
}

#[derive(Debug, Clone, Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: Url,
    token_endpoint: Url,
    end_session_endpoint: Option<Url>,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Vec<String>,
}

/// What the provider says of the person.
#[derive(Debug, Clone, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub sub: String,
    aud: Audience,
    exp: i64,
    nonce: Option<String>,
    pub email: Option<String>,
    #[serde(default, deserialize_with = "lenient_bool")]
    pub email_verified: bool,
    pub name: Option<String>,
    pub preferred_username: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

/// Some providers send `email_verified` as the string "true".
fn lenient_bool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Bool(b) => b,
        serde_json::Value::String(s) => s == "true",
        _ => false,
    })
}

pub struct Provider {
    settings: OidcSettings,
    http: reqwest::Client,
    discovery: OnceCell<Discovery>,
}

impl Provider {
    pub fn new(settings: OidcSettings, http: reqwest::Client) -> Provider {
        Provider {
            settings,
            http,
            discovery: OnceCell::new(),
        }
    }

    async fn discovery(&self) -> Result<&Discovery, Error> {
        self.discovery
            .get_or_try_init(|| async {
                let url = format!(
                    "{}/.well-known/openid-configuration",
                    self.settings.issuer.as_str().trim_end_matches('/')
                );
                let d: Discovery = self
                    .http
                    .get(url)
                    .send()
                    .await?
                    .error_for_status()?
                    .json()
                    .await?;
                if d.issuer.trim_end_matches('/')
                    != self.settings.issuer.as_str().trim_end_matches('/')
                {
                    return Err(Error::Provider(format!(
                        "discovery names issuer {}",
                        d.issuer
                    )));
                }
                Ok(d)
            })
            .await
    }

    /// The provider's sign-in page for this attempt.
    pub async fn authorize_url(
        &self,
        redirect_uri: &str,
        state: &str,
        nonce: &str,
        pkce_verifier: &str,
    ) -> Result<Url, Error> {
        let mut url = self.discovery().await?.authorization_endpoint.clone();
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(pkce_verifier.as_bytes()));
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("scope", "openid email profile")
            .append_pair("state", state)
            .append_pair("nonce", nonce)
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256");
        Ok(url)
    }

    /// Trades the callback's code for the ID token and checks it.
    pub async fn exchange(
        &self,
        code: &str,
        redirect_uri: &str,
        pkce_verifier: &str,
        nonce: &str,
    ) -> Result<Claims, Error> {
        let d = self.discovery().await?;
        let post = d
            .token_endpoint_auth_methods_supported
            .iter()
            .any(|m| m == "client_secret_post");
        let body = {
            let mut form = url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", "authorization_code")
                .append_pair("code", code)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("code_verifier", pkce_verifier);
            if post {
                form.append_pair("client_id", &self.settings.client_id)
                    .append_pair("client_secret", &self.settings.client_secret);
            }
            form.finish()
        };
        let mut request = self
            .http
            .post(d.token_endpoint.clone())
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body);
        if !post {
            request = request.basic_auth(
                form_encode(&self.settings.client_id),
                Some(form_encode(&self.settings.client_secret)),
            );
        }
        let answer = request.send().await?;
        if !answer.status().is_success() {
            let status = answer.status();
            let text = answer.text().await.unwrap_or_default();
            return Err(Error::Provider(format!(
                "token endpoint said {status}: {}",
                truncate(&text)
            )));
        }
        #[derive(Deserialize)]
        struct TokenAnswer {
            id_token: String,
        }
        let token: TokenAnswer = answer.json().await?;
        let claims = decode_payload(&token.id_token)?;
        self.check(claims, nonce, d)
    }

    fn check(&self, claims: Claims, nonce: &str, d: &Discovery) -> Result<Claims, Error> {
        if claims.iss != d.issuer {
            return Err(Error::Claims("issuer differs"));
        }
        let for_us = match &claims.aud {
            Audience::One(a) => a == &self.settings.client_id,
            Audience::Many(all) => all.iter().any(|a| a == &self.settings.client_id),
        };
        if !for_us {
            return Err(Error::Claims("audience is not this service"));
        }
        if claims.exp <= time::OffsetDateTime::now_utc().unix_timestamp() {
            return Err(Error::Claims("ID token expired"));
        }
        if claims.nonce.as_deref() != Some(nonce) {
            return Err(Error::Claims("nonce differs"));
        }
        Ok(claims)
    }

    /// Where to send the browser to end the provider's session too, if it has one.
    pub async fn end_session_url(&self) -> Option<String> {
        let d = self.discovery().await.ok()?;
        let mut url = d.end_session_endpoint.clone()?;
        url.query_pairs_mut()
            .append_pair("client_id", &self.settings.client_id);
        Some(url.into())
    }
}

/// RFC 6749 section 2.3.1: client credentials are form-encoded before Basic.
fn form_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn truncate(s: &str) -> &str {
    s.char_indices().nth(200).map_or(s, |(i, _)| &s[..i])
}

fn decode_payload(jwt: &str) -> Result<Claims, Error> {
    let payload = jwt
        .split('.')
        .nth(1)
        .ok_or(Error::Claims("ID token is not a JWT"))?;
    let bytes = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| Error::Claims("ID token payload is not base64url"))?;
    serde_json::from_slice(&bytes)
        .map_err(|_| Error::Claims("ID token payload lacks required claims"))
}
