// Replace the introduction figures of a batch of collections with lists a delta produced (same
// shape and order as figures_intro.cypher writes).
UNWIND $rows AS row
MERGE (f:PaperkgFigures {of: row.of})
SET f.intro_ids = row.ids, f.intro_names = row.names, f.intro_types = row.types,
    f.intro_papers = row.papers, f.intro_paper = row.firsts
RETURN count(*) AS written
