-- Branch facts and merge facts, the merges log, statuses and reviews.

ALTER TABLE repos ADD COLUMN default_head_at BIGINT NOT NULL DEFAULT 0;

ALTER TABLE branches ADD COLUMN sort_at BIGINT NOT NULL DEFAULT 0;
UPDATE branches SET sort_at = pushed_at;
ALTER TABLE branches ADD COLUMN merged_at BIGINT;
ALTER TABLE branches ADD COLUMN merged_by TEXT;
ALTER TABLE branches ADD COLUMN merged_agent TEXT;
ALTER TABLE branches ADD COLUMN merge_sha TEXT;
ALTER TABLE branches ADD COLUMN forced BOOLEAN;
ALTER TABLE branches ADD COLUMN facts_head TEXT;
ALTER TABLE branches ADD COLUMN facts_main TEXT;
ALTER TABLE branches ADD COLUMN facts_at BIGINT;
ALTER TABLE branches ADD COLUMN ahead BIGINT;
ALTER TABLE branches ADD COLUMN behind BIGINT;
ALTER TABLE branches ADD COLUMN base TEXT;
ALTER TABLE branches ADD COLUMN mergeable TEXT;
ALTER TABLE branches ADD COLUMN conflicts TEXT;
CREATE INDEX branches_list ON branches (repo_id, sort_at DESC, name);
CREATE INDEX branches_recent ON branches (state, pushed_at DESC);

-- A merge is written here before main's ref moves and marked done when recorded, so a
-- crash in between is finished (or dropped) by the next recording.
CREATE TABLE merges (
    repo_id      TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    sha          TEXT NOT NULL,
    branch       TEXT NOT NULL,
    head         TEXT NOT NULL,
    merged_by    TEXT NOT NULL,
    merged_agent TEXT,
    forced       BOOLEAN NOT NULL,
    merged_at    BIGINT NOT NULL,
    done         BOOLEAN NOT NULL,
    PRIMARY KEY (repo_id, sha)
);

-- The latest status per (commit, context).
CREATE TABLE statuses (
    repo_id     TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    sha         TEXT NOT NULL,
    context     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('pending', 'success', 'failure', 'error')),
    target_url  TEXT,
    description TEXT,
    creator     TEXT NOT NULL,
    app         TEXT,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (repo_id, sha, context)
);

CREATE TABLE reviews (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    repo_id    TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    branch     TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('comment', 'approve', 'request_changes')),
    body       TEXT NOT NULL,
    author     TEXT NOT NULL,
    agent      TEXT,
    head       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX reviews_branch ON reviews (repo_id, branch, id);
