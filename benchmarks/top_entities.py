"""Real-corpus check (issues 9.4 and 26.7): build the 2,500 real arXiv abstracts into a fresh store and list
the 50 most-mentioned entities of each type; none may be a size, number, dimension, version, ratio,
fragment of a versioned name (`4o`), subscripted symbol, hardware, vendor or platform name, or hold a
line break, and no two of one list may be the singular and plural of one name.

    python benchmarks/top_entities.py [--input FILE] [--limit 50] [--mode default]

Prints the lists and the offenders; exits 1 when there is one. The offender test below is written
independently of the extractor's own word list (`extract/lexicon/hygiene.py`).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("Method", "Model", "Dataset", "Benchmark", "Metric", "Task")
# the examples and their kin
BANNED = {"7B", "8B", "3D", "2D", "GPU", "GPUs", "CPU", "CPUs", "TPU", "AMD", "NVIDIA", "Intel", "PET",
          "YouTube", "E2E", "AI-generated", "KGs", "KG", "LLM-generated", "AI-assisted", "KV", "MRI",
          "LiDAR", "EEG"}
SHAPE = re.compile(r"^(?:[\d.\s-]+[KMBT]?|\d[Dd]|[vV]\d+(?:\.\d+)*|\d+\s*x\s*\d+|[\d.]+%|[\d.]+\s*[x×]"
                   r"|\d+[a-z]{1,2}|[A-Za-z]_\{?[\d.]+\}?)$")


def offender(name: str) -> bool:
    return name in BANNED or bool(SHAPE.match(name)) or "\n" in name or "\r" in name


def plural_pairs(names: list[str]) -> list[str]:
    """Names of one list that are another's plural (`attention mechanisms`, `VAEs`, `success rates`)."""
    lower = {n.lower() for n in names}
    return [n for n in names if n.lower().endswith("s") and (n.lower()[:-1] in lower
                                                              or n.lower()[:-3] + "y" in lower)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=str(ROOT.parent / "shared" / "data" / "arxiv" / "abstracts.jsonl"))
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--mode", default="default")
    args = parser.parse_args(argv)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        store = str(Path(tmp) / "store")
        subprocess.run([sys.executable, "-m", "paperkg.api.cli", "build", args.input, "--store", store,
                        "--mode", args.mode], check=True, stdout=subprocess.DEVNULL)
        for etype in TYPES:
            out = subprocess.run([sys.executable, "-m", "paperkg.api.cli", "query", "top_entities",
                                  "--param", f"type={etype}", "--param", f"limit={args.limit}",
                                  "--store", store, "--json"],
                             check=True, capture_output=True, text=True).stdout
            data = json.loads(out)
            rows = data.get("rows", data) if isinstance(data, dict) else data
            names = [r["name"] for r in rows]
            print(f"{etype} ({len(names)}): " + ", ".join(names))
            bad += [(etype, n) for n in names if offender(n)]
            bad += [(etype, f"{n} (a plural of another name listed)") for n in plural_pairs(names)]
    print(f"offenders: {bad or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
