-- Artifacts: versioned documents and images on a branch. A version's files are rows
-- here; their bytes live in `<data dir>/artifacts/<artifact id>/<sha256>`, so versions
-- sharing an image store it once and deleting the artifact removes its folder.

CREATE TABLE artifacts (
    id         TEXT PRIMARY KEY,
    repo_id    TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    branch     TEXT NOT NULL,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('document', 'image')),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (repo_id, branch, name)
);
CREATE INDEX artifacts_newest ON artifacts (repo_id, branch, updated_at);

CREATE TABLE artifact_versions (
    artifact_id TEXT NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    n           BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    created_by  TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    size        BIGINT NOT NULL,
    PRIMARY KEY (artifact_id, n)
);

-- `position` 0 is the main file (its path is the artifact's name).
CREATE TABLE artifact_files (
    artifact_id  TEXT NOT NULL,
    n            BIGINT NOT NULL,
    position     BIGINT NOT NULL,
    path         TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    size         BIGINT NOT NULL,
    content_type TEXT NOT NULL,
    PRIMARY KEY (artifact_id, n, position),
    UNIQUE (artifact_id, n, path),
    FOREIGN KEY (artifact_id, n) REFERENCES artifact_versions (artifact_id, n) ON DELETE CASCADE
);
