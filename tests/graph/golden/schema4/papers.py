"""The papers of the schema-4 store: `MAE` defined as a Metric and as a Method, and used bare as each."""

PAPERS = [
    ("m1", "The mean absolute error (MAE) of the forecasts drops.",
     [("mean absolute error", "Metric", False), ("MAE", "Metric", False)], [],
     [("mean absolute error", "MAE")]),
    ("m2", "A masked autoencoder (MAE) learns image features.",
     [("masked autoencoder", "Method", False), ("MAE", "Method", False)], [],
     [("masked autoencoder", "MAE")]),
    ("m3", "We lower MAE on ETTh1.",
     [("MAE", "Metric", False), ("ETTh1", "Dataset", False)], [], []),
    ("m4", "We pretrain ViT-B with MAE.",
     [("ViT-B", "Model", False), ("MAE", "Method", False)], [("ViT-B", "USES", "MAE")], []),
]
