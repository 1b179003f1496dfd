-- Hooks and their deliveries. A delivery row is written in the transaction of the change
-- it reports; a worker in any server process takes due ones with a lease.

CREATE TABLE hooks (
    id          TEXT PRIMARY KEY,
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    url         TEXT,
    -- The signing key, needed in clear to sign; never answered after createHook.
    secret      TEXT NOT NULL,
    -- Comma-separated: push, branch.opened, merged, tag.
    events      TEXT NOT NULL,
    app         TEXT,
    pipeline    TEXT,
    active      BOOLEAN NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX hooks_monorepo ON hooks (monorepo_id);

-- `body` holds the fields fixed at the change; the label, URLs and tokens are added at
-- each try. `round_tries` counts the tries of the current round of five.
CREATE TABLE hook_deliveries (
    id              TEXT PRIMARY KEY,
    hook_id         TEXT NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
    repo_id         TEXT,
    event           TEXT NOT NULL,
    seq             BIGINT,
    body            TEXT NOT NULL,
    state           TEXT NOT NULL,
    attempts        BIGINT NOT NULL DEFAULT 0,
    round_tries     BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,
    lease_until     BIGINT,
    created_at      BIGINT NOT NULL
);
CREATE INDEX hook_deliveries_due ON hook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX hook_deliveries_hook ON hook_deliveries (hook_id, created_at);
CREATE INDEX hook_deliveries_seq ON hook_deliveries (hook_id, seq);

CREATE TABLE hook_tries (
    delivery_id TEXT NOT NULL REFERENCES hook_deliveries (id) ON DELETE CASCADE,
    at          BIGINT NOT NULL,
    status      INTEGER,
    duration_ms BIGINT NOT NULL,
    error       TEXT
);
CREATE INDEX hook_tries_delivery ON hook_tries (delivery_id, at);

-- Read tokens of deliveries: read-only, one repo, the git door only; hashed.
CREATE TABLE hook_read_tokens (
    token_hash BYTEA PRIMARY KEY,
    repo_id    TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    -- The hook whose delivery carried it; none for a build started by hand.
    hook_id    TEXT REFERENCES hooks (id) ON DELETE CASCADE,
    expires_at BIGINT NOT NULL
);
CREATE INDEX hook_read_tokens_expiry ON hook_read_tokens (expires_at);
