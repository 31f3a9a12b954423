"""Words of the unnamed methods a paper introduces (`we propose a two-stage pruning framework`): the verbs
that introduce one, the head nouns it ends with, and the praise words its gold form leaves out."""

import re

INTRO_VERB_RE = r"(?:propose|introduce|present|develop|design|build|construct)(?:s|d)?"
# who is speaking: `we propose`, `this paper introduces`, `our work presents`
SPEAKER_RE = (r"(?:we|(?:this|our|the\s+present)\s+(?:paper|work|study))\s+"
              r"(?:first\s+|further\s+|then\s+|also\s+)?")
DETERMINER_RE = r"(?:a|an|the)"
HEAD_NOUNS = ("framework", "method", "approach", "model", "algorithm", "pipeline", "architecture", "system",
              "recipe", "strategy", "technique", "mechanism", "network", "module", "paradigm", "scheme",
              "procedure", "agent")
# at most five words before the head noun, the whole phrase in one sentence
DESCRIBED_RE = re.compile(
    rf"\b{SPEAKER_RE}{INTRO_VERB_RE}\s+{DETERMINER_RE}\s+((?:[\w\-]+\s+){{0,5}}?(?:{'|'.join(HEAD_NOUNS)}))\b",
    re.I)
# praise and scope words gold leaves out of the method's name (`a novel, simple X framework`)
PRAISE = frozenset({"novel", "new", "simple", "unified", "first", "effective", "efficient", "general",
                    "innovative", "robust", "lightweight", "improved", "yet", "more", "alternative",
                    "generic", "theoretical", "principled"})
