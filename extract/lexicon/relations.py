"""Sentence cues of relations between the paper's own method and the other mentions."""

import re

# a comparison (`outperforms X`, `than X`, `baselines`) before a method in its sentence
COMPARE_RE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|exceed\w*|beat\w*|compar\w*|better than|superior to|than|versus|vs\.?|"
    r"baselines?|over|against|relative to|unlike|instead of|rather than|improv\w+ (?:up)?on|existing|prior|"
    r"previous|conventional|traditional|standard|alternative)\b", re.I)
# use of a method (`built on X`, `via X`)
USE_RE = re.compile(
    r"\b(?:us(?:e|es|ing|ed)|build\w* (?:on|upon)|buil[dt] on|based on|extend\w*|combin\w*|integrat\w*|"
    r"incorporat\w*|leverag\w*|employ\w*|adopt\w*|via|through|with|apply\w*|appl(?:y|ies|ied)|"
    r"inspired by|relies on|rely on|equipp\w*|augment\w*)\b", re.I)
# a comparison strong enough to count in any sentence where the authors speak
STRONG_COMPARE_RE = re.compile(r"\b(?:outperform\w*|surpass\w*|compared (?:to|with)|better than)\b", re.I)
# the authors speak
WE_RE = re.compile(r"\b(?:we|our|this (?:paper|work|article))\b", re.I)
# relation of the head to a tail by the tail's type
TAIL_RELATION = {"Task": "ADDRESSES", "Metric": "MEASURED_BY", "Dataset": "EVALUATED_ON",
                 "Benchmark": "EVALUATED_ON"}
# `Long Name (` before a one-word name in parentheses
PAREN_NAME_RE = re.compile(r"\s*\(\s*$")
