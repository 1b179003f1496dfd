-- Comment threads on artifacts. A root carries the thread's anchor, state and reply
-- count; a reply names its root in `thread`. A deleted root that keeps replies keeps its
-- row with a null body until its last reply goes.

CREATE TABLE artifact_comments (
    id              TEXT PRIMARY KEY,
    artifact_id     TEXT NOT NULL REFERENCES artifacts (id) ON DELETE CASCADE,
    thread          TEXT NOT NULL,
    version         BIGINT NOT NULL,
    anchor          TEXT,
    body            TEXT,
    author_id       TEXT NOT NULL,
    author          TEXT NOT NULL,
    -- Space-separated logins of the members it mentions.
    mentions        TEXT NOT NULL,
    state           TEXT CHECK (state IN ('open', 'resolved')),
    reply_count     BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    body_version    BIGINT NOT NULL,
    -- An `Idempotency-Key` and the request it came with, so a retry answers this comment.
    idempotency_key TEXT,
    request         TEXT,
    UNIQUE (author_id, idempotency_key)
);
CREATE INDEX artifact_comments_thread ON artifact_comments (artifact_id, thread, created_at);
