// Delete one batch of stale nodes (and their relationships) by element id (what a full save into a
// database holding another graph found by reading the stored ids).
UNWIND $element_ids AS element_id
MATCH (n)
WHERE elementId(n) = element_id
DETACH DELETE n
RETURN count(*) AS deleted
