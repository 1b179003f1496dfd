-- People on a self-hosted server: site admins, disabling a person, and one-time sign-in
-- links (a person made by an operator or an admin sets a password through one; an
-- invitee with no account makes it through one).
ALTER TABLE users ADD COLUMN site_admin BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN disabled_at BIGINT NULL;
-- The server's first person runs it: the earliest user is its first site admin.
UPDATE users SET site_admin = TRUE
WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1);

-- A link's token is kept only as its SHA-256. A link for an existing account names it
-- (user_id); an invite's link names none and makes the account for its email.
CREATE TABLE sign_in_links (
    token_hash BLOB PRIMARY KEY,
    email      TEXT NOT NULL,
    user_id    TEXT NULL REFERENCES users (id) ON DELETE CASCADE,
    invited_by TEXT NULL REFERENCES users (id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT NULL
);
CREATE INDEX sign_in_links_email ON sign_in_links (email);
