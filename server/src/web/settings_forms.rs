//! The settings page's forms without JavaScript (see `forms`): each a POST to a route
//! under `/settings` that calls the API's own handler, then 303 back (or on, after a
//! rename, a transfer or a delete). A form whose answer carries what no later read gives
//! (an invite's sign-in link, a CI connection's webhook token) is answered with the page
//! itself, showing it this once.
//!
//! Every write checks first that the person owns the monorepo (`settings::owned`), so a
//! 404 from the API's handler afterwards is about what the form names (a login no one
//! has, a label deleted meanwhile) and comes back as a refusal, not the 404 page.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use svc_protocol::ErrorCode;
use svc_protocol::ci::CreateCiConnection;
use svc_protocol::issue::{CreateLabel, LabelColor, UpdateLabel};
use svc_protocol::monorepo::{
    CreateInvite, InviteAnswer, PutMember, RenameMonorepo, Role, UpdateRepo,
};

use super::forms;
use super::page::{self, Viewer};
use super::settings::{Shown, build, monorepo_of, owned, settings_base};
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paths::{CiItemPath, InvitePath, LabelPath, MemberPath, MonorepoPath, RepoPath};
use crate::routes::{ci, labels, members, monorepos, repos};
use crate::state::AppState;

/// The invite answer's JSON read back at most this long.
const ANSWER_MAX: usize = 64 * 1024;

/// `run` once the person is known to own the monorepo; its 404 is then a refusal.
pub(super) async fn as_owner<T>(
    state: &AppState,
    viewer: &Viewer,
    at: &MonorepoPath,
    run: impl std::future::Future<Output = ApiResult<T>>,
) -> ApiResult<T> {
    owned(state, viewer, at).await?;
    run.await.map_err(|e| {
        if e.status == StatusCode::NOT_FOUND {
            ApiError::bad_request(ErrorCode::NotFound, e.message)
        } else {
            e
        }
    })
}

#[derive(Debug, Deserialize)]
pub struct AddForm {
    /// A login (added at once) or an email (invited).
    who: String,
    role: Role,
}

/// "Add": a login becomes a member (putMember), an email is invited (invite); an
/// invite's one-time sign-in link, when the API answers one, is shown on the page.
pub async fn add_member(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<AddForm>,
) -> Response {
    let back = settings_base(&at.owner, &at.monorepo);
    let who = form.who.trim().to_owned();
    if !who.contains('@') {
        return forms::post(&state, &viewer, &headers, &back, async {
            let path = MemberPath {
                owner: at.owner.clone(),
                monorepo: at.monorepo.clone(),
                login: who.clone(),
            };
            let put = members::put(
                State(state.clone()),
                viewer.0.clone(),
                Path(path),
                Json(PutMember { role: form.role }),
            );
            as_owner(&state, &viewer, &at, put).await.map_err(|e| {
                // The 404 for the login (the monorepo's own stays the 404 page).
                if e.status == StatusCode::BAD_REQUEST && matches!(e.code, ErrorCode::NotFound) {
                    ApiError::bad_request(
                        ErrorCode::NotFound,
                        format!("no one is called {who}; invite them by email"),
                    )
                } else {
                    e
                }
            })?;
            Ok(())
        })
        .await;
    }
    let invited = forms::post_shown(&state, &viewer, &headers, &back, async {
        let answer = as_owner(
            &state,
            &viewer,
            &at,
            members::invite(
                State(state.clone()),
                viewer.0.clone(),
                Path(at.clone()),
                Json(CreateInvite {
                    email: who.clone(),
                    role: Some(form.role),
                }),
            ),
        )
        .await?;
        let bytes = axum::body::to_bytes(answer.into_body(), ANSWER_MAX)
            .await
            .map_err(ApiError::internal)?;
        serde_json::from_slice::<InviteAnswer>(&bytes).map_err(ApiError::internal)
    })
    .await;
    match invited {
        Ok(InviteAnswer::Invited {
            invite,
            sign_in_link: Some(link),
            ..
        }) => {
            let shown = Shown {
                title: format!("Sign-in link for {}", invite.email),
                note: "Pass it on to them: it makes their account and joins them here. \
                       It is shown this once and works for 7 days."
                    .into(),
                value: link,
            };
            page::answer(
                &viewer,
                build(&state, &viewer, &at, None, Some(shown)).await,
            )
        }
        Ok(_) => axum::response::Redirect::to(&back).into_response(),
        Err(response) => response,
    }
}

