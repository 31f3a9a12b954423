"""The papers of the schema-12 store: names styled with LaTeX as arXiv abstracts write them (a long
form in `\\textit{}`, a name in `$\\textbf{}$`, initials in `\\textbf{}`), which schema 12 keyed, named
and gave ids with the markup: `CoT` two entities, one of them `method:textit-chain-of-thought-...`."""

PAPERS = [
    ("l1", "While \\textit{Chain-of-Thought} (CoT) prompting helps, agents still fail.",
     [("\\textit{Chain-of-Thought}", "Method", False), ("CoT", "Method", False)], [],
     [("\\textit{Chain-of-Thought}", "CoT")]),
    ("l2", "Chain-of-Thought (CoT) improves reasoning on GSM8K.",
     [("Chain-of-Thought", "Method", False), ("CoT", "Method", False), ("GSM8K", "Benchmark", False)],
     [("Chain-of-Thought", "EVALUATED_ON", "GSM8K")], [("Chain-of-Thought", "CoT")]),
    ("l3", "We propose $\\textbf{TAPE}$, evaluated on GSM8K.",
     [("$\\textbf{TAPE}$", "Method", True), ("GSM8K", "Benchmark", False)],
     [("$\\textbf{TAPE}$", "EVALUATED_ON", "GSM8K")], []),
    ("l4", "We introduce \\textbf{M}ulti-\\textbf{V}iew \\textbf{A}ttention \\textbf{N}etworks (MVAN).",
     [("\\textbf{M}ulti-\\textbf{V}iew \\textbf{A}ttention \\textbf{N}etworks", "Method", True),
      ("MVAN", "Method", False)], [],
     [("\\textbf{M}ulti-\\textbf{V}iew \\textbf{A}ttention \\textbf{N}etworks", "MVAN")]),
]
