"""What is never an entity on its own, whatever a rule or model proposes: sizes, numbers, dimensions,
versions, hardware, vendors, platforms, imaging modalities and modifiers (`7B`, `3D`, `v1.1`, `GPU`,
`AMD`, `YouTube`, `PET`, `AI-generated`). Found in the 50 most-mentioned entities of each type of the
2,500 real arXiv abstracts (`benchmarks/top_entities.py`)."""

import re

# exact surfaces (case-sensitive; a plural `s` is also covered)
NOT_ENTITIES = frozenset({
    # hardware, chips and runtimes
    "GPU", "CPU", "TPU", "NPU", "FPGA", "H100", "H200", "A100", "V100", "A6000",
    "ASIC", "SSD", "RAM", "DRAM", "HBM", "SoC", "CUDA", "LiDAR", "IMU",
    # vendors, companies, platforms
    "AMD", "Intel", "NVIDIA", "Nvidia", "Apple", "Qualcomm", "Huawei", "Google", "Meta", "OpenAI",
    "Microsoft", "Amazon", "AWS", "Anthropic", "DeepMind", "Alibaba", "Baidu", "Tencent", "ByteDance",
    "YouTube", "GitHub", "HuggingFace", "Hugging Face", "arXiv",
    # imaging and signal modalities, devices
    "PET", "MRI", "fMRI", "CT", "EEG", "ECG", "EMG", "X-ray", "RGB", "RGB-D",
    # abbreviations of properties and settings, not names
    "E2E", "KV", "V-L", "KG", "KGs", "AI", "SOTA", "OOD", "API", "APIs", "IoT", "QA",
    # size names of a model family, alone (`the stable diffusion XL model`)
    "XS", "XXS", "XL", "XXL", "XXXL",
    # generic kinds written as plural acronyms
    "PLMs", "SLMs", "LVLMs", "LLMs", "VLMs", "MLLMs", "LMs", "LRMs", "DNNs", "CNNs", "GNNs", "RNNs",
})

# hardware written out (compared in lower case)
NOT_ENTITY_PHRASES = frozenset({"central processing unit", "graphics processing unit",
                                "tensor processing unit", "neural processing unit"})

# shapes: a size (`7B`, `1.5T`, `3.1 8B`, `32k`), a dimension (`2D`, `3D`, `4D`), a resolution (`256x256`),
# a version (`v1.1`, `V2`, `1.0`), a plain number, percentage or ratio (`9.15x`), a subscripted symbol
NOT_ENTITY_RE = re.compile(
    r"^(?:"
    r"(?:\d+(?:\.\d+)?[\s\-\u2010\u2011]*)+[KMBTkmbt]?"  # numbers and sizes, `3.1 8B`, `3.1-8B`
    r"|\.\d+"                                    # a score without its leading zero, `.7315`
    r"|\d[Dd]"                                   # dimensions
    r"|\d+\s*[x×]\s*\d+"                         # resolutions
    r"|[vV]\d+(?:\.\d+)*"                        # versions
    r"|\d+(?:\.\d+)?\s*%"                        # percentages
    r"|\d+(?:\.\d+)?\s*[x×]"                       # ratios, `9.15x`, `3.2×`
    r"|[A-Za-z]_\{?[\d.,]+\}?"                      # a symbol with a numeric subscript, `V_{0.5}`, `x_1`
    r")$"
)
# modifiers: `AI-generated`, `LLM-assisted`, `GPU-accelerated` describe something, they name nothing
MODIFIER_RE = re.compile(r"[\-\u2010\u2011](?:generated|assisted|driven|powered|enabled|"
                         r"accelerated|written|produced|synthesized|annotated|labeled|labelled)$",
                         re.I)
# a name never starts or ends with a dash (ASCII, Unicode hyphens and dashes, the minus sign)
EDGE_DASHES = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212")
# line breaks never belong to a name
LINE_BREAK_RE = re.compile(r"[\n\r\u2028\u2029\x0b\x0c\x85]")
