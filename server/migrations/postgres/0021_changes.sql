-- A change: the branches of one name in several repos, landed together (mergeChange).
-- Its merges are written with the change's id and the main each moves from, so a crash
-- between the ref moves and their recording is finished or put back whole at start-up.
ALTER TABLE merges ADD COLUMN change_id TEXT;
ALTER TABLE merges ADD COLUMN main_before TEXT;
CREATE INDEX merges_change ON merges (change_id) WHERE change_id IS NOT NULL AND NOT done;
