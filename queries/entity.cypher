// name: entity
// description: One entity by any of its names or aliases: type, aliases, paper count, introductions, model family.
// param: name entity required example=GRPO
// A name shared by several entities (an ambiguous acronym such as DP) returns one row for each.
// first_year, last_year and confidence are null on a graph built without them.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys
RETURN e.id AS id, e.name AS name, e.type AS type, e.aliases AS aliases, e.paper_count AS papers,
       e.introduced_count AS introduced, e.family AS family, coalesce(e.ambiguous, false) AS ambiguous,
       e.first_year AS first_year, e.last_year AS last_year, e.confidence AS confidence
ORDER BY papers DESC, name, id
