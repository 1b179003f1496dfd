//! Wire types of svc: every JSON payload the server answers or accepts, shared by the
//! server, the `svc` CLI, its daemon and the end-to-end tests so that they cannot drift.
//!
//! Times travel as RFC 3339 UTC strings.

pub mod admin;
pub mod agent;
pub mod artifact;
pub mod branch;
pub mod ci;
pub mod code;
pub mod daemon;
pub mod error;
pub mod error_code;
pub mod event;
pub mod feed;
pub mod hook;
pub mod import;
pub mod issue;
pub mod login;
pub mod meta;
pub mod monorepo;
pub mod needs;
pub mod org;
pub mod presence;
pub mod release;
pub mod user;

pub use error::{ApiErrorBody, ErrorBody};
pub use error_code::ErrorCode;

/// `GET /healthz`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Health {
    pub ok: bool,
    pub version: String,
}

/// RFC 3339 (de)serialisation of [`time::OffsetDateTime`] for optional fields.
pub mod rfc3339_opt {
    pub use time::serde::rfc3339::option::{deserialize, serialize};
}

/// A field that may be omitted (kept), `null` (cleared) or set: `Option<Option<T>>`
/// where serde alone would read `null` as omitted.
pub mod nullable {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}
