// Node count of one label (answered from the count store).
MATCH (n:{label})
RETURN count(n) AS count
