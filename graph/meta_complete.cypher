// The last statement of every save, in the transaction of its last writes: records the generation
// the database now holds, only if this build still holds the lease (a build whose lease expired
// while it hung must not mark another build's writes as its own).
MATCH (l:PaperkgMeta {id: 'lease'})
WHERE l.owner = $owner
MERGE (m:PaperkgMeta {id: 'graph'})
SET m.status = 'complete', m.generation = $generation, m.target = null, m.since = timestamp(),
    m.by = $holder
RETURN count(*) AS done
