-- A change through the merge queue: mergeChange on repos with a queue puts the change's
-- branch in each repo's queue as one entry per repo sharing `change_id`. The entries
-- land together (every main moves, or none) once each is at the front of its queue
-- and its gate passes; one that leaves takes the others with it.
ALTER TABLE queue_entries ADD COLUMN change_id TEXT;
CREATE INDEX queue_entries_change ON queue_entries (change_id) WHERE change_id IS NOT NULL;
