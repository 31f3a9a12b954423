// Delete one batch of stale or duplicate relationships by element id (what a full save into a
// database holding another graph found by reading the stored keys).
UNWIND $element_ids AS element_id
MATCH ()-[r]->()
WHERE elementId(r) = element_id
DELETE r
RETURN count(*) AS deleted
