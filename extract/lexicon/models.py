"""Model names by shape: known families plus version and size parts (`Qwen2.5-7B-Instruct`, `GPT-4o`)."""

import re

from paperkg.extract.lexicon.tokenizer import DASH_CHARS

MODEL_FAMILIES = (
    "GPT", "ChatGPT", "InstructGPT", "LLaMA", "Llama", "LLaMa", "LLAMA", "Qwen", "QwQ", "DeepSeek", "Mistral",
    "Mixtral", "Gemma", "Gemini", "Claude", "PaLM", "Phi", "T5", "Flan-T5", "BERT", "RoBERTa", "DeBERTa",
    "ALBERT", "DistilBERT", "ELECTRA", "XLNet", "BART", "OPT", "BLOOM", "Falcon", "Vicuna", "Alpaca",
    "OLMo", "OLMoE", "Pythia", "GPT-J", "GPT-NeoX", "StarCoder", "CodeLlama", "Code Llama", "InternLM",
    "InternVL", "Yi", "Baichuan", "ChatGLM", "GLM", "MiniCPM", "LLaVA", "BLIP", "BLIP-2", "CLIP", "SigLIP",
    "ViT", "DeiT", "Swin", "ResNet", "ResNeXt", "VGG", "EfficientNet", "MobileNet", "DenseNet", "Inception",
    "AlexNet", "ConvNeXt", "DINO", "DINOv2", "SAM", "Stable Diffusion", "SDXL", "DALL-E", "DALL·E", "Imagen",
    "Whisper", "wav2vec", "Wav2Vec2", "HuBERT", "Sora", "Kimi", "Grok", "o1", "o3", "o4-mini", "R1",
    "Seed", "Doubao", "Hunyuan", "ERNIE", "Nemotron", "Granite", "SmolLM", "TinyLlama", "Zephyr", "Orca",
    "WizardLM", "WizardMath", "MetaMath", "Mathstral", "DeepSeekMath", "Qwen-Math", "SD3", "SD3.5", "FLUX",
    "PixArt", "U-Net", "UNet", "YOLO", "YOLOv8", "DETR", "Mask R-CNN", "Faster R-CNN", "AlphaGo", "AlphaZero",
    "MuZero", "AlphaFold", "ESM", "GraphCast", "Chinchilla", "Gopher", "Galactica", "MPT", "Jamba", "Mamba",
)

FAMILY_ALT = "|".join(sorted((re.escape(f) for f in MODEL_FAMILIES), key=len, reverse=True))
DASH = f"[\\-{DASH_CHARS}]"
# Tiers and versions written after a space (`Gemini 2.5 Pro`, `Claude Sonnet 4.6`, `Llama 3.1 8B`,
# `DeepSeek V3`, `Mistral Large`, `VGG 19`). A spaced number version is one digit with an optional one-
# or two-digit decimal part or two digits (one digit after a tier: `Claude Sonnet 4.6`, not `Claude 3
# Opus 86`), and after the family only when it has no glued version; a `V`/`R`/`K` and digits may follow
# either (`ResNet50 V1`). So a score after a name is no version (`CLIP 33.76`, `Qwen 0.907`, `ResNet50
# 0.566`; `CLIP 34` or `GPT 4.21` cannot be told from `VGG 19` or `Grok 4.20`), nor a number before `%`,
# a multiplier, a ratio, a fraction or size list with a two-digit or sized second part, a dash and a
# counted noun, or a counted noun (`Grok 86.6\%`, `BERT 2 × faster`, `Gemini 1.34:1`, `Mixtral 8*7B`,
# `o3 6/13`, `GPT 20/120B`, `BERT 12-layer`, `BERT 5 times`); a version list keeps its first version
# (`Claude 3.5/3.7`). A tier word never starts `Large Language Model` or `Large Vision Language Model`.
TIERS = (
    "Pro", "Flash", "Ultra", "Nano", "Opus", "Sonnet", "Haiku", "Scout", "Maverick", "Lite", "Plus", "Max",
    "Turbo", "Mini", "Large", "Medium", "Small", "Instruct", "Chat", "Thinking", "Coder", "Vision", "Super",
)
COUNTED = ("times", "of", "out", "runs", "seeds", "epochs", "steps", "points", "percent", "layers", "heads",
           "tokens", "samples", "examples", "images", "classes", "tasks", "datasets", "languages", "hours",
           "days", "minutes", "GPUs")
_TIER = rf"(?:{'|'.join(TIERS)})\b(?!\s+(?:Vision[\s\-])?(?:Language|Multimodal|Reasoning)\b)"
_NOT_A_VERSION = (r"[\w%]|\.[0-9]|\s?\\?%|\s?[×*]|\s?\$?\\times|/\d\d|/\d+[BbMm]\b|:1\b"
                  rf"|{DASH}(?:layer(?:s|ed)?|heads?|fold|shots?|way|bits?)\b|\s(?:{'|'.join(COUNTED)})\b")
_LETTER_VERSION = rf"\s[vVRK][0-9]+(?:\.[0-9]+)?(?!{_NOT_A_VERSION})"
_TIER_VERSION = rf"\s[1-9](?:\.[0-9]{{1,2}})?(?!{_NOT_A_VERSION})|{_LETTER_VERSION}"
_SPACED_VERSION = rf"\s[1-9][0-9](?!{_NOT_A_VERSION})|{_TIER_VERSION}"
_SPACED_TIER = rf"\s{_TIER}"
# family + version/size parts, e.g. Qwen2.5-7B-Instruct, LLaMA3.1-8B, GPT-4o, DeepSeek-R1-Zero, ResNet-50
MODEL_RE = re.compile(
    rf"(?<![\w\-])(?=[A-Zow])(?:{FAMILY_ALT})"
    rf"(?:[0-9][0-9.]*[a-z]?(?:{_LETTER_VERSION})?|{DASH}?v[0-9.]+|{_SPACED_VERSION})?"
    rf"(?:{_SPACED_TIER}(?:{_TIER_VERSION})?)*"
    rf"(?:(?:{DASH}|\s(?=\d+(?:\.\d+)?[BbMm]\b|{_TIER}))(?:[0-9][0-9.]*[A-Za-z]{{0,2}}|[A-Z][A-Za-z0-9.]*|v[0-9.]+|mini|nano|turbo|base|large|small|medium|chat|instruct|distill|tiny|xl|xxl|it)\b)*"
    rf"(?![\w])"
)
# generic shape: Name-7B, Name2-8B-Instruct (size suffix marks a trained model)
SIZED_RE = re.compile(
    rf"(?<![\w\-])[A-Z][A-Za-z0-9.]*(?:{DASH}[A-Za-z0-9.]+)*{DASH}\d+(?:\.\d+)?[BM](?:{DASH}[A-Za-z0-9.]+)*(?![\w])"
)
