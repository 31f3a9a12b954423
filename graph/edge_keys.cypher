// Every stored relationship of one type with its endpoints, to find stale and duplicate ones.
MATCH (a)-[r:{type}]->(b)
RETURN elementId(r) AS element_id, labels(a) AS source_labels, a.id AS source,
       labels(b) AS target_labels, b.id AS target
