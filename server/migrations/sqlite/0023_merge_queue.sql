-- The merge queue: with `merge_queue = true` for a repo in `.svc/svc.toml`, a merge
-- joins the repo's queue. Each entry is tested as a speculative merge commit of main,
-- the entries ahead of it and its branch (`speculative_sha`, made on `base_sha`, under
-- `refs/svc/queue/<id>`); main moves to exactly that commit once its required checks
-- pass and every entry ahead has landed. `state`: queued, testing, landed, left (with
-- `reason`: checks_failed, conflict, timeout, by_hand, ...).
CREATE TABLE queue_entries (
    id              TEXT PRIMARY KEY,
    repo_id         TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    branch          TEXT NOT NULL,
    seq             BIGINT NOT NULL,
    state           TEXT NOT NULL,
    reason          TEXT,
    head            TEXT NOT NULL,
    speculative_sha TEXT,
    base_sha        TEXT,
    enqueued_user   TEXT NOT NULL,
    enqueued_by     TEXT NOT NULL,
    enqueued_agent  TEXT,
    created_at      BIGINT NOT NULL,
    deadline        BIGINT NOT NULL,
    ended_at        BIGINT
);
CREATE UNIQUE INDEX queue_entries_seq ON queue_entries (repo_id, seq);
CREATE INDEX queue_entries_active ON queue_entries (repo_id, seq) WHERE state IN ('queued', 'testing');
