"""The papers of the schema-5 store: a plural and a singular of one name (`attention mechanisms`,
`VAEs`), a metric with and without `score`, and a model family inside versioned names (`GPT` and the
fragment `4o` inside `GPT-4o`)."""

PAPERS = [
    ("s1", "Attention mechanisms help GPT-4o, and VAEs compress.",
     [("Attention mechanisms", "Method", False), ("GPT-4o", "Model", False), ("VAEs", "Method", False)],
     [], []),
    ("s2", "An attention mechanism and a VAE raise the F1-score of GPT.",
     [("attention mechanism", "Method", False), ("VAE", "Method", False), ("F1-score", "Metric", False),
      ("GPT", "Model", False)], [("attention mechanism", "MEASURED_BY", "F1-score")], []),
    ("s3", "We compare GPT-4o with 4o on F1.",
     [("GPT-4o", "Model", False), ("4o", "Model", False), ("F1", "Metric", False)],
     [("GPT-4o", "COMPARED_WITH", "4o")], []),
]
