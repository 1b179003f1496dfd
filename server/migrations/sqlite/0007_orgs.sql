-- Organizations: a namespace of kind 'org' (the namespaces table), with its people and
-- the invites waiting for an email. A person's role in an org's monorepo is the higher of
-- their own membership row and their org_members row.

CREATE TABLE orgs (
    login       TEXT PRIMARY KEY REFERENCES namespaces (login),
    name        TEXT,
    description TEXT,
    picture_url TEXT,
    created_at  BIGINT NOT NULL
);

CREATE TABLE org_members (
    org      TEXT NOT NULL REFERENCES orgs (login) ON DELETE CASCADE,
    user_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role     TEXT NOT NULL CHECK (role IN ('owner', 'member')),
    added_at BIGINT NOT NULL,
    -- The login of who added them; null for the org's creator.
    added_by TEXT,
    PRIMARY KEY (org, user_id)
);
CREATE INDEX org_members_user ON org_members (user_id);

CREATE TABLE org_invites (
    org        TEXT NOT NULL REFERENCES orgs (login) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('owner', 'member')),
    invited_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (org, email)
);
CREATE INDEX org_invites_email ON org_invites (email);
