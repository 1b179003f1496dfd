-- The label count trigger serializes on the monorepo's row with FOR NO KEY UPDATE, the
-- lock createIssue already holds from bumping `last_issue`, instead of FOR UPDATE. FOR
-- UPDATE also waits for KEY SHARE locks (a foreign-key check of a row naming the
-- monorepo), so a createIssue waiting for a push's recording to let go of its KEY SHARE
-- while that recording waited to bump `last_seq` on the row deadlocked (found by the
-- soak: hundreds of 500s a run under a mixed load).
CREATE OR REPLACE FUNCTION issue_labels_count() RETURNS trigger LANGUAGE plpgsql AS $$
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
    PERFORM 1 FROM monorepos WHERE id = mono FOR NO KEY UPDATE;
    UPDATE labels SET open_issues = open_issues + sign * (st = 'open')::int,
        closed_issues = closed_issues + sign * (st = 'closed')::int
    WHERE id = label_id_;
    RETURN NULL;
END $$;
