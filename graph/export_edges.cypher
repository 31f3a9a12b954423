// The relationships of one type with their endpoints and properties.
MATCH (a)-[r:{type}]->(b)
RETURN labels(a) AS source_labels, a.id AS source, labels(b) AS target_labels, b.id AS target,
       properties(r) AS props
