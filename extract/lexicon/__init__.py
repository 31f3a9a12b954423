"""Word lists and patterns of the extraction components, one data module per component.

Data only (no spaCy import, no functions over Docs), so that a change of a list is a change of data and
the components' modules hold only their logic.
"""
