// Exact co-mention counts of a batch of [entity, other] pairs: the papers mentioning both, walked
// from the first of each pair (the store puts the less mentioned one first), each paper's
// mentions checked for the other. For a delta's entries that may have grown past a figure list's cut.
UNWIND $pairs AS pair
MATCH (a:Entity {id: pair[0]})
MATCH (b:Entity {id: pair[1]})
RETURN collect([pair[0], pair[1], COUNT { MATCH (a)<-[:MENTIONS]-(p:Paper) WHERE (p)-[:MENTIONS]->(b) }])
       AS rows
