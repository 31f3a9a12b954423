// name: evaluated_on
// description: Methods and models evaluated on a dataset or benchmark, with the number of supporting papers.
// param: name entity required example=GSM8K
MATCH (d:Dataset|Benchmark)
WHERE $name_key IN d.keys
MATCH (m:Method|Model)-[r:EVALUATED_ON]->(d)
RETURN d.id AS dataset, m.id AS id, m.name AS name, m.type AS type, r.support AS support
ORDER BY support DESC, name, id, dataset
