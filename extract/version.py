"""Which extractor produced an extraction, so a store re-extracts papers when the extractor changes.

Stores keep every paper's extraction and a build only extracts papers it has not seen. Without a
fingerprint, upgrading paperkg (new rules, a retrained model, a larger gazetteer) or switching
`--mode` would leave old extractions in the graph for ever. The fingerprint is a hash of what decides
the output: the mode, the extraction code and the shipped models and gazetteers. It is computed from
the files, not a hand-bumped number, so no change can be forgotten; reading and build code
(`readers.py`, `ingest.py`) and training scripts are left out because they do not change what is
extracted from a text. No spaCy import here: the check runs before any pipeline is loaded.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).parent
# Files of the package that do not decide what is extracted from a given text.
_NOT_EXTRACTION = frozenset({"__init__.py", "ingest.py", "readers.py", "version.py"})


def _inputs() -> list[Path]:
    code = [p for p in PACKAGE_DIR.rglob("*.py") if p.name not in _NOT_EXTRACTION
            and "training" not in p.relative_to(PACKAGE_DIR).parts]
    artefacts = [p for folder in ("model", "data") for p in (PACKAGE_DIR / folder).rglob("*")
                 if p.is_file() and p.name != "README.md"]
    return sorted(code + artefacts)


@cache
def extractor_fingerprint(mode: str) -> str:
    """`rules:1f0c…`: the mode and the first 16 hex digits of a SHA-256 over the extraction's inputs."""
    digest = hashlib.sha256(mode.encode())
    for path in _inputs():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return f"{mode}:{digest.hexdigest()[:16]}"
