-- Issues and labels, monorepo-wide. Numbers count from 1 per monorepo (`last_issue`,
-- bumped in the create transaction, so concurrent creates never share one).

ALTER TABLE monorepos ADD COLUMN last_issue BIGINT NOT NULL DEFAULT 0;
-- listIssues' open and closed counts without a filter, and per label below, kept by the
-- triggers at the end: counting a label's issues at every list read grows with them.
-- Further repos an event concerns, one per line, for `repo:<name>` topics: an issue's
-- linked branches' repos beside its project (`repo`).
ALTER TABLE events ADD COLUMN also_repos TEXT;
ALTER TABLE monorepos ADD COLUMN open_issues BIGINT NOT NULL DEFAULT 0;
ALTER TABLE monorepos ADD COLUMN closed_issues BIGINT NOT NULL DEFAULT 0;

CREATE TABLE labels (
    id          BIGSERIAL PRIMARY KEY,
    monorepo_id TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    -- The name lower case: names are unique without case.
    name_key    TEXT NOT NULL,
    color       TEXT NOT NULL,
    description TEXT,
    open_issues   BIGINT NOT NULL DEFAULT 0,
    closed_issues BIGINT NOT NULL DEFAULT 0,
    UNIQUE (monorepo_id, name_key)
);

-- The four labels every monorepo starts with.
INSERT INTO labels (monorepo_id, name, name_key, color, description)
SELECT m.id, d.name, d.name, d.color, d.description FROM monorepos m, (
    SELECT 'bug' AS name, 'orange' AS color, 'Something does not work' AS description
    UNION ALL SELECT 'enhancement', 'blue', 'New feature or request'
    UNION ALL SELECT 'documentation', 'teal', 'Improvements or additions to documentation'
    UNION ALL SELECT 'question', 'purple', 'Further information is requested') d;

CREATE TABLE issues (
    id           BIGSERIAL PRIMARY KEY,
    monorepo_id  TEXT NOT NULL REFERENCES monorepos (id) ON DELETE CASCADE,
    number       BIGINT NOT NULL,
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    body_version BIGINT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    state_reason TEXT,
    author       TEXT NOT NULL,
    project      TEXT,
    comments     BIGINT NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    closed_at    BIGINT,
    UNIQUE (monorepo_id, number)
);
CREATE INDEX issues_state_number ON issues (monorepo_id, state, number);
CREATE INDEX issues_state_updated ON issues (monorepo_id, state, updated_at, number);

CREATE TABLE issue_labels (
    issue_id BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    label_id BIGINT NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
    PRIMARY KEY (issue_id, label_id)
);
CREATE INDEX issue_labels_label ON issue_labels (label_id, issue_id);

CREATE TABLE issue_assignees (
    issue_id BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    login    TEXT NOT NULL,
    PRIMARY KEY (issue_id, login)
);
CREATE INDEX issue_assignees_login ON issue_assignees (login);

CREATE TABLE issue_links (
    issue_id BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    repo     TEXT NOT NULL,
    branch   TEXT NOT NULL,
    PRIMARY KEY (issue_id, repo, branch)
);

CREATE TABLE issue_comments (
    id         BIGSERIAL PRIMARY KEY,
    issue_id   BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX issue_comments_issue ON issue_comments (issue_id, id);

-- One per person and content; `comment_id` 0 is the issue itself.
CREATE TABLE issue_reactions (
    issue_id   BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    comment_id BIGINT NOT NULL,
    login      TEXT NOT NULL,
    content    TEXT NOT NULL,
    PRIMARY KEY (issue_id, comment_id, content, login)
);

-- Comments and events, oldest first; a comment's item goes with the comment.
CREATE TABLE issue_timeline (
    id         BIGSERIAL PRIMARY KEY,
    issue_id   BIGINT NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    actor      TEXT NOT NULL,
    comment_id BIGINT REFERENCES issue_comments (id) ON DELETE CASCADE,
    details    TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX issue_timeline_issue ON issue_timeline (issue_id, id);

-- createIssue's Idempotency-Key, per person, kept 24 hours.
CREATE TABLE idempotency_keys (
    user_id     TEXT NOT NULL,
    key         TEXT NOT NULL,
    request     TEXT NOT NULL,
    monorepo_id TEXT NOT NULL,
    number      BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (user_id, key)
);

-- Full-text search over titles and bodies (folded to lower case without accents before
-- they are written, config `simple`), kept in step in the issue's transactions.
ALTER TABLE issues ADD COLUMN search tsvector;
CREATE INDEX issues_search ON issues USING GIN (search);

-- The counters follow every issue insert, state change and label change (cascades too).
-- Each trigger takes the monorepo's row first, so every transaction that moves a label's
-- counter already holds it: label rows are never locked in two orders.
CREATE FUNCTION issues_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d_open BIGINT := 0;
    d_closed BIGINT := 0;
    mono TEXT;
BEGIN
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        mono := NEW.monorepo_id;
        d_open := d_open + (NEW.state = 'open')::int;
        d_closed := d_closed + (NEW.state = 'closed')::int;
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        mono := OLD.monorepo_id;
        d_open := d_open - (OLD.state = 'open')::int;
        d_closed := d_closed - (OLD.state = 'closed')::int;
    END IF;
    UPDATE monorepos SET open_issues = open_issues + d_open,
        closed_issues = closed_issues + d_closed WHERE id = mono;
    IF TG_OP = 'UPDATE' THEN
        UPDATE labels SET open_issues = open_issues + d_open,
            closed_issues = closed_issues + d_closed
        WHERE id IN (SELECT label_id FROM issue_labels WHERE issue_id = NEW.id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER issues_count AFTER INSERT OR DELETE ON issues
    FOR EACH ROW EXECUTE FUNCTION issues_count();
CREATE TRIGGER issues_count_state AFTER UPDATE OF state ON issues
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION issues_count();

CREATE FUNCTION issue_labels_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sign BIGINT := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
    issue_id_ BIGINT := CASE WHEN TG_OP = 'INSERT' THEN NEW.issue_id ELSE OLD.issue_id END;
    label_id_ BIGINT := CASE WHEN TG_OP = 'INSERT' THEN NEW.label_id ELSE OLD.label_id END;
    mono TEXT;
    st TEXT;
BEGIN
    SELECT monorepo_id, state INTO mono, st FROM issues WHERE id = issue_id_;
    -- The issue or the label going too (a monorepo or label deleted): nothing to count,
    -- and no lock to take after the label's.
    IF mono IS NULL OR NOT EXISTS (SELECT 1 FROM labels WHERE id = label_id_) THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM monorepos WHERE id = mono FOR UPDATE;
    UPDATE labels SET open_issues = open_issues + sign * (st = 'open')::int,
        closed_issues = closed_issues + sign * (st = 'closed')::int
    WHERE id = label_id_;
    RETURN NULL;
END $$;
CREATE TRIGGER issue_labels_count AFTER INSERT OR DELETE ON issue_labels
    FOR EACH ROW EXECUTE FUNCTION issue_labels_count();
