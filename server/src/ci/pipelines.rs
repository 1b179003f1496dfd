//! A pipeline's configuration as the CI service keeps it, read at most every 5 minutes;
//! when a read fails the last copy stays, with why.

use serde_json::Value;

use super::launch::pipeline;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use crate::store::ci::{self, ConnectionRow, PipelineRow};
use crate::store::now_ms;

/// How long a read copy is used before the service is asked again.
pub const READ_EVERY_MS: i64 = 5 * 60 * 1000;

/// The pipeline's copy, read again from the service when the last read is over 5
/// minutes old. A pipeline the service does not know, never read before, is not found.
pub async fn current(
    state: &AppState,
    connection: &ConnectionRow,
    slug: &str,
) -> ApiResult<PipelineRow> {
    let kept = {
        let mut conn = state.store.read().await?;
        ci::pipeline(conn.h(), &connection.id, slug).await?
    };
    let now = now_ms();
    if let Some(kept) = &kept
        && now - kept.read_at < READ_EVERY_MS
    {
        return Ok(kept.clone());
    }
    let target = pipeline(state, connection, slug)?;
    let row = match (target.describe().await, kept) {
        (Ok(answer), _) => {
            let text = |key: &str| answer[key].as_str().map(str::to_owned);
            PipelineRow {
                connection_id: connection.id.clone(),
                slug: slug.to_owned(),
                name: text("name"),
                web_url: text("web_url"),
                repository: text("repository"),
                default_branch: text("default_branch"),
                configuration: text("configuration").or_else(|| {
                    answer
                        .get("steps")
                        .filter(|s| !s.is_null())
                        .map(Value::to_string)
                }),
                read_at: now,
                error: None,
            }
        }
        (Err(f), None) if f.status == Some(404) => {
            return Err(ApiError::not_found(&format!("pipeline {slug}")));
        }
        (Err(f), kept) => PipelineRow {
            read_at: now,
            error: Some(f.message),
            ..kept.unwrap_or_else(|| PipelineRow {
                connection_id: connection.id.clone(),
                slug: slug.to_owned(),
                ..PipelineRow::default()
            })
        },
    };
    let mut tx = state.store.begin().await?;
    // The connection may have gone meanwhile; its pipelines go with it.
    if ci::connection(tx.h(), &connection.id).await?.is_some() {
        ci::put_pipeline(tx.h(), &row).await?;
    }
    tx.commit().await?;
    Ok(row)
}
