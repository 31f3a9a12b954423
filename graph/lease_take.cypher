// Take the build lease if it is free, ours already, or expired. MERGE on the uniqueness-constrained
// id makes two builds starting at once find one node; `SET l._lock` takes the node's write lock
// before the holder is read, so the second of them reads the first one's committed holder and
// waits instead of both taking it.
MERGE (l:PaperkgMeta {id: 'lease'})
SET l._lock = true
WITH l, (l.owner IS NULL OR l.owner = $owner OR l.expires < timestamp()) AS free
SET l.owner = CASE WHEN free THEN $owner ELSE l.owner END,
    l.holder = CASE WHEN free THEN $holder ELSE l.holder END,
    l.expires = CASE WHEN free THEN timestamp() + $ttl_ms ELSE l.expires END
REMOVE l._lock
RETURN free, l.holder AS holder, l.expires - timestamp() AS left_ms
