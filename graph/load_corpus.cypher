// The corpus entries kept on Paper nodes (JSON of corpus.entry_to_dict), for the next build.
MATCH (p:Paper)
WHERE p.source_json IS NOT NULL
RETURN p.source_json AS source_json
