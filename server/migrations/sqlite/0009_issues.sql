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
    id          INTEGER PRIMARY KEY,
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
    id           INTEGER PRIMARY KEY,
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
    id         INTEGER PRIMARY KEY,
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
    id         INTEGER PRIMARY KEY,
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
-- they are written), kept in step in the issue's transactions; rowid = issues.id. Prefix
-- indexes of 2 and 3 characters keep a short last word from expanding to every term.
CREATE VIRTUAL TABLE issue_search USING fts5 (title, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');

-- The counters follow every issue insert, state change and label change (cascades too;
-- an issue already gone goes with its monorepo, whose labels go too).
CREATE TRIGGER issues_count_insert AFTER INSERT ON issues BEGIN
    UPDATE monorepos SET open_issues = open_issues + (NEW.state = 'open'),
        closed_issues = closed_issues + (NEW.state = 'closed')
    WHERE id = NEW.monorepo_id;
END;
CREATE TRIGGER issues_count_delete AFTER DELETE ON issues BEGIN
    UPDATE monorepos SET open_issues = open_issues - (OLD.state = 'open'),
        closed_issues = closed_issues - (OLD.state = 'closed')
    WHERE id = OLD.monorepo_id;
END;
CREATE TRIGGER issues_count_state AFTER UPDATE OF state ON issues
WHEN OLD.state <> NEW.state BEGIN
    UPDATE monorepos SET open_issues = open_issues + (NEW.state = 'open') - (OLD.state = 'open'),
        closed_issues = closed_issues + (NEW.state = 'closed') - (OLD.state = 'closed')
    WHERE id = NEW.monorepo_id;
    UPDATE labels SET open_issues = open_issues + (NEW.state = 'open') - (OLD.state = 'open'),
        closed_issues = closed_issues + (NEW.state = 'closed') - (OLD.state = 'closed')
    WHERE id IN (SELECT label_id FROM issue_labels WHERE issue_id = NEW.id);
END;
CREATE TRIGGER issue_labels_count_insert AFTER INSERT ON issue_labels BEGIN
    UPDATE labels SET
        open_issues = open_issues + IFNULL((SELECT state = 'open' FROM issues WHERE id = NEW.issue_id), 0),
        closed_issues = closed_issues + IFNULL((SELECT state = 'closed' FROM issues WHERE id = NEW.issue_id), 0)
    WHERE id = NEW.label_id;
END;
CREATE TRIGGER issue_labels_count_delete AFTER DELETE ON issue_labels BEGIN
    UPDATE labels SET
        open_issues = open_issues - IFNULL((SELECT state = 'open' FROM issues WHERE id = OLD.issue_id), 0),
        closed_issues = closed_issues - IFNULL((SELECT state = 'closed' FROM issues WHERE id = OLD.issue_id), 0)
    WHERE id = OLD.label_id;
END;
