-- Presence: reported worktrees, machines, live socket connections and the server
-- processes that hold them.

-- Branch worktrees reported by machines (PUT {m}/worktrees/{id}).
CREATE TABLE worktrees (
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    id          TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    machine     TEXT NOT NULL,
    repo_id     TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    branch      TEXT NOT NULL,
    path        TEXT,
    reported_at BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (monorepo_id, id)
);
CREATE INDEX worktrees_machine ON worktrees (monorepo_id, machine);

-- One row per (person, machine) seen in a monorepo. `worktrees` is a JSON array of ids;
-- `event_at` is when machine.updated last went out (activity alone is throttled).
CREATE TABLE machines (
    monorepo_id      TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    machine          TEXT NOT NULL,
    worktrees        TEXT NOT NULL,
    last_action_kind TEXT NOT NULL,
    last_action_at   BIGINT NOT NULL,
    event_at         BIGINT NOT NULL,
    PRIMARY KEY (monorepo_id, user_id, machine)
);

-- Sockets that said hello, owned by the server process holding them.
CREATE TABLE presence_connections (
    socket_id       TEXT PRIMARY KEY,
    monorepo_id     TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    login           TEXT NOT NULL,
    credential_id   TEXT NOT NULL,
    credential_name TEXT NOT NULL,
    machine         TEXT NOT NULL,
    worktrees       TEXT NOT NULL,
    process_id      TEXT NOT NULL,
    connected_at    BIGINT NOT NULL
);
CREATE INDEX presence_connections_monorepo ON presence_connections (monorepo_id, user_id, machine);
CREATE INDEX presence_connections_process ON presence_connections (process_id);

-- Live server processes; a process silent for a minute has its connections swept.
CREATE TABLE server_processes (
    id           TEXT PRIMARY KEY,
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);
