"""Entity types from a phrase's head word, and the generic kinds that are no entity (`LLMs`)."""

HEAD_TYPES = {
    "Metric": {"accuracy", "error", "score", "rate", "distance", "divergence", "regret", "precision",
               "recall", "f1", "auc", "perplexity", "entropy", "ratio", "index", "coefficient", "cost"},
    "Task": {"prediction", "detection", "classification", "generation", "recognition", "segmentation",
             "estimation", "translation", "answering", "retrieval", "scheduling", "reasoning", "synthesis",
             "evaluation", "forecasting", "inference", "privacy", "summarization", "tracking", "planning",
             "control", "editing", "alignment", "navigation", "captioning", "completion", "parsing",
             "learning", "problem", "problems", "game", "games", "proving", "grounding", "attack", "attacks",
             "logistics", "pathology", "diagnosis", "discovery", "understanding"},
    "Benchmark": {"benchmark", "bench", "suite", "leaderboard", "environment", "environments", "challenge"},
    "Dataset": {"dataset", "corpus", "database"},
}

GENERIC = {
    # properties and settings that papers abbreviate but that name no method, data set or task
    "out-of-distribution", "in-distribution", "out-of-domain", "in-domain", "ood", "iid", "i.i.d.",
    "independent and identically distributed", "latent variables", "lvs", "ground truth", "gt",
    "agents", "ai", "ai systems", "algorithm", "approach", "artificial intelligence", "benchmark",
    "benchmarks", "cnn", "cnns", "data", "deep learning", "deep learning models", "deep networks",
    "deep neural networks", "diffusion model", "diffusion models", "dl", "dnn", "dnns", "e.g.",
    "foundation model", "foundation models", "framework", "generative model", "generative models",
    "gnn", "gnns", "i.e.", "kl", "language agents", "language model", "language models",
    "large language model", "large language models", "large reasoning models", "llm", "llm agents",
    "llm-based", "llms", "lm", "lms", "lrm", "lrms", "machine learning", "machine learning models",
    "method", "ml", "ml models", "mllm", "mllms", "model", "multimodal large language models",
    "neural network", "neural networks", "nlp", "pre-trained language models",
    "pretrained language models", "rl-based", "rnn", "rnns",
    "small language models", "sota", "ssm", "ssms", "state-of-the-art",
    "vision language models", "vision-language models", "vlm", "vlms",
}
