// name: introduced_in
// description: Entities that papers of a collection introduce, by number of introducing papers.
// param: collection collection required example=NeurIPS 2026 Papers
// param: limit int optional default=100 min=1 max=1000 example=20
// papers = number of the collection's papers introducing the entity; paper = the smallest of their
// ids. The collection is found by id (name -> `collection:<slug>`, an index seek). Why it reads
// lists instead of walking the collection's papers (25k papers, 10k+ introductions at 100k
// abstracts): every save into Neo4j computes the introductions of each collection it touches
// (graph/figures_intro.cypher) and stores the first 1000 (this query's order: papers desc, name, id)
// as parallel lists on an internal `PaperkgFigures` node keyed by the collection id.
MATCH (c:Collection {id: $collection_id})
OPTIONAL MATCH (f:PaperkgFigures {of: c.id})
WITH coalesce(f.intro_ids, []) AS ids, f.intro_names AS names, f.intro_types AS types,
     f.intro_papers AS counts, f.intro_paper AS firsts
UNWIND range(0, size(ids) - 1)[..$limit] AS i
RETURN ids[i] AS id, names[i] AS name, types[i] AS type, counts[i] AS papers, firsts[i] AS paper
ORDER BY papers DESC, name, id
