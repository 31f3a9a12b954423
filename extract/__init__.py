"""Reading abstracts and extracting entities and relations from them.

spaCy is imported only by the modules that need it (`pipeline`, `factories`), never here.
"""
