// The stored introduction figures of a batch of collections (see figures_intro.cypher), to be
// changed by a delta instead of computed again.
UNWIND $ids AS id
MATCH (f:PaperkgFigures {of: id})
RETURN collect([id, coalesce(f.intro_ids, []), coalesce(f.intro_names, []), coalesce(f.intro_types, []),
                coalesce(f.intro_papers, []), coalesce(f.intro_paper, [])]) AS rows
