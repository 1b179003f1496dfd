-- Releases, tags and deployments, per repo.

-- Git's tags as last recorded (an annotated tag peeled to its commit); the recording that
-- brings branches to git's refs brings these too, with tag.created / tag.deleted.
CREATE TABLE tags (
    repo_id    TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    sha        TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (repo_id, name)
);
CREATE INDEX tags_newest ON tags (repo_id, created_at, name);

-- `sort_at` orders the list: a draft by creation, a published release by publish time.
CREATE TABLE releases (
    id           BIGSERIAL PRIMARY KEY,
    repo_id      TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    tag          TEXT NOT NULL,
    title        TEXT,
    notes        TEXT NOT NULL,
    sha          TEXT NOT NULL,
    author       TEXT NOT NULL,
    draft        BOOLEAN NOT NULL,
    created_at   BIGINT NOT NULL,
    published_at BIGINT,
    sort_at      BIGINT NOT NULL,
    UNIQUE (repo_id, tag)
);
CREATE INDEX releases_newest ON releases (repo_id, sort_at, id);
CREATE INDEX releases_published ON releases (repo_id, draft, published_at);

-- A file's bytes live in `<data dir>/releases/<blob>`; a name sent again points the row
-- at a new blob in one step and the old one is removed after the commit.
CREATE TABLE release_files (
    release_id  BIGINT NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    size        BIGINT NOT NULL,
    sha256      TEXT NOT NULL,
    blob        TEXT NOT NULL,
    uploaded_at BIGINT NOT NULL,
    PRIMARY KEY (release_id, name)
);
CREATE INDEX release_files_blob ON release_files (blob);

CREATE TABLE deployments (
    id          BIGSERIAL PRIMARY KEY,
    repo_id     TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    environment TEXT NOT NULL,
    sha         TEXT NOT NULL,
    release     TEXT,
    url         TEXT,
    description TEXT,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX deployments_newest ON deployments (repo_id, id);
