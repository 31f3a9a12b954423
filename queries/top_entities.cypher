// name: top_entities
// description: The most-mentioned entities of one type (by number of papers).
// param: type entity_type required example=Dataset
// param: limit int optional default=20 min=1 max=1000 example=10
// Labels cannot be parameters, and a dynamic label (`MATCH (e:$($type))`) makes Neo4j 5.26 scan
// every node; so one branch per label (the closed set), of which CASE runs only the one named.
// Each branch reads its label's range index on `paper_count` (graph/schema.cypher) in descending
// order and stops after `$limit` entities (ties broken by name, id), instead of sorting them all.
WITH CASE $type
  WHEN 'Method' THEN COLLECT { MATCH (e:Method) WHERE e.paper_count IS NOT NULL AND e.type = $type
                               RETURN e ORDER BY e.paper_count DESC, e.name, e.id LIMIT $limit }
  WHEN 'Model' THEN COLLECT { MATCH (e:Model) WHERE e.paper_count IS NOT NULL AND e.type = $type
                              RETURN e ORDER BY e.paper_count DESC, e.name, e.id LIMIT $limit }
  WHEN 'Dataset' THEN COLLECT { MATCH (e:Dataset) WHERE e.paper_count IS NOT NULL AND e.type = $type
                                RETURN e ORDER BY e.paper_count DESC, e.name, e.id LIMIT $limit }
  WHEN 'Benchmark' THEN COLLECT { MATCH (e:Benchmark) WHERE e.paper_count IS NOT NULL AND e.type = $type
                                  RETURN e ORDER BY e.paper_count DESC, e.name, e.id LIMIT $limit }
  WHEN 'Metric' THEN COLLECT { MATCH (e:Metric) WHERE e.paper_count IS NOT NULL AND e.type = $type
                               RETURN e ORDER BY e.paper_count DESC, e.name, e.id LIMIT $limit }
  WHEN 'Task' THEN COLLECT { MATCH (e:Task) WHERE e.paper_count IS NOT NULL AND e.type = $type
                             RETURN e ORDER BY e.paper_count DESC, e.name, e.id LIMIT $limit }
  ELSE [] END AS found
UNWIND found AS e
RETURN e.id AS id, e.name AS name, e.type AS type, e.paper_count AS papers,
       e.introduced_count AS introduced
ORDER BY papers DESC, name, id
