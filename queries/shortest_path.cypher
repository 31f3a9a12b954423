// name: shortest_path
// description: A shortest chain of entities and papers (mentions and relations, up to 6 steps) between two entities.
// param: from entity required example=GRPO
// param: to entity required example=RLHF
// One row per step. Of several shortest chains the one with the smallest node ids (then the smallest
// `via` list) is returned, so every store gives the same chain. via is the edge from the previous step:
// `-TYPE->` when it points forward along the chain, `<-TYPE-` when it points back. Collections are not
// traversed (every paper pair would be two steps apart through them).
// Chains of one and two steps are looked for first, because popular entities are nearly always that
// close and `allShortestPaths` would list every one of their thousands of shared papers only to keep
// the smallest: one step is a relation; two steps go through an entity related to both or through a
// paper mentioning both, and the paper with the smallest id is found the cheaper of two ways (as in
// papers_mentioning): walking papers in id order until one mentions both, which visits about
// papers^2 / (mentions of a x mentions of b) papers, or expanding the rarer entity's mentions. The
// best chain through an entity comes first and bounds the paper search: only a paper whose id sorts
// below that entity's can win, and when few papers do, walking just those is cheapest.
// Longer chains fall back to allShortestPaths.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $from_query) YIELD node AS a
WHERE $from_key IN a.keys
WITH collect(a) AS froms
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $to_query) YIELD node AS b
WHERE $to_key IN b.keys
WITH froms, collect(b) AS tos, COUNT { MATCH (p:Paper) } AS all_papers
WITH froms, tos, all_papers, head(COLLECT {
  UNWIND froms AS a UNWIND tos AS b
  WITH a, b WHERE a <> b
  MATCH (a)-[r:EVALUATED_ON|COMPARED_WITH|USES|ADDRESSES|MEASURED_BY]-(b)
  WITH [a, b] AS ns, [CASE WHEN startNode(r) = a THEN '-' + type(r) + '->' ELSE '<-' + type(r) + '-' END] AS vias
  ORDER BY [n IN ns | n.id], vias
  LIMIT 1
  RETURN {ns: ns, vias: vias} }) AS one
WITH froms, tos, all_papers, one, CASE WHEN one IS NOT NULL THEN null ELSE head(COLLECT {
  UNWIND froms AS a UNWIND tos AS b
  WITH a, b WHERE a <> b
  MATCH (a)-[r1:EVALUATED_ON|COMPARED_WITH|USES|ADDRESSES|MEASURED_BY]-(x)
        -[r2:EVALUATED_ON|COMPARED_WITH|USES|ADDRESSES|MEASURED_BY]-(b)
  USING JOIN ON x
  WHERE x <> a AND x <> b
  WITH [a, x, b] AS ns,
       [CASE WHEN startNode(r1) = a THEN '-' + type(r1) + '->' ELSE '<-' + type(r1) + '-' END,
        CASE WHEN startNode(r2) = x THEN '-' + type(r2) + '->' ELSE '<-' + type(r2) + '-' END] AS vias
  ORDER BY [n IN ns | n.id], vias
  LIMIT 1
  RETURN {ns: ns, vias: vias} }) END AS via_entity
WITH froms, tos, one, via_entity, CASE WHEN one IS NOT NULL THEN [] ELSE COLLECT {
  UNWIND froms AS a UNWIND tos AS b
  WITH a, b WHERE a <> b AND (via_entity IS NULL OR a.id <= via_entity.ns[0].id)
  WITH a, b, CASE WHEN via_entity IS NOT NULL AND a.id = via_entity.ns[0].id THEN via_entity.ns[1].id END AS bound,
       COUNT { (a)<-[:MENTIONS]-() } AS da, COUNT { (b)<-[:MENTIONS]-() } AS db
  WITH a, b, bound, CASE WHEN da <= db THEN a ELSE b END AS rare, CASE WHEN da <= db THEN b ELSE a END AS other,
       CASE WHEN da <= db THEN da ELSE db END AS fewer, all_papers * all_papers < da * db * CASE WHEN da <= db THEN da ELSE db END AS dense
  WITH a, b, bound, rare, other, dense,
       bound IS NOT NULL AND (dense OR size(COLLECT { MATCH (q:Paper) WHERE q.id < bound RETURN q.id LIMIT 1000 }) < 1000) AS bounded_walk
  WITH a, b, head(CASE
    WHEN bounded_walk
    THEN COLLECT { MATCH (p:Paper) WHERE p.id < bound
                     AND EXISTS { (p)-[:MENTIONS]->(a) } AND EXISTS { (p)-[:MENTIONS]->(b) }
                   RETURN p ORDER BY p.id LIMIT 1 }
    WHEN bound IS NULL AND dense
    THEN COLLECT { MATCH (p:Paper) WHERE p.id IS NOT NULL
                     AND EXISTS { (p)-[:MENTIONS]->(a) } AND EXISTS { (p)-[:MENTIONS]->(b) }
                   RETURN p ORDER BY p.id LIMIT 1 }
    ELSE COLLECT { MATCH (p:Paper)-[:MENTIONS]->(rare) WHERE (bound IS NULL OR p.id < bound)
                     AND EXISTS { (p)-[:MENTIONS]->(other) }
                   RETURN p ORDER BY p.id LIMIT 1 }
    END) AS p
  MATCH (a)<-[m1:MENTIONS]-(p)-[m2:MENTIONS]->(b)
  RETURN {ns: [a, p, b], vias: ['<-' + type(m1) + '-', '-' + type(m2) + '->']} AS c
} + CASE WHEN via_entity IS NULL THEN [] ELSE [via_entity] END END AS twos
WITH froms, tos, coalesce(one, head(COLLECT {
  UNWIND twos AS c
  WITH c ORDER BY [n IN c.ns | n.id], c.vias
  LIMIT 1
  RETURN c })) AS near
WITH coalesce(near, head(CASE WHEN near IS NOT NULL THEN [] ELSE COLLECT {
  UNWIND froms AS a UNWIND tos AS b
  WITH a, b WHERE a <> b
  MATCH path = allShortestPaths((a)-[:MENTIONS|EVALUATED_ON|COMPARED_WITH|USES|ADDRESSES|MEASURED_BY*..6]-(b))
  WITH nodes(path) AS ns,
       [i IN range(0, length(path) - 1) |
         CASE WHEN startNode(relationships(path)[i]) = nodes(path)[i]
              THEN '-' + type(relationships(path)[i]) + '->'
              ELSE '<-' + type(relationships(path)[i]) + '-' END] AS vias
  ORDER BY size(ns), [n IN ns | n.id], vias
  LIMIT 1
  RETURN {ns: ns, vias: vias} } END)) AS best
WITH best WHERE best IS NOT NULL
UNWIND range(0, size(best.ns) - 1) AS step
WITH step, best.ns[step] AS n, CASE WHEN step = 0 THEN null ELSE best.vias[step - 1] END AS via
RETURN step, via, n.id AS id, coalesce(n.type, 'Paper') AS type, coalesce(n.name, n.title, n.id) AS name
ORDER BY step
