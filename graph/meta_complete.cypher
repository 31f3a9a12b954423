// The last statement of every save, in the transaction of its last writes: records the generation
// the database now holds, only if this build still holds the lease (a build whose lease expired
// while it hung must not mark another build's writes as its own). `source`/`source_name`: the build
// state the graph mirrors (a later build from another state refuses to replace it unless told).
// `figures`: the layout of the precomputed figures this save wrote (`FIGURES_FORMAT`); a database
// with another is not in step, and the next build rewrites it whole.
MATCH (l:PaperkgMeta {id: 'lease'})
WHERE l.owner = $owner
MERGE (m:PaperkgMeta {id: 'graph'})
SET m.status = 'complete', m.generation = $generation, m.target = null, m.since = timestamp(),
    m.by = $holder, m.source = $source, m.source_name = $source_name, m.figures = $figures
RETURN count(*) AS done
