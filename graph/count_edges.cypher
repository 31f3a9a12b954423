// Relationship count of one type (answered from the count store).
MATCH ()-[r:{type}]->()
RETURN count(r) AS count
