"""Reading abstracts and extracting entities and relations from them.

spaCy is imported only by the pipeline and its component modules, never here, in `readers`
or `version`.

The package is callable: `paperkg.extract(texts)` (the library's extract, see the top-level
`paperkg` module) is `paperkg.extract.pipeline.extract_texts(texts)`. A plain function of that name
cannot be had, since importing any `paperkg.extract.*` module makes this package the `extract`
attribute of `paperkg`.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paperkg.graph.records import Extraction


class _CallablePackage(types.ModuleType):
    def __call__(self, texts: Iterable[str | tuple[str, str]], *, mode: str = "default",
                 jobs: int = 1) -> list[Extraction]:
        """`paperkg.extract(texts)`: see `paperkg.extract.pipeline.extract_texts`."""
        from paperkg.extract.pipeline import extract_texts

        return extract_texts(texts, mode=mode, jobs=jobs)


sys.modules[__name__].__class__ = _CallablePackage
