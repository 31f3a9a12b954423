// Extend the lease while a build runs (a heartbeat every third of its time to live).
MATCH (l:PaperkgMeta {id: 'lease'})
WHERE l.owner = $owner
SET l.expires = timestamp() + $ttl_ms
RETURN count(*) AS held
