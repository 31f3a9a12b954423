// Delete one batch of stale nodes (and their relationships) by element id.
UNWIND $element_ids AS element_id
MATCH (n)
WHERE elementId(n) = element_id
DETACH DELETE n
RETURN count(*) AS deleted
