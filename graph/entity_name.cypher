// The display name of the entity with this id (none when no entity has it): how the API finds an
// entity by an id whose name part is hashed (`metric:pass-1-6bd3e648` is `pass@1`).
MATCH (e:Entity {id: $id})
RETURN e.name AS name
LIMIT 1
