"""Extra tokenizer rules: names glued by dashes, slashes or `$` split into tokens that align with them."""

DASH_CHARS = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"

# split on any dash between alphanumerics, on `/`, `$`, `=` and `+` inside words
INFIXES = (
    rf"(?<=[0-9A-Za-z])[\-{DASH_CHARS}](?=[0-9A-Za-z$])",
    rf"(?<=[A-Za-z0-9$])[\-{DASH_CHARS}](?=[A-Za-z0-9])",
    r"[/$=+]",
    r"(?<=[A-Za-z])(?=\$)",
)
# a sentence-final period after an upper-case or digit name (`GSM8K.`, `MMLU.`) is its own token
SUFFIXES = (r"(?<=[A-Za-z0-9][A-Z0-9])\.",)
