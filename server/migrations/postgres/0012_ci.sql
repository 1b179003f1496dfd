-- CI: connections to a CI organization, and the builds and jobs its webhooks report.
-- A build's commit status lives in `statuses`, so it outlives the connection.

CREATE TABLE ci_connections (
    id            TEXT PRIMARY KEY,
    monorepo_id   TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    service       TEXT NOT NULL,
    organization  TEXT NOT NULL,
    -- Checks webhooks (a plain token, or the HMAC key); needed in clear to check a MAC.
    webhook_token TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    UNIQUE (monorepo_id, service, organization)
);

-- `id` is the service's own build id. `signed_at` is the newest signed timestamp (whole
-- seconds) applied, so older events never move the build back.
CREATE TABLE ci_builds (
    connection_id TEXT NOT NULL REFERENCES ci_connections (id) ON DELETE CASCADE,
    id            TEXT NOT NULL,
    pipeline      TEXT NOT NULL,
    number        BIGINT NOT NULL,
    state         TEXT NOT NULL,
    service_state TEXT NOT NULL,
    branch        TEXT,
    commit_sha    TEXT,
    message       TEXT,
    web_url       TEXT,
    repo_id       TEXT,
    meta_data     TEXT NOT NULL,
    rebuild_of    TEXT,
    created_at    BIGINT NOT NULL,
    started_at    BIGINT,
    finished_at   BIGINT,
    signed_at     BIGINT NOT NULL,
    PRIMARY KEY (connection_id, id)
);
CREATE INDEX ci_builds_newest ON ci_builds (connection_id, created_at);
CREATE INDEX ci_builds_number ON ci_builds (connection_id, pipeline, number);
CREATE INDEX ci_builds_branch ON ci_builds (repo_id, branch, created_at);

CREATE TABLE ci_jobs (
    connection_id TEXT NOT NULL,
    build_id      TEXT NOT NULL,
    id            TEXT NOT NULL,
    name          TEXT,
    state         TEXT NOT NULL,
    service_state TEXT NOT NULL,
    exit_status   BIGINT,
    web_url       TEXT,
    started_at    BIGINT,
    finished_at   BIGINT,
    retried_by    TEXT,
    PRIMARY KEY (connection_id, id),
    FOREIGN KEY (connection_id, build_id) REFERENCES ci_builds (connection_id, id) ON DELETE CASCADE
);
CREATE INDEX ci_jobs_build ON ci_jobs (connection_id, build_id);
