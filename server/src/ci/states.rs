//! Buildkite's build and job states in the specification's vocabulary ([`CiState`]; the
//! table is on the type), and the rule that a state never moves back.

use svc_protocol::branch::StatusState;
use svc_protocol::ci::CiState;

/// A Buildkite build state.
pub fn build(word: &str) -> CiState {
    match word {
        "running" | "failing" | "canceling" => CiState::Running,
        "blocked" => CiState::Blocked,
        "passed" => CiState::Passed,
        "failed" | "waiting_failed" => CiState::Failed,
        "canceled" | "cancelled" => CiState::Canceled,
        "skipped" | "not_run" => CiState::Skipped,
        // creating, scheduled, waiting, and words not known yet.
        _ => CiState::Queued,
    }
}

/// A Buildkite job state; `finished` is passed or failed by its exit status.
pub fn job(word: &str, exit_status: Option<i64>) -> CiState {
    match word {
        "running" | "canceling" | "timing_out" => CiState::Running,
        "blocked" => CiState::Blocked,
        "finished" if exit_status == Some(0) => CiState::Passed,
        "finished" => CiState::Failed,
        "passed" => CiState::Passed,
        "failed" | "blocked_failed" | "unblocked_failed" | "timed_out" | "expired" => {
            CiState::Failed
        }
        "canceled" | "cancelled" => CiState::Canceled,
        "skipped" | "broken" | "waiting_failed" => CiState::Skipped,
        // pending, waiting, unblocked, limiting, limited, scheduled, reserved, assigned,
        // accepted, platform_limiting, platform_limited, and words not known yet.
        _ => CiState::Queued,
    }
}

/// How far along a state is: queued, then blocked, then running, then finished.
fn rank(state: CiState) -> u8 {
    match state {
        CiState::Queued => 0,
        CiState::Blocked => 1,
        CiState::Running => 2,
        _ => 3,
    }
}

/// Whether `new` may replace `old`: never backwards, never once finished (a blocked
/// build that is unblocked runs again, so blocked may go on to running).
pub fn moves(old: CiState, new: CiState) -> bool {
    !old.is_finished() && rank(new) >= rank(old)
}

/// A build's commit status: success only when it passed.
pub fn status(state: CiState) -> StatusState {
    match state {
        CiState::Queued | CiState::Blocked | CiState::Running => StatusState::Pending,
        CiState::Passed => StatusState::Success,
        CiState::Failed => StatusState::Failure,
        CiState::Canceled | CiState::Skipped => StatusState::Error,
    }
}

#[cfg(test)]
mod tests {
    use svc_protocol::ci::CiState::{self, *};

    use super::{build, job, moves};

    #[test]
    fn every_buildkite_build_state_has_its_word() {
        let table: [(&str, CiState); 13] = [
            ("creating", Queued),
            ("scheduled", Queued),
            ("waiting", Queued),
            ("running", Running),
            ("failing", Running),
            ("canceling", Running),
            ("blocked", Blocked),
            ("passed", Passed),
            ("failed", Failed),
            ("waiting_failed", Failed),
            ("canceled", Canceled),
            ("skipped", Skipped),
            ("not_run", Skipped),
        ];
        for (word, state) in table {
            assert_eq!(build(word), state, "{word}");
        }
    }

    #[test]
    fn every_buildkite_job_state_has_its_word() {
        let table: [(&str, Option<i64>, CiState); 26] = [
            ("pending", None, Queued),
            ("waiting", None, Queued),
            ("waiting_failed", None, Skipped),
            ("blocked", None, Blocked),
            ("blocked_failed", None, Failed),
            ("unblocked", None, Queued),
            ("unblocked_failed", None, Failed),
            ("limiting", None, Queued),
            ("limited", None, Queued),
            ("scheduled", None, Queued),
            ("reserved", None, Queued),
            ("assigned", None, Queued),
            ("accepted", None, Queued),
            ("running", None, Running),
            ("finished", Some(0), Passed),
            ("finished", Some(1), Failed),
            ("finished", None, Failed),
            ("canceling", None, Running),
            ("canceled", None, Canceled),
            ("timing_out", None, Running),
            ("timed_out", None, Failed),
            ("skipped", None, Skipped),
            ("broken", None, Skipped),
            ("expired", None, Failed),
            ("platform_limiting", None, Queued),
            ("platform_limited", None, Queued),
        ];
        for (word, exit, state) in table {
            assert_eq!(job(word, exit), state, "{word} {exit:?}");
        }
    }

    #[test]
    fn a_state_never_moves_back() {
        assert!(moves(Queued, Running));
        assert!(moves(Blocked, Running));
        assert!(moves(Running, Passed));
        assert!(!moves(Running, Queued));
        assert!(!moves(Passed, Running));
        assert!(!moves(Failed, Passed));
        assert!(moves(Running, Running));
    }
}
