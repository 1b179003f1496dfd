-- Identity: namespaces, users, credentials and the sign-in flows.
-- Times are unix milliseconds (BIGINT) so both backends share every query.

CREATE TABLE namespaces (
    login      TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('user', 'org')),
    created_at BIGINT NOT NULL
);

CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    login          TEXT NOT NULL UNIQUE REFERENCES namespaces (login),
    email          TEXT UNIQUE,
    email_verified BOOLEAN NOT NULL DEFAULT FALSE,
    name           TEXT,
    picture_url    TEXT,
    password_hash  TEXT,
    created_at     BIGINT NOT NULL
);

CREATE TABLE identities (
    issuer  TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (issuer, subject)
);

CREATE TABLE credentials (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('machine', 'sandbox', 'browser')),
    token_hash   BYTEA NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    expires_at   BIGINT
);
CREATE INDEX credentials_user ON credentials (user_id, created_at);

CREATE TABLE device_codes (
    device_code_hash BYTEA PRIMARY KEY,
    user_code        TEXT NOT NULL UNIQUE,
    machine          TEXT,
    state            TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'issued')),
    user_id          TEXT REFERENCES users (id) ON DELETE CASCADE,
    interval_secs    BIGINT NOT NULL,
    last_poll_at     BIGINT,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL
);

CREATE TABLE login_states (
    state         TEXT PRIMARY KEY,
    nonce         TEXT NOT NULL,
    pkce_verifier TEXT NOT NULL,
    return_to     TEXT NOT NULL,
    expires_at    BIGINT NOT NULL
);
