// The save marker and the build lease (internal `PaperkgMeta` nodes, never connected to the graph):
// what `Neo4jStore.synced_generation` and `build_status` report. `now` is the server's clock, so
// lease expiry never depends on the clocks of the machines running builds.
OPTIONAL MATCH (m:PaperkgMeta {id: 'graph'})
OPTIONAL MATCH (l:PaperkgMeta {id: 'lease'})
RETURN m.generation AS generation, m.status AS status, m.target AS target, m.since AS since,
       m.by AS by, m.figures AS figures, m.source AS source, m.source_name AS source_name, l.owner AS lease_owner, l.holder AS lease_holder, l.expires AS lease_expires,
       timestamp() AS now
