"""Names by shape (CamelCase, ALLCAPS, letters and digits) and the shaped words that name nothing."""

import re

from paperkg.extract.lexicon.models import DASH

# names by shape: CamelCase, ALLCAPS, letters+digits (GUARD, GPPO, ImageNet, C51, weather2vec)
SHAPE_RE = re.compile(
    rf"(?<![\w\-$/@.])(?:[A-Z][a-z]*[A-Z]\w*|[A-Za-z]+\d[\w.]*[\w]|[A-Z]{{2,}}s?)"
    rf"(?:{DASH}[A-Za-z0-9]+)*(?![\w\-/@]|\.\w)"
)
# shaped words that are abbreviations of fields, units, venues, vendors or tools, not entities
SHAPE_STOP = {
    "AAAI", "ACL", "AI", "AISTATS", "API", "APIs", "ASR", "AUC", "Anthropic", "CNNs", "CO2", "COLT",
    "COVID-19", "CPU", "CPUs", "CUDA", "CVPR", "DL", "DNA", "DNN", "DNNs", "DP", "DeepMind", "EMNLP",
    "EU", "FLOP", "FLOPs", "FPS", "GB", "GELU", "GNNs", "GPU", "GPUs", "GeLU", "GitHub", "Google",
    "HTTP", "HuggingFace", "ICLR", "ICML", "ID", "II", "IID", "III", "IJCAI", "IT", "IV", "IoT", "JAX",
    "JSON", "KB", "KDD", "KL", "LDP", "LLM", "LLMs", "LM", "LMs", "LRM", "LRMs", "MB", "MDP", "MDPs",
    "ML", "MLLM", "MLLMs", "MSE", "Meta", "Microsoft", "NLP", "NN", "NNs", "NP", "NVIDIA", "NeurIPS",
    "Nvidia", "OCR", "ODE", "ODEs", "OK", "OOD", "OoD", "OpenAI", "PC", "PCs", "PDE", "PDEs", "POMDPs",
    "PhD", "PyTorch", "Q&A", "QA", "RGB", "RGB-D", "RKHS", "RL", "RNA", "RNNs", "ROC", "ReLU", "SOTA",
    "SQL", "SSMs", "TB", "TFLOPs", "TPU", "TTS", "TV", "TensorFlow", "UK", "URL", "US", "USA", "VI",
    "VII", "VLM", "VLMs", "VQA", "XII", "arXiv",
}
# a shaped name ending in one of these (`GRPO-based`, `LLM-free`) is a modifier, not a name
MODIFIER_SUFFIX_RE = re.compile(rf"{DASH}(?:based|like|style|free|aware|level|specific|driven|guided|hard|"
                                rf"complete|minimal|approximating|derived|inspired|only|wise)$")
# a shaped name that says its kind: `UnpredictaBench`, `SWE-bench`, `AlpacaEval`; `...Dataset`, `...Corpus`
BENCH_NAME_RE = re.compile(r"Bench|bench|Arena|Eval(?![a-z])|Gym(?![a-z])")
DATA_NAME_RE = re.compile(r"(?:Dataset|Corpus|DB)$")
