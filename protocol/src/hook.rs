//! Hooks and their deliveries: signed POSTs of changes to a URL, at least once, retried
//! after 10 s, 1 min, 5 min and 30 min, then dead until redelivered or replayed.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// The events a hook may ask for.
pub const EVENTS: [&str; 5] = ["push", "branch.opened", "merged", "tag", "merge_group"];
/// Deliveries listed by listDeliveries.
pub const DELIVERIES_LISTED: usize = 100;
/// Deliveries one replay sends at most.
pub const REPLAY_MAX: usize = 1000;

/// What a hook does with a change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HookKind {
    /// A signed JSON POST to `url`.
    #[default]
    Web,
    /// A build started on the CI service.
    Ci,
}

/// A hook of a monorepo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Hook {
    pub id: String,
    pub kind: HookKind,
    pub url: Option<String>,
    /// `push`, `branch.opened`, `merged`, `tag`, `merge_group` (a merge queue entry's
    /// speculative commit, to build).
    pub events: Vec<String>,
    pub app: Option<String>,
    pub pipeline: Option<String>,
    pub active: bool,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    /// The newest delivery, if any.
    pub last_delivery: Option<LastDelivery>,
}

/// The newest delivery of a hook, in the hook list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LastDelivery {
    pub id: String,
    pub event: String,
    pub state: DeliveryState,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
}

/// createHook's answer: the hook and, this once, its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedHook {
    #[serde(flatten)]
    pub hook: Hook,
    /// The key of `X-Svc-Signature-256`; shown only here.
    pub secret: String,
}

/// `POST {m}/hooks`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateHook {
    pub kind: HookKind,
    /// Where a web hook POSTs (http or https).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The signing key, 16 to 256 characters; generated when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Default `["push"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    /// A CI hook's service (`buildkite`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// A CI hook's `<ci org>/<pipeline slug>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
}

/// The hooks of a monorepo.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HookList {
    pub items: Vec<Hook>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    Pending,
    Delivered,
    Dead,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "pending",
            DeliveryState::Delivered => "delivered",
            DeliveryState::Dead => "dead",
        }
    }

    pub fn parse(s: &str) -> Option<DeliveryState> {
        [
            DeliveryState::Pending,
            DeliveryState::Delivered,
            DeliveryState::Dead,
        ]
        .into_iter()
        .find(|d| d.as_str() == s)
    }
}

/// One try of a delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeliveryTry {
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub at: OffsetDateTime,
    /// The receiver's HTTP status; null when none came (refused, timed out).
    pub status: Option<u16>,
    pub duration_ms: i64,
    pub error: Option<String>,
}

/// A delivery with its last 10 tries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HookDelivery {
    pub id: String,
    pub hook: String,
    pub event: String,
    pub seq: Option<i64>,
    pub state: DeliveryState,
    /// Tries made, over every round.
    pub attempts: i64,
    #[serde(with = "time::serde::rfc3339")]
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub created_at: OffsetDateTime,
    /// When the next try is due; null once delivered or dead.
    #[serde(with = "crate::rfc3339_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub next_attempt_at: Option<OffsetDateTime>,
    pub tries: Vec<DeliveryTry>,
    /// The delivery body as last sent (tokens left out).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub body: serde_json::Value,
}

/// A hook's deliveries, newest first, the last 100.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HookDeliveryList {
    pub items: Vec<HookDelivery>,
}

/// `POST {m}/hooks/{id}/replay`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayHook {
    /// Every delivery with a higher event seq is sent again, oldest first.
    pub since: i64,
}

/// replayHook's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Replayed {
    /// The deliveries sent again, oldest first (at most 1,000).
    pub deliveries: Vec<String>,
}
