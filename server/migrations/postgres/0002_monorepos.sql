-- Monorepos, their members, invites and old labels; repos, branches and the event log.

CREATE TABLE monorepos (
    id         TEXT PRIMARY KEY,
    owner      TEXT NOT NULL REFERENCES namespaces (login),
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('monorepo', 'repo')),
    last_seq   BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    UNIQUE (owner, name)
);

-- Old labels left by renames and transfers; they answer until the name is given away.
CREATE TABLE monorepo_aliases (
    owner       TEXT NOT NULL,
    name        TEXT NOT NULL,
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    PRIMARY KEY (owner, name)
);

CREATE TABLE memberships (
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'member')),
    added_at    BIGINT NOT NULL,
    added_by    TEXT,
    PRIMARY KEY (monorepo_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

CREATE TABLE monorepo_invites (
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    email       TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'member')),
    invited_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (monorepo_id, email)
);
CREATE INDEX monorepo_invites_email ON monorepo_invites (email);

CREATE TABLE repos (
    id              TEXT PRIMARY KEY,
    monorepo_id     TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    path            TEXT NOT NULL,
    is_meta         BOOLEAN NOT NULL DEFAULT FALSE,
    default_branch  TEXT NOT NULL DEFAULT 'main',
    default_head    TEXT,
    releases_public BOOLEAN NOT NULL DEFAULT FALSE,
    created_at      BIGINT NOT NULL,
    UNIQUE (monorepo_id, name)
);

CREATE TABLE branches (
    repo_id     TEXT NOT NULL REFERENCES repos (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    head        TEXT NOT NULL,
    author      TEXT,
    pusher      TEXT,
    state       TEXT NOT NULL CHECK (state IN ('open', 'merged', 'deleted')),
    title       TEXT,
    description TEXT,
    created_at  BIGINT NOT NULL,
    pushed_at   BIGINT NOT NULL,
    PRIMARY KEY (repo_id, name)
);

-- Every change, written in the transaction of the change; seq counts per monorepo.
CREATE TABLE events (
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    repo        TEXT,
    collection  TEXT NOT NULL,
    key         TEXT NOT NULL,
    op          TEXT NOT NULL CHECK (op IN ('upsert', 'delete')),
    body        TEXT NOT NULL,
    at          BIGINT NOT NULL,
    PRIMARY KEY (monorepo_id, seq)
);
