"""paperkg's spaCy components, registered in one place (and as `spacy_factories` entry points, so that
`spacy.load` of a saved pipeline finds them). Each component lives in its own module with its pure
functions beside it; word lists and patterns live in `lexicon/`. Config is keyword-only."""

from __future__ import annotations

from spacy.language import Language

from paperkg.extract.acronyms import AcronymDetector
from paperkg.extract.described_methods import DEFAULT_CONFIDENCE, DescribedMethods
from paperkg.extract.gazetteer import GazetteerMatcher
from paperkg.extract.intro_names import IntroducedNameFinder
from paperkg.extract.introduced import IntroductionMarker
from paperkg.extract.mention_scorer import MentionScorer
from paperkg.extract.model_names import ModelNameMatcher
from paperkg.extract.name_shapes import NameShapeMatcher
from paperkg.extract.phrases import PhraseFinder
from paperkg.extract.relation_scorer import RelationScorer
from paperkg.extract.relations import RelationExtractor
from paperkg.extract.resolver import MentionResolver
from paperkg.extract.results import ResultFinder
from paperkg.extract.sentences import SentenceSplitter
from paperkg.extract.typer import SpanTyperComponent


@Language.factory("paperkg_sentences")
def make_sentences(nlp: Language, name: str) -> SentenceSplitter:
    return SentenceSplitter(name)


@Language.factory("paperkg_acronyms")
def make_acronyms(nlp: Language, name: str) -> AcronymDetector:
    return AcronymDetector(name)


@Language.factory("paperkg_model_names")
def make_model_names(nlp: Language, name: str) -> ModelNameMatcher:
    return ModelNameMatcher(name)


@Language.factory("paperkg_name_shapes")
def make_name_shapes(nlp: Language, name: str) -> NameShapeMatcher:
    return NameShapeMatcher(name)


@Language.factory("paperkg_intro_names")
def make_intro_names(nlp: Language, name: str) -> IntroducedNameFinder:
    return IntroducedNameFinder(name)


@Language.factory("paperkg_gazetteer", default_config={"path": None})
def make_gazetteer(nlp: Language, name: str, *, path: str | None) -> GazetteerMatcher:
    return GazetteerMatcher(nlp, name, path=path)


@Language.factory("paperkg_phrases", default_config={"path": None, "min_prob": 0.3})
def make_phrases(nlp: Language, name: str, *, path: str | None, min_prob: float) -> PhraseFinder:
    return PhraseFinder(name, path=path, min_prob=min_prob)


@Language.factory("paperkg_typer", default_config={"path": None, "min_prob": 0.8})
def make_typer(nlp: Language, name: str, *, path: str | None, min_prob: float) -> SpanTyperComponent:
    return SpanTyperComponent(name, path=path, min_prob=min_prob)


@Language.factory("paperkg_resolver")
def make_resolver(nlp: Language, name: str) -> MentionResolver:
    return MentionResolver(name)


@Language.factory("paperkg_introduced")
def make_introduced(nlp: Language, name: str) -> IntroductionMarker:
    return IntroductionMarker(name)


@Language.factory("paperkg_relations")
def make_relations(nlp: Language, name: str) -> RelationExtractor:
    return RelationExtractor(name)


@Language.factory("paperkg_mentions", default_config={"path": None, "threshold": None})
def make_mentions(nlp: Language, name: str, *, path: str | None, threshold: float | None) -> MentionScorer:
    return MentionScorer(name, path=path, threshold=threshold)


@Language.factory("paperkg_described_methods", default_config={"confidence": DEFAULT_CONFIDENCE})
def make_described_methods(nlp: Language, name: str, *, confidence: float) -> DescribedMethods:
    return DescribedMethods(name, confidence=confidence)


@Language.factory("paperkg_relation_scorer", default_config={"path": None})
def make_relation_scorer(nlp: Language, name: str, *, path: str | None) -> RelationScorer:
    return RelationScorer(name, path=path)


@Language.factory("paperkg_results", default_config={"path": None})
def make_results(nlp: Language, name: str, *, path: str | None) -> ResultFinder:
    return ResultFinder(name, path=path)
