"""The papers of the schema-8 store: two names whose keys differ in case alone (`Androids` folds to
`android`, the acronym `ANDROIDS` stays), one Dataset each, which schema 8 gave one id, and a paper
that neither touches."""

PAPERS = [
    ("a1", "Androids is a corpus of interviews with depressed speakers.",
     [("Androids", "Dataset", False)], [], []),
    ("a2", "We evaluate InfoShield on the ANDROIDS corpus.",
     [("InfoShield", "Method", False), ("ANDROIDS", "Dataset", False)],
     [("InfoShield", "EVALUATED_ON", "ANDROIDS")], []),
    ("a3", "A detection framework is evaluated on Androids.",
     [("detection framework", "Method", False), ("Androids", "Dataset", False)],
     [("detection framework", "EVALUATED_ON", "Androids")], []),
    ("a4", "GRPO improves reasoning on MATH500.",
     [("GRPO", "Method", False), ("MATH500", "Benchmark", False)], [("GRPO", "EVALUATED_ON", "MATH500")], []),
]
