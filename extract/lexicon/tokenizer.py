"""Extra tokenizer rules: names glued by dashes, slashes or `$` split into tokens that align with them."""

DASH_CHARS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"

# split on any dash between alphanumerics, on `/`, `$`, `=` and `+` inside words, and on an opening
# parenthesis glued to a word before a capital (`Policy Optimization(GRPO)`: the acronym stays findable),
# on a closing parenthesis glued to a dash and the dash after it (`(GRU)-Recurrent`, `(RL)-based`), and
# on LaTeX's `~` before a command (`OfficeHome~\cite{x}`: the name is a token of its own)
INFIXES = (
    r"(?<=[a-z]{2})\((?=[A-Z])",
    rf"(?<=[0-9A-Za-z])\)(?=[\-{DASH_CHARS}])",
    rf"(?<=\))[\-{DASH_CHARS}](?=[0-9A-Za-z])",
    r"~(?=\\)",
    rf"(?<=[0-9A-Za-z])[\-{DASH_CHARS}](?=[0-9A-Za-z$])",
    rf"(?<=[A-Za-z0-9$])[\-{DASH_CHARS}](?=[A-Za-z0-9])",
    r"[/$=+]",
    r"(?<=[A-Za-z])(?=\$)",
)
# a sentence-final period after an upper-case or digit name (`GSM8K.`, `MMLU.`) is its own token
SUFFIXES = (r"(?<=[A-Za-z0-9][A-Z0-9])\.",)
