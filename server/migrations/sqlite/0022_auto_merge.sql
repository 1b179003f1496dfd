-- Auto-merge: a branch armed to merge itself once its gate passes, as the person who
-- armed it (their id and login, and the agent of the session whose credential armed
-- it). Null when not armed; merging, deleting and disarming clear it.
ALTER TABLE branches ADD COLUMN auto_merge_user TEXT;
ALTER TABLE branches ADD COLUMN auto_merge_by TEXT;
ALTER TABLE branches ADD COLUMN auto_merge_agent TEXT;
ALTER TABLE branches ADD COLUMN auto_merge_at BIGINT;
CREATE INDEX branches_auto_merge ON branches (repo_id) WHERE auto_merge_by IS NOT NULL;
