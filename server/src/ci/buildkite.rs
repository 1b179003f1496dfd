//! Buildkite's REST API, as the real service speaks it (tests run a fake of the same
//! shapes on loopback): the server's own token as `Authorization: Bearer`, paths under
//! `/organizations/{org}/pipelines/{pipeline}`.

use std::time::Duration;

use reqwest::{Method, header};
use serde_json::Value;

use crate::config::BuildkiteSettings;

/// How long a REST call may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a job's log svc reads: its tail.
pub const LOG_TAIL: u64 = 1024 * 1024;

/// Why a call failed, in plain words, with the HTTP status when one came.
#[derive(Debug, Clone)]
pub struct Failed {
    pub status: Option<u16>,
    pub message: String,
}

/// One pipeline of one organization, with the settings and client to reach it.
pub struct Pipeline<'a> {
    pub client: &'a reqwest::Client,
    pub settings: &'a BuildkiteSettings,
    pub org: &'a str,
    pub slug: &'a str,
}

/// A job's log tail as the service sent it.
pub struct Log {
    pub bytes: Vec<u8>,
    /// The whole log's size, when the service said it.
    pub size: Option<u64>,
}

impl Pipeline<'_> {
    fn request(&self, method: Method, tail: &str) -> reqwest::RequestBuilder {
        let base = self.settings.api_url.as_str().trim_end_matches('/');
        let url = format!(
            "{base}/organizations/{}/pipelines/{}{tail}",
            self.org, self.slug
        );
        let mut request = self.client.request(method, url).timeout(TIMEOUT);
        if let Some(token) = &self.settings.token {
            request = request.bearer_auth(token);
        }
        request
    }

    /// `GET` of the pipeline itself (name, repository, steps).
    pub async fn describe(&self) -> Result<Value, Failed> {
        json(self.request(Method::GET, "")).await
    }

    /// `POST /builds`: answers the HTTP status and the new build.
    pub async fn create_build(&self, body: &Value) -> Result<(u16, Value), Failed> {
        let answer = send(self.request(Method::POST, "/builds").json(body)).await?;
        let status = answer.status().as_u16();
        let text = answer.text().await.unwrap_or_default();
        Ok((status, serde_json::from_str(&text).unwrap_or_default()))
    }

    /// `PUT /builds/{number}/cancel`: answers the build.
    pub async fn cancel(&self, number: i64) -> Result<Value, Failed> {
        json(self.request(Method::PUT, &format!("/builds/{number}/cancel"))).await
    }

    /// `PUT /builds/{number}/jobs/{job}/retry`: answers the new job.
    pub async fn retry(&self, number: i64, job: &str) -> Result<Value, Failed> {
        let tail = format!("/builds/{number}/jobs/{job}/retry");
        json(self.request(Method::PUT, &tail)).await
    }

    /// `GET /builds/{number}/jobs/{job}/log` as raw text, its last [`LOG_TAIL`] bytes.
    pub async fn log(&self, number: i64, job: &str) -> Result<Log, Failed> {
        let tail = format!("/builds/{number}/jobs/{job}/log");
        let answer = send(
            self.request(Method::GET, &tail)
                .header(header::ACCEPT, "text/plain")
                .header(header::RANGE, format!("bytes=-{LOG_TAIL}")),
        )
        .await?;
        // `Content-Range: bytes a-b/total` on a tail; the whole length otherwise.
        let size = answer
            .headers()
            .get(header::CONTENT_RANGE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit_once('/'))
            .and_then(|(_, total)| total.parse().ok());
        let bytes = answer.bytes().await.map_err(|_| Failed {
            status: None,
            message: "Buildkite's log answer broke off".into(),
        })?;
        let keep = bytes.len().saturating_sub(LOG_TAIL as usize);
        Ok(Log {
            size: size.or(Some(bytes.len() as u64)),
            bytes: bytes[keep..].to_vec(),
        })
    }

    /// `GET /builds/{number}/annotations` (its first page).
    pub async fn annotations(&self, number: i64) -> Result<Value, Failed> {
        let tail = format!("/builds/{number}/annotations?per_page=100");
        json(self.request(Method::GET, &tail)).await
    }

    /// `GET /builds/{number}/artifacts` (its first page).
    pub async fn artifacts(&self, number: i64) -> Result<Value, Failed> {
        let tail = format!("/builds/{number}/artifacts?per_page=100");
        json(self.request(Method::GET, &tail)).await
    }

    /// `GET /builds/{number}/jobs/{job}/artifacts/{id}/download`: the short-lived URL
    /// the service redirects to (never followed here).
    pub async fn artifact_url(&self, number: i64, job: &str, id: &str) -> Result<String, Failed> {
        let tail = format!("/builds/{number}/jobs/{job}/artifacts/{id}/download");
        let request = self.request(Method::GET, &tail);
        let answer = request.send().await.map_err(unreachable)?;
        let status = answer.status().as_u16();
        let location = answer
            .headers()
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        match location {
            Some(url) if (300..400).contains(&status) => Ok(url),
            _ => Err(refused(status, &answer.text().await.unwrap_or_default())),
        }
    }
}

fn unreachable(e: reqwest::Error) -> Failed {
    Failed {
        status: None,
        message: if e.is_timeout() {
            "Buildkite did not answer within 10 s".into()
        } else {
            "cannot reach Buildkite".into()
        },
    }
}

fn refused(status: u16, text: &str) -> Failed {
    let why: Value = serde_json::from_str(text).unwrap_or_default();
    let message = why["message"].as_str().unwrap_or("no message");
    Failed {
        status: Some(status),
        message: format!("Buildkite answered {status}: {message}"),
    }
}

/// Sends and answers the response when it is a success.
async fn send(request: reqwest::RequestBuilder) -> Result<reqwest::Response, Failed> {
    let answer = request.send().await.map_err(unreachable)?;
    let status = answer.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(refused(status, &answer.text().await.unwrap_or_default()));
    }
    Ok(answer)
}

async fn json(request: reqwest::RequestBuilder) -> Result<Value, Failed> {
    let text = send(request).await?.text().await.unwrap_or_default();
    Ok(serde_json::from_str(&text).unwrap_or_default())
}
