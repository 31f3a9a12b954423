// Drop the figures of a batch of entities and collections before they are computed again (or
// because the node is gone).
UNWIND $ids AS id
MATCH (f:PaperkgFigures {of: id})
DELETE f
RETURN count(*) AS deleted
