// One batch of every figure node (a full save computes them all again).
MATCH (f:PaperkgFigures|PaperkgCo)
WITH f LIMIT $limit
DELETE f
RETURN count(*) AS deleted
