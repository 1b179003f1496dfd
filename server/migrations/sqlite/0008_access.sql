-- Who can open which monorepo, one row per source of access: the person's own
-- membership row (`direct`), or their org_members row in the org that owns the
-- monorepo (`org`). A person's role is the highest of their rows ('owner' > 'member'
-- as text, so MAX picks it). Every access query reads this view; both databases push
-- a query's monorepo and user conditions into each side, so each stays an index lookup.
CREATE VIEW monorepo_access AS
SELECT monorepo_id, user_id, role, 'direct' AS via, added_at, added_by
  FROM memberships
UNION ALL
SELECT m.id AS monorepo_id, o.user_id, o.role, 'org' AS via, o.added_at, o.added_by
  FROM org_members o JOIN monorepos m ON m.owner = o.org;
