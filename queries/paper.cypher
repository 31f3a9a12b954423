// name: paper
// description: One paper by its id (or any record id merged into it): abstract, metadata, collections, and the entities it mentions with every mention's offsets.
// param: id paper required example=16e255ef25e6
// The id is looked up through the `id` index first; only an id that is not a paper's own (a record id
// merged into another paper, listed in its `ids`) goes on to the full-text index over `ids`
// (`paperkg_paper_ids`, an exact term, re-checked with `$id IN q.ids`): CASE evaluates the COLLECT
// subquery only when the id index found nothing, and neither path scans the papers.
// Entities come in order of their first mention, then id; `abstract[start:end] == surface` for
// each mention, and sentence i of the abstract starts at sentence_starts[i] (empty when the store
// predates them).
OPTIONAL MATCH (exact:Paper {id: $id})
WITH CASE WHEN exact IS NULL THEN COLLECT {
            CALL db.index.fulltext.queryNodes('paperkg_paper_ids', $id_query) YIELD node AS q
            WHERE $id IN q.ids
            RETURN q ORDER BY q.id }
          ELSE [exact] END AS found
UNWIND found AS p
RETURN p.id AS id, coalesce(p.ids, [p.id]) AS ids, p.title AS title, p.year AS year,
       coalesce(p.authors, []) AS authors, p.url AS url, p.doi AS doi,
       coalesce(p.categories, []) AS categories, p.abstract AS abstract,
       coalesce(p.sentence_starts, []) AS sentence_starts,
       COLLECT { MATCH (p)-[:IN_COLLECTION]->(c:Collection) RETURN c.name ORDER BY c.name } AS collections,
       COLLECT {
         MATCH (p)-[m:MENTIONS]->(e:Method|Model|Dataset|Benchmark|Metric|Task)
         RETURN {id: e.id, type: e.type, name: e.name, count: m.count,
                 introduced: EXISTS { (p)-[:INTRODUCES]->(e) },
                 mentions: [i IN range(0, size(m.starts) - 1) |
                   {sentence: m.sentences[i], start: m.starts[i], end: m.ends[i], surface: m.surfaces[i]}]}
         ORDER BY m.starts[0], e.id
       } AS entities
ORDER BY id
