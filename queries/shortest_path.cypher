// name: shortest_path
// description: A shortest chain of entities and papers (mentions and relations, up to 6 steps) between two entities.
// param: from entity required example=GRPO
// param: to entity required example=RLHF
// One row per step. Of several shortest chains the one with the smallest node ids (then the smallest
// `via` list) is returned, so every store gives the same chain. via is the edge from the previous step:
// `-TYPE->` when it points forward along the chain, `<-TYPE-` when it points back. Collections are not
// traversed (every paper pair would be two steps apart through them).
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $from_query) YIELD node AS a
WHERE $from_key IN a.keys
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $to_query) YIELD node AS b
WHERE $to_key IN b.keys AND b <> a
MATCH path = allShortestPaths((a)-[:MENTIONS|EVALUATED_ON|COMPARED_WITH|USES|ADDRESSES|MEASURED_BY*..6]-(b))
WITH path, [n IN nodes(path) | n.id] AS ids,
     [i IN range(0, length(path) - 1) |
       CASE WHEN startNode(relationships(path)[i]) = nodes(path)[i]
            THEN '-' + type(relationships(path)[i]) + '->'
            ELSE '<-' + type(relationships(path)[i]) + '-' END] AS vias
ORDER BY length(path), ids, vias
LIMIT 1
UNWIND range(0, length(path)) AS step
WITH step, nodes(path)[step] AS n, CASE WHEN step = 0 THEN null ELSE vias[step - 1] END AS via
RETURN step, via, n.id AS id, coalesce(n.type, 'Paper') AS type, coalesce(n.name, n.title, n.id) AS name
ORDER BY step
