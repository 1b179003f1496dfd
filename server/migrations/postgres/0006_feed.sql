-- The activity feed: one line per activity event, written in the event's transaction.

-- `landed` is the feed's global arrival number. Writers take it from this one counter
-- row (UPDATE ... RETURNING), which serializes them, so lines land in commit order.
-- `pruned` is the highest `landed` the retention task has removed: a replay from
-- before it cannot be complete.
CREATE TABLE feed_counter (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    landed BIGINT NOT NULL,
    pruned BIGINT NOT NULL
);
INSERT INTO feed_counter (id, landed, pruned) VALUES (1, 0, 0);

-- `n` numbers a monorepo's lines for its `feed` topic; `feed_at` is when its latest
-- line happened, for "most recently active first".
ALTER TABLE monorepos ADD COLUMN feed_n BIGINT NOT NULL DEFAULT 0;
ALTER TABLE monorepos ADD COLUMN feed_at BIGINT NOT NULL DEFAULT 0;

CREATE TABLE feed (
    landed      BIGINT PRIMARY KEY,
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    n           BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    actor       TEXT,
    at          BIGINT NOT NULL,
    -- The line's details (repo, branch, commits, state, ...) as JSON.
    line        TEXT NOT NULL
);
CREATE INDEX feed_display ON feed (monorepo_id, at, seq);
CREATE INDEX feed_topic ON feed (monorepo_id, n);
CREATE INDEX feed_age ON feed (at);
