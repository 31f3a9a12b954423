// Write the co-mention entries a delta changed or added: [entity, other, name, type, papers] rows.
UNWIND $rows AS row
MERGE (c:PaperkgCo {of: row[0], other: row[1]})
SET c.co_name = row[2], c.co_type = row[3], c.co_papers = row[4]
RETURN count(*) AS written
