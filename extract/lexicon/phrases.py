"""The learned phrase finder's chunking: words that cut an abstract into candidate chunks and tokens
that glue words together inside one."""

from spacy.lang.en.stop_words import STOP_WORDS

CHUNK_BREAK = frozenset(STOP_WORDS) | {
    "propose", "proposes", "proposed", "show", "shows", "shown", "achieve", "achieves", "achieving",
    "improve", "improves", "improving", "improved", "use", "uses", "using", "used", "based", "present",
    "presents", "introduce", "introduces", "demonstrate", "demonstrates", "novel", "new", "existing",
    "prior", "various", "several", "different", "leads", "lead", "enables", "enable", "allows", "allow",
    "yields", "provides", "provide", "require", "requires", "remains", "via", "outperforms", "outperform",
    "approach", "method", "framework", "methods", "approaches", "results", "performance", "paper", "work",
    "study", "effective", "efficient", "significantly", "challenging", "key", "e.g.", "i.e.", "et", "al",
}
CHUNK_GLUE = {"-", "$", "+", "/", "\u2010", "\u2011", "\u2013", "^", "_", "{", "}"}
MAX_PHRASE = 6
