// name: introduced_in
// description: Entities that papers of a collection introduce, by number of introducing papers.
// param: collection collection required example=NeurIPS 2026 Papers
// param: limit int optional default=100 min=1 max=1000 example=20
// papers = number of the collection's papers introducing the entity; paper = the smallest of their
// ids. The collection is found by id (name -> `collection:<slug>`, an index seek). Why it reads
// lists instead of walking the collection's papers (25k papers, 10k+ introductions at 100k
// abstracts): `Neo4jStore.save` derives every collection's introductions from the graph it saves
// and stores the first 1000 (this query's order: papers desc, name, id) on the collection node as
// parallel lists (see graph/neo4j_store.py `figures`); every save rewrites them with the node itself.
MATCH (c:Collection {id: $collection_id})
WITH coalesce(c._intro_ids, []) AS ids, c._intro_names AS names, c._intro_types AS types,
     c._intro_papers AS counts, c._intro_paper AS firsts
UNWIND range(0, size(ids) - 1)[..$limit] AS i
RETURN ids[i] AS id, names[i] AS name, types[i] AS type, counts[i] AS papers, firsts[i] AS paper
ORDER BY papers DESC, name, id
