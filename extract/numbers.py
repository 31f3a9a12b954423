"""Numbers as abstracts write them, LaTeX included: where they are, what they say, how pages show them.

`find_numbers` reads a text left to right and returns every number with its sign, range and unit as
one span (`$-37.3$pp`, `95$--$99\\%`, `3.1$\\times$`, `10% to 25%`, `two orders of magnitude`), the
span copied as written so `text[start:end] == value` (what the results gold keeps). Whether a number
is a result is `extract/results.py`'s call; this module only reads numbers. Pure functions, no spaCy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from paperkg.extract.lexicon.results import (
    APPROX_RE,
    NUMBER,
    RANGE_SEP_RE,
    RANGE_TO_RE,
    UNIT_NAMES,
    UNIT_RE,
    WORD_RATIO_RE,
)

NUMBER_RE = re.compile(NUMBER)
# `from 40% to 1%` is two numbers, not a range
FROM_BEFORE_RE = re.compile(r"\bfrom\s+(?:about\s+|approximately\s+)?[$~\\sim]*$", re.I)
# a number glued to what comes before it is part of a name or markup (`GPT-4`, `pass@1`, `x^{2}`)
_GLUED_BEFORE = set("_@/.^{}#'")
_SIGNS = {"+": 1.0, "-": -1.0, "\u2212": -1.0, "\u00b1": 1.0}


@dataclass(frozen=True)
class Number:
    """One number of a text: `text[start:end] == value`."""

    value: str
    start: int
    end: int
    number: float | None
    upper: float | None
    unit: str
    signed: bool
    display: str


def find_numbers(text: str) -> list[Number]:
    """Every number of `text` in order, each with its sign, range and unit (see the module doc).
    Numbers glued to letters (`GPT-4`, `CIFAR10`, `7B`) are left out here: they are names or sizes."""
    out: list[Number] = []
    taken = 0
    for m in NUMBER_RE.finditer(text):
        if m.start() < taken:
            continue
        number = read_number(text, m.start(), m.end())
        if number is not None:
            out.append(number)
            taken = number.end
    for m in WORD_RATIO_RE.finditer(text):
        if not any(n.start < m.end() and m.start() < n.end for n in out):
            out.append(Number(m.group(), m.start(), m.end(), None, None, "x", False, m.group()))
    return sorted(out, key=lambda n: n.start)


def read_number(text: str, s: int, e: int) -> Number | None:
    """The number whose digits are `text[s:e]`, grown to its sign, math dollars, range and unit; None
    when the digits are glued into a word or markup."""
    prev = text[s - 1] if s else " "
    if _glued(text, s) or (e < len(text) and text[e].isalpha() and not UNIT_RE.match(text, e)):
        return None
    if re.match(r"\.\d", text[e:e + 2]):
        return None     # a version, `2.4.8`
    start, sign = s, 1.0
    if prev in _SIGNS:
        if _glued(text, s - 1) or text[s - 2:s - 1] == ")":
            return None     # `GPT-4`, `(a)-1`
        start, sign = s - 1, _SIGNS[prev]
    end = e
    # math dollars around the number alone belong to it (`$0.64$`, `$-37.3$pp`)
    if start and text[start - 1] == "$" and text.startswith("$", end):
        start, end = start - 1, end + 1
    low = _float(text[s:e]) * sign
    upper = None
    unit, end = _unit(text, end)
    # a range: `95$--$99\%`, `5-10%`, `10% to 25%` (not `from 40% to 1%`: two numbers)
    sep = RANGE_SEP_RE.match(text, end) or (RANGE_TO_RE.match(text, end) if unit else None)
    if sep and not FROM_BEFORE_RE.search(text[max(0, start - 30):start]):
        second = NUMBER_RE.match(text, sep.end())
        if second and (second.end() >= len(text) or not text[second.end()].isalpha()
                       or UNIT_RE.match(text, second.end())):
            unit2, end2 = _unit(text, second.end())
            if (not unit or not unit2 or unit == unit2) and (unit2 or sep.group().strip() != "to"):
                upper = _float(second.group())
                unit, end = unit2 or unit, end2
    value = text[start:end]
    if not any(c.isdigit() for c in value):
        return None
    signed = any(c in _SIGNS for c in text[start:s])
    return Number(value, start, end, low, upper, unit, signed, display(value))


def _glued(text: str, pos: int) -> bool:
    """Whether `text[pos]` is glued to a word or markup before it (`GPT-4`, `pass@1`, `x^{2}`); a brace
    of a command (`\\textbf{+40.3\\%}`) is not glue."""
    prev = text[pos - 1] if pos else " "
    if prev == "{":
        return text[pos - 2:pos - 1] in ("^", "_")
    return prev.isalnum() or prev in _GLUED_BEFORE


def _unit(text: str, pos: int) -> tuple[str, int]:
    m = UNIT_RE.match(text, pos)
    if not m:
        return "", pos
    name = UNIT_NAMES[int(m.lastgroup[1:])]
    return name, m.end()


def _float(digits: str) -> float:
    return float(digits.replace(",", ""))


def approximate_before(text: str, start: int) -> bool:
    """Whether `~`, `$\\sim$` or `\\approx` comes just before `start` (an approximate value)."""
    return bool(APPROX_RE.search(text[max(0, start - 12):start]))


@cache
def _latex() -> object:
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text")


def display(value: str) -> str:
    """What a page shows for a value written in LaTeX: `65.8\\%` -> `65.8%`, `3.1$\\times$` -> `3.1×`,
    `95$--$99\\%` -> `95–99%`, `22.91$^\\circ$` -> `22.91°`; plain values as they are."""
    if "\\" not in value and "$" not in value and "--" not in value:
        return value
    try:
        shown = _latex().latex_to_text(value)
    except Exception:   # pylatexenc on malformed markup: show what is written, without dollars
        shown = value.replace("$", "")
    return shown.replace("^\u2218", "\u00b0").replace("^\\circ", "\u00b0").strip()