#[derive(Debug, Deserialize)]
pub struct RoleForm {
    role: Role,
}

/// "Make owner" / "Make member" (putMember).
pub async fn set_role(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<MemberPath>,
    axum::Form(form): axum::Form<RoleForm>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let put = members::put(
            State(state.clone()),
            viewer.0.clone(),
            Path(path),
            Json(PutMember { role: form.role }),
        );
        as_owner(&state, &viewer, &at, put).await?;
        Ok(())
    })
    .await
}

/// "Remove" (removeMember).
pub async fn remove_member(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<MemberPath>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let remove = members::remove(State(state.clone()), viewer.0.clone(), Path(path));
        as_owner(&state, &viewer, &at, remove).await?;
        Ok(())
    })
    .await
}

/// "Cancel" an invite (revokeInvite).
pub async fn cancel_invite(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<InvitePath>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let revoke = members::revoke_invite(State(state.clone()), viewer.0.clone(), Path(path));
        as_owner(&state, &viewer, &at, revoke).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct LabelForm {
    name: String,
    color: LabelColor,
    #[serde(default)]
    description: String,
}

impl LabelForm {
    fn description(&self) -> Option<String> {
        Some(self.description.trim().to_owned()).filter(|d| !d.is_empty())
    }
}

/// "Create label" (createLabel).
pub async fn create_label(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<LabelForm>,
) -> Response {
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let body = CreateLabel {
            description: form.description(),
            name: form.name,
            color: form.color,
        };
        let create = labels::create(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.clone()),
            Json(body),
        );
        as_owner(&state, &viewer, &at, create).await?;
        Ok(())
    })
    .await
}

/// "Save" a label's name, colour and description (updateLabel; an empty description
/// clears it).
pub async fn update_label(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<LabelPath>,
    axum::Form(form): axum::Form<LabelForm>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let body = UpdateLabel {
            description: Some(form.description()),
            name: Some(form.name),
            color: Some(form.color),
        };
        let update = labels::update(
            State(state.clone()),
            viewer.0.clone(),
            Path(path),
            Json(body),
        );
        as_owner(&state, &viewer, &at, update).await?;
        Ok(())
    })
    .await
}

