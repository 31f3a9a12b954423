"""The papers of the schema-6 store (paperkg 8f15f09, the last schema before corrections): the schema-5
store's papers, a plural and a singular of one name, a metric with and without `score`, and a model family
inside versioned names."""

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
