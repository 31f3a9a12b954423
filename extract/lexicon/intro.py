"""Cues of names a paper introduces (`we propose X`, `called X`, `X, a novel method`) and the words
an introduced phrase skips, ends at or may not contain."""

import re

# -- the phrase after `we propose/introduce/...` and `called/dubbed X` (candidate source `intro`) --
INTRO_VERBS = {"propose", "introduce", "present", "develop", "design", "devise", "formulate", "construct",
               "build", "release", "curate", "proposes", "introduces", "presents", "develops"}
NAMING_CUES = {"called", "dubbed", "named", "termed", "coined"}
INTRO_SKIP = {
    "a", "an", "and", "computationally", "easy-to-implement", "effective", "efficient", "elegant",
    "first", "flexible", "fully", "general", "generic", "highly", "lightweight", "new", "novel", "our",
    "plug-and-play", "powerful", "practical", "principled", "provably", "scalable", "simple",
    "simple-to-implement", "the", "theoretically", "three", "two", "unified", "versatile", "yet",
    "second", "third", "several", "multiple", "both", "single", "comprehensive", "systematic", "modular",
    "minimal", "surprisingly", "remarkably", "tractable", "rigorous", "complementary", "alternative",
}
CONTAINERS = {
    "class", "collection", "extension", "family", "form", "generalization", "instance", "kind",
    "series", "set", "suite", "type", "variant", "version",
}
GENERIC_HEADS = {
    "algorithm", "algorithms", "approach", "approaches", "architecture", "concept", "construction",
    "extension", "family", "formulation", "framework", "frameworks", "idea", "implementation",
    "library", "mechanism", "mechanisms", "method", "methodology", "methods", "model", "models",
    "module", "notion", "operation", "operations", "paradigm", "pipeline", "procedure", "protocol",
    "recipe", "scheme", "setting", "solution", "strategies", "strategy", "system", "technique",
    "techniques", "tool", "toolkit", "variant",
}
PHRASE_STOP = {
    "(", ")", ",", "--", ".", ":", ";", "and", "are", "as", "at", "based", "because", "between", "by",
    "can", "for", "from", "in", "into", "is", "it", "its", "on", "or", "over", "than", "that", "these",
    "this", "through", "to", "under", "using", "via", "we", "when", "where", "whereby", "which",
    "while", "who", "whose", "with", "without", "–", "—",
}
# a one-word phrase that is lower case and has no capital, digit or `$` is an adjective, not a name
SHAPE_TOKEN = re.compile(r"^(?:[A-Z].*|.*[A-Z0-9$].*)$")
INTRO_CUE_RE = re.compile(
    r"\b(?:(?:we|paper|work|article|study|also|then|further)\s+("
    + "|".join(sorted(INTRO_VERBS)) + r")|(" + "|".join(sorted(NAMING_CUES)) + r"))\b(?=\s)", re.I)
# words that make a phrase after a cue a clause fragment (`theoretical results`), not a name
NOT_NAME_WORDS = {
    "result", "results", "theory", "theories", "definition", "assumption", "analysis", "analyses",
    "example", "examples", "problem", "problems", "number", "bound", "bounds", "proof", "proofs",
    "guarantee", "guarantees", "insight", "insights", "such", "evaluate", "study", "studies", "way",
    "ways", "view", "perspective", "understanding", "finding", "findings", "evidence", "set", "series",
}

# -- flags: a mention right after one of these cues in its sentence is presented as new --
INTRO_RE = re.compile(
    r"\b(?:we\s+(?:propose|introduce|present|develop|design|call|name|term|dub|release|construct|build|curate)"
    r"(?:\s+(?:a|an|the))?(?:\s+(?:new|novel|simple|general|unified|effective|efficient|principled|"
    r"lightweight|scalable|first))*|called|dubbed|named|termed|coined|our)\s*$",
    re.I)
INTRO_VERB_RE = re.compile(r"\bwe\s+(?:\w+\s+)?(?:propose|introduce|present|develop|design|devise|call|name|"
                           r"term|dub)\b", re.I)
APPOSITIVE_RE = re.compile(
    r"\s*(?:\([^()]{1,80}\))?\s*[,:]\s*(?:a|an|the|our)\s+(?:[\w-]+\s+){0,4}?(?:method|framework|approach|"
    r"algorithm|model|technique|strategy|mechanism|architecture|system|pipeline|paradigm|procedure|"
    r"recipe|scheme|module|agent|family|suite|benchmark|dataset)\b", re.I)
# a link word after `we propose` (`which builds on`, `using`): the name that follows is not ours
NOT_OURS_RE = re.compile(r"\b(?:which|that|based|builds?|built|using|uses?|with|via|than|compared|"
                         r"such as|including|like|extends?|extending|against|unlike|instead)\b", re.I)
