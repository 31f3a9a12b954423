"""Reading abstracts and extracting entities and relations from them.

spaCy is imported only by the pipeline and its component modules, never here, in `readers`
or `version`.
"""
