// Give the lease back at the end of a build (success or failure), so the next one need not wait.
MATCH (l:PaperkgMeta {id: 'lease'})
WHERE l.owner = $owner
SET l.owner = null, l.holder = null, l.expires = null
