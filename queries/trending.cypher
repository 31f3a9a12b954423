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
// year gives no rows. Each entity's papers are counted once per window.
// The counts come from the entity's `years` and `papers_per_year` (its papers by year), not from its
// mentions (every mention of the window: 4 s at 209k abstracts). Exact without reading every
// entity, as growth <= recent <= paper_count: the `limit`-th growth among the 1,000 entities of the
// type with most papers is a floor for the answer's, so only entities with at least that many papers
// can be in it, and those are read in paper_count order (an index per label, one over every Entity).
// The rows come from one stream with no list in scope (Neo4j counts each list in scope once per row
// it holds: unwinding the answer as a list needed a 256 MB transaction at limit 600).
WITH COLLECT { MATCH (p:Paper) WHERE p.year IS NOT NULL RETURN p.year AS y ORDER BY y DESC LIMIT 1 } AS found
UNWIND found AS latest
WITH latest, coalesce($since, latest) AS since
WITH latest, since, latest - since + 1 AS span
WHERE span >= 1
WITH latest, since, span, COLLECT {
  CALL () {
    WITH $type AS t WHERE t IS NULL
    MATCH (e:Entity) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
    UNION ALL
    WITH $type AS t WHERE t = 'Method'
    MATCH (e:Method) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
    UNION ALL
    WITH $type AS t WHERE t = 'Model'
    MATCH (e:Model) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
    UNION ALL
    WITH $type AS t WHERE t = 'Dataset'
    MATCH (e:Dataset) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
    UNION ALL
    WITH $type AS t WHERE t = 'Benchmark'
    MATCH (e:Benchmark) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
    UNION ALL
    WITH $type AS t WHERE t = 'Metric'
    MATCH (e:Metric) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
    UNION ALL
    WITH $type AS t WHERE t = 'Task'
    MATCH (e:Task) WHERE e.paper_count >= $min_papers
    RETURN e ORDER BY e.paper_count DESC LIMIT 1000
  }
  WITH e, range(0, size(coalesce(e.years, [])) - 1) AS at
  WITH e, reduce(n = 0, i IN at | n + CASE WHEN e.years[i] >= since AND e.years[i] <= latest
                                           THEN e.papers_per_year[i] ELSE 0 END) AS recent,
          reduce(n = 0, i IN at | n + CASE WHEN e.years[i] >= since - span AND e.years[i] < since
                                           THEN e.papers_per_year[i] ELSE 0 END) AS before
  WHERE recent >= $min_papers AND recent > before
  RETURN recent - before AS growth ORDER BY growth DESC LIMIT $limit } AS growths
WITH latest, since, span,
     CASE WHEN size(growths) = $limit AND growths[-1] > $min_papers THEN growths[-1]
          ELSE $min_papers END AS low
CALL (low) {
  WITH $type AS t WHERE t IS NULL
  MATCH (e:Entity) WHERE e.paper_count >= low
  RETURN e
  UNION ALL
  WITH $type AS t WHERE t = 'Method'
  MATCH (e:Method) WHERE e.paper_count >= low
  RETURN e
  UNION ALL
  WITH $type AS t WHERE t = 'Model'
  MATCH (e:Model) WHERE e.paper_count >= low
  RETURN e
  UNION ALL
  WITH $type AS t WHERE t = 'Dataset'
  MATCH (e:Dataset) WHERE e.paper_count >= low
  RETURN e
  UNION ALL
  WITH $type AS t WHERE t = 'Benchmark'
  MATCH (e:Benchmark) WHERE e.paper_count >= low
  RETURN e
  UNION ALL
  WITH $type AS t WHERE t = 'Metric'
  MATCH (e:Metric) WHERE e.paper_count >= low
  RETURN e
  UNION ALL
  WITH $type AS t WHERE t = 'Task'
  MATCH (e:Task) WHERE e.paper_count >= low
  RETURN e
}
WITH latest, since, span, e, range(0, size(coalesce(e.years, [])) - 1) AS at
WITH latest, since, e, reduce(n = 0, i IN at | n + CASE WHEN e.years[i] >= since AND e.years[i] <= latest
                                         THEN e.papers_per_year[i] ELSE 0 END) AS recent,
                       reduce(n = 0, i IN at | n + CASE WHEN e.years[i] >= since - span AND e.years[i] < since
                                         THEN e.papers_per_year[i] ELSE 0 END) AS before
WHERE recent >= $min_papers AND recent > before
RETURN e.id AS id, e.name AS name, e.type AS type, recent, before, recent - before AS growth, since,
       latest AS until
ORDER BY growth DESC, recent DESC, name, id
LIMIT $limit
