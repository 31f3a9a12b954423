"""Which extractor produced an extraction, so a store re-extracts papers when the extractor changes.

Stores keep every paper's extraction and a build only extracts papers it has not seen. Without a
fingerprint, upgrading paperkg (new rules, a retrained model, a larger gazetteer) or switching `--mode`
would leave old extractions in the graph for ever. The fingerprint is `mode:VERSION:IDENTITY`:

- the mode's entry in `EXTRACTOR_VERSIONS`, bumped by hand whenever a change of code or word lists
  changes what that mode extracts from some text; editing a comment, renaming or moving code leaves it
  alone, so a refactor re-extracts nothing, and a change only `default` mode sees (its learned
  components) leaves every `rules` store as it is;
- an identity of the shipped data the output depends on: the gazetteer's entries (its comment lines do
  not count) and, in `default` mode, the learned weights (`model/`), so a retrained model re-extracts
  by itself.

No spaCy import here: the check runs before any pipeline is loaded.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

# Bump a mode's entry when its output for some text changes (rules, word lists, confidence, resolution,
# and for `default` its learned components' code).
EXTRACTOR_VERSIONS = {"rules": "31", "default": "33"}

PACKAGE_DIR = Path(__file__).parent
# learned files `default` mode loads (model/ner is optional and not shipped)
MODEL_FILES = ("mentions.json", "relations.json", "results.json")


def _gazetteer_entries(path: Path) -> bytes:
    """The gazetteer's entry lines, without comments and blank lines (what the matcher reads)."""
    if not path.is_file():
        return b""
    lines = [line for line in path.read_bytes().splitlines() if line.strip() and not line.startswith(b"#")]
    return b"\n".join(lines)


def _model_files(model_dir: Path) -> list[Path]:
    files = [model_dir / name for name in MODEL_FILES if (model_dir / name).is_file()]
    ner = model_dir / "ner"
    if ner.is_dir():
        files += sorted(p for p in ner.rglob("*") if p.is_file())
    return files


@cache
def extractor_fingerprint(mode: str) -> str:
    """`default:2:1f0c…`: the mode, the extractor version and 12 hex digits identifying the shipped data."""
    digest = hashlib.sha256(_gazetteer_entries(PACKAGE_DIR / "data" / "gazetteer.tsv"))
    if mode == "default":
        for path in _model_files(PACKAGE_DIR / "model"):
            digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return f"{mode}:{EXTRACTOR_VERSIONS[mode]}:{digest.hexdigest()[:12]}"
