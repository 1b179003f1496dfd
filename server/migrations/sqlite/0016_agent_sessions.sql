-- Agent sessions: coding agents the server runs as their launcher, and their
-- transcripts. A chat has no repo or branch; a review names the branch it reviews.

CREATE TABLE agent_sessions (
    id            TEXT PRIMARY KEY,
    monorepo_id   TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    repo_id       TEXT,
    kind          TEXT NOT NULL CHECK (kind IN ('task', 'review', 'chat')),
    state         TEXT NOT NULL CHECK (state IN ('launching', 'running', 'idle', 'stopped', 'failed')),
    reason        TEXT,
    branch        TEXT,
    model         TEXT NOT NULL,
    prompt        TEXT NOT NULL,
    launcher_id   TEXT NOT NULL,
    launcher      TEXT NOT NULL,
    -- The session's `cloud-` credential (revoked when it fails to start).
    credential_id TEXT,
    issue_number  BIGINT,
    -- The transcript index of the latest message to the agent (the prompt is 0): a run
    -- that ends having been given less runs again with what came since.
    asked         BIGINT NOT NULL DEFAULT 0,
    -- Counts the session's runs; a run writes its end only while it is the latest.
    run_no        BIGINT NOT NULL DEFAULT 0,
    -- Until when the process running it vouches for it; a lapsed lease means that
    -- process died, and the session is failed.
    lease_until   BIGINT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX agent_sessions_newest ON agent_sessions (monorepo_id, created_at);
CREATE INDEX agent_sessions_live ON agent_sessions (state);

CREATE TABLE agent_messages (
    session_id TEXT NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
    idx        BIGINT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    at         BIGINT NOT NULL,
    -- The message's parts as JSON.
    parts      TEXT NOT NULL,
    PRIMARY KEY (session_id, idx)
);

-- What a credential is confined to, when it is an agent session's: `monorepo <id>` (all
-- its person may do in that monorepo, nothing outside it) or `review <monorepo id>
-- <repo id> <branch>` (read that monorepo, post reviews on that branch, nothing else).
ALTER TABLE credentials ADD COLUMN scope TEXT;
