"""Where spaCy's sentencizer ends a sentence that goes on (`extract/sentences.py`)."""

import re

# words whose period is an abbreviation's, not a sentence's end, unless a capital follows (`Milionis
# et al. 2022)`, `approx. 383X`, `ie. a training step`); so is any word with a period inside
# (`w.r.t.`, `i.i.d.`; not a decimal) and a list number (`1. deliberate reasoning`)
ABBREVIATIONS = frozenset({"al", "etc", "approx", "avg", "viz", "cf", "resp", "wrt", "ie", "eg", "vs",
                           "eq", "eqs", "fig", "figs", "sec", "ref", "refs"})
# the sentencizer keeps punctuation after a sentence's end with that sentence: an opening bracket
# there (`... methods. (2) The integration`) starts the next one, and after an abbreviation
# (`Vidal et al. (2013)`) it continues the sentence, as a separator does (`(Wang et al., 2022)`)
BRACKETS = frozenset({"(", "[", "{"})
SEPARATORS = frozenset({",", ";", ":"})
# a sentence does not start with these
CONTINUATIONS = frozenset({",", ";", ":", ")", "]", "}"})
ENDS = frozenset({".", "?", "!"})
# letters with periods inside (`w.r.t`, `i.i.d`, `e.g`); not a name with a version (`Qwen2.5`)
DOTTED_RE = re.compile(r"[A-Za-z]+(?:\.[A-Za-z]+)+")
