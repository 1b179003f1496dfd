//! Sign-in: the device flow (RFC 8628 names) and the browser flow.

use serde::{Deserialize, Serialize};

/// `POST /v1/login/device` body (optional).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceStart {
    /// Name for the machine credential; the approving person may change it. 1 to 100
    /// printable characters, not all spaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(
            min_length = 1,
            max_length = 100,
            pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
        )
    )]
    pub machine: Option<String>,
}

/// `POST /v1/login/device` answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceCode {
    pub device_code: String,
    /// Eight letters, shown `ABCD-EFGH`.
    pub user_code: String,
    pub verification_uri: String,
    pub verification_uri_complete: String,
    /// Seconds until the code expires.
    pub expires_in: u64,
    /// Seconds to wait between polls.
    pub interval: u64,
}

/// `POST /v1/login/token` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceTokenRequest {
    pub device_code: String,
}

/// `POST /v1/login/device/approve` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceApprove {
    /// Eight of the code's letters, in either case; spaces and dashes are ignored.
    #[cfg_attr(
        feature = "openapi",
        schema(pattern = "^[ -]*([BCDFGHJKLMNPQRSTVWXZbcdfghjklmnpqrstvwxz][ -]*){8}$")
    )]
    pub user_code: String,
    pub approve: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
}

/// `POST /v1/login/device/approve` answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceDecision {
    pub user_code: String,
    pub approved: bool,
    pub machine: String,
}

/// `POST /v1/login/password` body: the built-in local identity provider.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PasswordLogin {
    /// A login or an email.
    pub login: String,
    pub password: String,
}

/// `POST /v1/logout` answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoggedOut {
    /// Where to send the browser to end the identity provider's session too.
    pub end_session_url: Option<String>,
}
