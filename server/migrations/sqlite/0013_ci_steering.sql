-- Steering CI builds: a credential's permissions, and the pipeline configurations read
-- from the CI service (at most every 5 minutes).

-- Space-separated permission names. Machines and browser sessions hold every one
-- (`write_builds`); a sandbox only what it was made with.
ALTER TABLE credentials ADD COLUMN permissions TEXT NOT NULL DEFAULT 'write_builds';
UPDATE credentials SET permissions = '' WHERE kind = 'sandbox';

-- The last copy of a pipeline as the service described it. `read_at` is when a read was
-- last tried; `error` why it failed (the other columns then keep the last good copy).
CREATE TABLE ci_pipelines (
    connection_id  TEXT NOT NULL REFERENCES ci_connections (id) ON DELETE CASCADE,
    slug           TEXT NOT NULL,
    name           TEXT,
    web_url        TEXT,
    repository     TEXT,
    default_branch TEXT,
    configuration  TEXT,
    read_at        BIGINT NOT NULL,
    error          TEXT,
    PRIMARY KEY (connection_id, slug)
);
