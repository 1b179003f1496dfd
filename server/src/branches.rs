//! Branch operations more than one route takes: making a branch off a commit.

use svc_protocol::ErrorCode;

use crate::error::{ApiError, ApiResult};
use crate::git::merge;
use crate::git::record::{self, Actor, Seed};
use crate::state::AppState;
use crate::store::repos::RepoRow;

/// Makes `seed.branch` at commit `from` and records it (`branch.opened`, with the seed's
/// title and description): 409 `branch_exists` when git has it already.
pub async fn open(
    state: &AppState,
    repo: &RepoRow,
    actor: &Actor,
    seed: Seed,
    from: String,
) -> ApiResult<()> {
    let full = format!("refs/heads/{}", seed.branch);
    let made = state
        .git(repo, move |git| {
            let id = git
                .commit_exists(&from)?
                .ok_or_else(|| merge::Error::NotFound("commit".into()))?;
            Ok::<_, merge::Error>(git.create_ref(&full, id))
        })
        .await?;
    match made {
        Ok(()) => {}
        Err(merge::Error::RefExists(_)) => {
            return Err(ApiError::conflict(
                ErrorCode::BranchExists,
                format!("branch {} already exists", seed.branch),
            ));
        }
        Err(e) => return Err(e.into()),
    }
    let recorded = record::record_with(
        &state.store,
        &state.config.data_dir,
        &repo.id,
        actor,
        Some(&seed),
    )
    .await
    .map_err(ApiError::internal)?;
    state.facts.after_record(&repo.id, &recorded).await;
    Ok(())
}
