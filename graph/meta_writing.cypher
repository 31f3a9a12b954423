// A save that cannot be one transaction starts: readers see "build in progress" (or, if the build
// dies, "interrupted") instead of taking a half-written graph for a complete one. The generation
// stays the old one until meta_complete, so the next build knows this database is not in step; the
// source becomes this build's state at once (a half-written graph is that state's to repair).
MERGE (m:PaperkgMeta {id: 'graph'})
SET m.status = 'writing', m.target = $generation, m.since = timestamp(), m.by = $holder,
    m.source = $source, m.source_name = $source_name
