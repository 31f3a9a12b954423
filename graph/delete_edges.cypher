// Delete one batch of stale or duplicate relationships by element id.
UNWIND $element_ids AS element_id
MATCH ()-[r]->()
WHERE elementId(r) = element_id
DELETE r
RETURN count(*) AS deleted
