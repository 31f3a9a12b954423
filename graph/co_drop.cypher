// Delete the co-mention entries of a batch of [entity, other] pairs (their count fell to 0).
UNWIND $pairs AS pair
MATCH (c:PaperkgCo {of: pair[0], other: pair[1]})
DELETE c
RETURN count(*) AS deleted
