//! Buildkite's REST API, as the real service speaks it (tests run a fake of the same
//! shapes on loopback): the server's own token as `Authorization: Bearer`.

use std::time::Duration;

use serde_json::Value;

use crate::config::BuildkiteSettings;

/// How long a REST call may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Why a call failed, in plain words, with the HTTP status when one came.
#[derive(Debug, Clone)]
pub struct Failed {
    pub status: Option<u16>,
    pub message: String,
}

/// `POST /organizations/{org}/pipelines/{pipeline}/builds`: answers the new build.
pub async fn create_build(
    client: &reqwest::Client,
    settings: &BuildkiteSettings,
    org: &str,
    pipeline: &str,
    body: &Value,
) -> Result<(u16, Value), Failed> {
    let base = settings.api_url.as_str().trim_end_matches('/');
    let url = format!("{base}/organizations/{org}/pipelines/{pipeline}/builds");
    let mut request = client.post(url).timeout(TIMEOUT).json(body);
    if let Some(token) = &settings.token {
        request = request.bearer_auth(token);
    }
    let answer = request.send().await.map_err(|e| Failed {
        status: None,
        message: if e.is_timeout() {
            "Buildkite did not answer within 10 s".into()
        } else {
            "cannot reach Buildkite".into()
        },
    })?;
    let status = answer.status().as_u16();
    let text = answer.text().await.unwrap_or_default();
    if !(200..300).contains(&status) {
        let why: Value = serde_json::from_str(&text).unwrap_or_default();
        let message = why["message"].as_str().unwrap_or("no message").to_owned();
        return Err(Failed {
            status: Some(status),
            message: format!("Buildkite answered {status}: {message}"),
        });
    }
    Ok((status, serde_json::from_str(&text).unwrap_or_default()))
}
