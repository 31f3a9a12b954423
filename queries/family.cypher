// name: family
// description: The models of a family (named by the family or by any of its models), most-mentioned first, with paper counts and years (paged).
// param: name name required example=Qwen
// param: limit int optional default=100 min=1 max=1000 example=20
// param: offset int optional default=0 min=0 max=100000 example=0
// A family is a model's `family` property (`Qwen` for `Qwen2.5-7B-Instruct`), not an entity nor a
// mention, so `name` is a `name` parameter, not an `entity` one: an unknown family is no error,
// just no rows. The families named are `name` itself (as a key: `llama` finds `LLaMA`) and the
// family of every model one of whose names `name` is (`Qwen2.5-7B` names the Qwen family); that
// model is found through the full-text index over `keys` (`$name_query`, the key as an exact term,
// narrows; `$name_key IN e.keys` decides, as in entity.cypher). The family's models are then an
// equality seek on the range index over `family_key` (graph/schema.cypher), never a scan of every model.
CALL db.index.fulltext.queryNodes('paperkg_entity_keys', $name_query) YIELD node AS e
WHERE $name_key IN e.keys AND e:Model
WITH collect(e.family_key) + [$name_key] AS named
UNWIND named AS family_key
WITH DISTINCT family_key
MATCH (m:Model {family_key: family_key})
RETURN m.id AS id, m.name AS name, m.family AS family, m.paper_count AS papers,
       m.first_year AS first_year, m.last_year AS last_year
ORDER BY papers DESC, name, id
SKIP $offset
LIMIT $limit
