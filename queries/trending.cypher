// name: trending
// description: Entities whose yearly paper counts grew most: papers mentioning them in the recent years (from `since` to the latest year) against the same number of years just before.
// param: type entity_type optional example=Method
// param: since int optional min=1 max=9999 example=2026
// param: min_papers int optional default=2 min=1 max=1000000 example=2
// param: limit int optional default=20 min=1 max=1000 example=10
// Growth, exactly: `latest` is the latest year of any paper; the recent window is `since` ..
// `latest` (default: `latest` alone) and the earlier window the same number of years just before
// it (since - span .. since - 1, span = latest - since + 1). recent and before count the distinct
// papers of each window that mention the entity; growth = recent - before. Only entities with
// recent >= min_papers (the minimum support) and growth > 0 are listed, largest growth first (then
// recent, name, id). Papers without a year count in neither window; a `since` after the latest
// year gives no rows. Each entity's papers are counted once per window, through one MENTIONS each.
WITH COLLECT { MATCH (p:Paper) WHERE p.year IS NOT NULL RETURN p.year AS y ORDER BY y DESC LIMIT 1 } AS found
UNWIND found AS latest
WITH latest, coalesce($since, latest) AS since
WITH latest, since, latest - since + 1 AS span
WHERE span >= 1
MATCH (p:Paper)-[:MENTIONS]->(e)
WHERE p.year >= since - span AND p.year <= latest AND ($type IS NULL OR e.type = $type)
WITH e, since, latest, sum(CASE WHEN p.year >= since THEN 1 ELSE 0 END) AS recent,
     sum(CASE WHEN p.year < since THEN 1 ELSE 0 END) AS before
WHERE recent >= $min_papers AND recent > before
RETURN e.id AS id, e.name AS name, e.type AS type, recent, before, recent - before AS growth,
       since, latest AS until
ORDER BY growth DESC, recent DESC, name, id
LIMIT $limit
