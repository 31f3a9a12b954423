"""The resolver's tables: candidate sources by strength, words trimmed off predicted spans, and the
cues of a list of names of one kind (`benchmarks such as A, B and C`)."""

import re

# candidate sources, strongest first; a candidate is kept when it overlaps nothing kept before it
SOURCE_RANK = {"acro": 0, "model": 1, "gaz_exact": 2, "intro": 3, "gaz_lower": 4, "shape": 5, "ner": 6,
               "phrase": 7}
# sources whose type rules guess (acronym long forms, name shapes, introduced phrases)
TYPED_BY_TYPER = ("acro", "shape", "intro")

# words trimmed off the edges of a predicted span, and words that make it a clause
EDGE_DROP = {
    "(", ")", ",", "-", ".", ":", ";", "a", "all", "an", "and", "any", "are", "as", "at", "based", "be",
    "both", "by", "can", "directly", "each", "for", "from", "in", "into", "is", "its", "new", "novel",
    "of", "on", "or", "our", "such", "than", "that", "the", "their", "these", "this", "those", "to",
    "under", "using", "via", "we", "which", "with",
}
INSIDE_DROP = {
    ":", ";", "are", "be", "because", "can", "did", "do", "does", "had", "has", "have", "if", "is",
    "it", "may", "might", "must", "not", "our", "should", "show", "showed", "shows", "that", "they",
    "was", "we", "were", "when", "whereas", "which", "while", "will", "would",
}

LIST_KINDS = {"benchmark": "Benchmark", "dataset": "Dataset", "task": "Task", "metric": "Metric"}
LIST_CUE_RE = re.compile(r"\b(benchmark|dataset|task|metric)s?\s*(?:\([^()]*\))?\s*,?\s*"
                         r"(?:such as|including|like|namely|e\.g\.,?|i\.e\.,?|:)\s*\(?\s*$", re.I)
# Types a list cue does not override: model names' shape is surer than any list, and `tasks such as
# ImageNet 32x32` lists data under a task cue more often than not.
LIST_KEEPS = {"Benchmark": {"Model"}, "Dataset": {"Model"}, "Metric": {"Model"},
              "Task": {"Model", "Dataset", "Benchmark"}}
LIST_GAP_RE = re.compile(r"^\s*(?:,|,?\s*(?:and|or))?\s*(?:,\s*)?$")