/// "Delete" a label (deleteLabel).
pub async fn delete_label(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<LabelPath>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let delete = labels::delete(State(state.clone()), viewer.0.clone(), Path(path));
        as_owner(&state, &viewer, &at, delete).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct RepoForm {
    releases_public: bool,
}

/// A repo's settings (updateRepo): releases public or not.
pub async fn update_repo(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<RepoPath>,
    axum::Form(form): axum::Form<RepoForm>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let body = UpdateRepo {
            releases_public: Some(form.releases_public),
        };
        let update = repos::update(
            State(state.clone()),
            viewer.0.clone(),
            Path(path),
            Json(body),
        );
        as_owner(&state, &viewer, &at, update).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct ConnectForm {
    organization: String,
}

/// "Connect" CI (createCiConnection); the webhook token is shown this once.
pub async fn connect_ci(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<ConnectForm>,
) -> Response {
    let back = settings_base(&at.owner, &at.monorepo);
    let made = forms::post_shown(&state, &viewer, &headers, &back, async {
        let body = CreateCiConnection {
            service: crate::ci::BUILDKITE.into(),
            organization: form.organization,
        };
        let connect = ci::connect(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.clone()),
            Json(body),
        );
        Ok(as_owner(&state, &viewer, &at, connect).await?.1.0)
    })
    .await;
    match made {
        Ok(made) => {
            let shown = Shown {
                title: format!("Webhook token for {}", made.connection.organization),
                note: format!(
                    "Set it as the token of the {} webhook that sends to {}. It is shown \
                     this once.",
                    made.connection.service, made.connection.webhook_url
                ),
                value: made.webhook_token,
            };
            page::answer(
                &viewer,
                build(&state, &viewer, &at, None, Some(shown)).await,
            )
        }
        Err(response) => response,
    }
}

/// "Disconnect" CI (deleteCiConnection).
pub async fn disconnect_ci(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(path): Path<CiItemPath>,
) -> Response {
    let at = monorepo_of(&path.owner, &path.monorepo);
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post(&state, &viewer, &headers, &back, async {
        let disconnect = ci::disconnect(State(state.clone()), viewer.0.clone(), Path(path));
        as_owner(&state, &viewer, &at, disconnect).await?;
        Ok(())
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct RelabelForm {
    /// The new name (rename) or namespace (transfer).
    to: String,
    /// The monorepo's `<owner>/<name>` typed again.
    #[serde(default)]
    confirm: String,
}

/// The API's confirmation rule (deleteMonorepo's `confirm`): the monorepo's
/// `<owner>/<name>` typed out in full, in any case; else nothing is done.
async fn confirmed(
    state: &AppState,
    viewer: &Viewer,
    at: &MonorepoPath,
    typed: &str,
    what: &str,
) -> ApiResult<()> {
    let label = owned(state, viewer, at).await?.monorepo.label();
    if typed.trim().eq_ignore_ascii_case(&label) {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            ErrorCode::ConfirmRequired,
            format!("type {label} to confirm: nothing was {what}"),
        ))
    }
}

/// "Rename" (renameMonorepo with a name), then to the settings at the new name.
pub async fn rename(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<RelabelForm>,
) -> Response {
    let body = RenameMonorepo {
        name: Some(form.to.trim().to_owned()),
        owner: None,
    };
    relabel(state, viewer, headers, at, form.confirm, body, "renamed").await
}

/// "Transfer" (renameMonorepo with an owner), then to the settings in the new namespace.
pub async fn transfer(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<RelabelForm>,
) -> Response {
    let body = RenameMonorepo {
        name: None,
        owner: Some(form.to.trim().to_owned()),
    };
    relabel(
        state,
        viewer,
        headers,
        at,
        form.confirm,
        body,
        "transferred",
    )
    .await
}

async fn relabel(
    state: AppState,
    viewer: Viewer,
    headers: HeaderMap,
    at: MonorepoPath,
    typed: String,
    body: RenameMonorepo,
    what: &str,
) -> Response {
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post_then(&state, &viewer, &headers, &back, async {
        confirmed(&state, &viewer, &at, &typed, what).await?;
        let changed = monorepos::rename(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.clone()),
            Json(body),
        )
        .await?
        .0;
        Ok(settings_base(
            &changed.monorepo.owner,
            &changed.monorepo.name,
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct DeleteForm {
    #[serde(default)]
    confirm: String,
}

/// "Delete this monorepo" (deleteMonorepo with the typed `confirm`), then home.
pub async fn delete(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Path(at): Path<MonorepoPath>,
    axum::Form(form): axum::Form<DeleteForm>,
) -> Response {
    let back = settings_base(&at.owner, &at.monorepo);
    forms::post_then(&state, &viewer, &headers, &back, async {
        confirmed(&state, &viewer, &at, &form.confirm, "deleted").await?;
        let query = monorepos::DeleteQuery {
            confirm: Some(form.confirm.trim().to_owned()),
        };
        monorepos::delete(
            State(state.clone()),
            viewer.0.clone(),
            Path(at.clone()),
            Query(query),
        )
        .await?;
        Ok("/".to_owned())
    })
    .await
}
