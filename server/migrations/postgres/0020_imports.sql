-- Imports of an existing project's history into a repo. The repo's row is written only
-- when the import is done (`repo_id` names it from the start: the new repo's id, or the
-- existing empty repo being filled).
CREATE TABLE imports (
    id          TEXT PRIMARY KEY,
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    path        TEXT NOT NULL,
    name        TEXT NOT NULL,
    repo_id     TEXT NOT NULL,
    state       TEXT NOT NULL,
    error       TEXT NULL,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE INDEX imports_monorepo ON imports (monorepo_id, created_at);
