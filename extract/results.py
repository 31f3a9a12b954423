"""Reported results: the numbers an abstract states as the outcome of running a method or model
(`RESULTS_GUIDELINE.md`), each with its kind and linked to the abstract's own mentions.

Three steps, each a pure function over plain values so that training and cross-validation run them on
gold mentions as well as on the pipeline's:
- `extract/numbers.py` reads every number with its sign, range and unit (`$-37.3$pp`, `95$--$99\\%`);
- `refused` and `rule_kind` decide whether a number is a result and of which kind (absolute, delta,
  ratio): the refusals of the guideline first (numbers inside a mention's span are names: `GPT-4`,
  `AIME 2024`; sizes `7B`, `10k images`; settings `k = 8`; spreads `+- 0.04`; years; bare counts), then
  the unit and the cue words around the number (a learned kind classifier lost to these rules in CV);
- `link` names the result's subject, benchmark, metric and baseline among the mentions by rules (a name
  right after the number, `77.8 rank-1 accuracy`, `(MATH500)`, `on GSM8K`, beats one before it, `pass@1
  of 71.3`; a baseline follows `over`/`than`/`compared to`; the subject is the nearest method before the
  number unless the paper's own method is named in the sentence, and the paper's own method when none
  is); in `default` mode the learned linker (`result_links.py`, `model/results.json`, trained by
  `python -m paperkg.extract.training.train_results`) then chooses subject, benchmark and metric with
  the rules' answer as one of its features; then what the sentence's grammar says outranks it, each
  over the one before: a time, memory or throughput names no benchmark but one written right after it;
  a name written right after the number, or just before the brackets it opens, is its own
  (`adjacent_names`: `94.61% on ASDiv`, `8-10% for Qwen`, `SAGE (+12.4)`), one number over a list of
  benchmarks names none (`over_several`), the name a result verb follows is the subject
  (`verb_subject`), else `our method achieves` names the paper's method (`own_subject`), a
  `respectively` list pairs numbers and names in order, a description is no subject (`unnamed`);
  numbers of one list share a metric, the ends of a change a benchmark, and the first value of `from A
  to B` (or `A to B`) is the score before.

Writes `doc._.paperkg_results`: one `ResultMention` per result, in text order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import pairwise

from spacy.tokens import Doc

from paperkg.extract.doc_utils import FINAL, doc_text, sentence_index
from paperkg.extract.lexicon.results import (
    ADJACENT_BENCHMARK_RE,
    ADJACENT_SUBJECT_RE,
    BASELINE_BEFORE_RE,
    BENCHMARK_LIST_GAP_RE,
    BOUND_BEFORE_RE,
    BRACKET_GAP_RE,
    BRACKETED_AFTER_RE,
    CHANGE_BESIDE_RE,
    CHANGE_NOUN_AFTER_RE,
    CLAUSE_BREAK_RE,
    CLAUSE_GAP_RE,
    COST_RE,
    COST_UNITS,
    DATA_SIZE_AFTER_RE,
    DATA_UNITS,
    DECADE_RE,
    DELTA_AFTER_RE,
    DELTA_BEFORE_RE,
    DELTA_UNITS,
    DELTA_UP_TO_RE,
    FREEDOM_AFTER_RE,
    GAP_BEFORE_RE,
    GENERIC_HEADS,
    GENERIC_MODIFIERS,
    GLUED_BEFORE_RE,
    HARDWARE_AFTER_RE,
    HOURS_OF_AFTER_RE,
    HUMAN_AFTER_RE,
    HUMAN_BEFORE_RE,
    LIST_GAP_RE,
    METRIC_GAP_RE,
    MODIFIER_AFTER_RE,
    NEGATED_BEFORE_RE,
    OWN_CUT_RE,
    OWN_SUBJECT_RE,
    RATIO_UNITS,
    REFERENCE_AFTER_RE,
    RESPECTIVELY_RE,
    SCALE_AFTER_RE,
    SCORE_UP_TO_RE,
    SETTING_AFTER_RE,
    SETTING_BEFORE_RE,
    SHARE_AFTER_RE,
    SHARE_OF_BEFORE_RE,
    SIZE_AFTER_RE,
    SPREAD_AFTER_RE,
    SPREAD_BEFORE_RE,
    SUBJECT_VERB_AFTER_RE,
    TO_BEFORE_RE,
    VERSION_NAME_BEFORE_RE,
    YEAR_RE,
)
from paperkg.extract.numbers import FROM_BEFORE_RE, Number, find_numbers
from paperkg.extract.result_links import FILE_NAME, ROLES, Linker, learned_links
from paperkg.extract.weights import LearnedWeights
from paperkg.graph.records import ResultMention

if not Doc.has_extension("paperkg_results"):
    Doc.set_extension("paperkg_results", default=None)

SUBJECT_TYPES = ("Method", "Model")
BENCHMARK_TYPES = ("Dataset", "Benchmark")


@dataclass(frozen=True)
class Ent:
    """A mention as the results step sees it: `text[start:end] == surface`."""

    start: int
    end: int
    type: str
    surface: str


class ResultFinder(LearnedWeights):
    """Pipeline component `paperkg_results` (last: it reads the mentions, aliases and the paper's method,
    `doc._.paperkg_head`); the learned linker, if loaded, is saved with the pipeline."""

    weights_class = Linker
    weights_file = FILE_NAME

    def __init__(self, name: str, *, path: str | None = None) -> None:
        self.name = name
        self.model: Linker | None = Linker.from_disk(path) if path else None

    def __call__(self, doc: Doc) -> Doc:
        text = doc_text(doc)
        sents, _ = sentence_index(doc)
        sentences = [(s.start_char, s.end_char) for s in sents]
        mentions = [Ent(s.start_char, s.end_char, s.label_, s.text) for s in doc.spans.get(FINAL, [])]
        main = main_method(doc._.paperkg_head, mentions, {tuple(x) for x in doc._.paperkg_introduced or []},
                           doc._.paperkg_aliases or [])
        doc._.paperkg_results = find_results(text, sentences, mentions, doc._.paperkg_aliases or [], main,
                                             self.model)
        return doc


def main_method(head: str | None, mentions: list[Ent], introduced: set[tuple[int, int]],
                aliases: list) -> str | None:
    """The paper's own method: the relation component's head (`doc._.paperkg_head`), else its first
    introduced method or model (named by its long form)."""
    canon = {short: long for long, short in aliases}
    if head:
        return canon.get(head, head)
    for m in mentions:
        if m.type in SUBJECT_TYPES and (m.start, m.end) in introduced:
            return canon.get(m.surface, m.surface)
    return None


def find_results(text: str, sentences: list[tuple[int, int]], mentions: list[Ent], aliases: Iterable,
                 main: str | None, model: Linker | None = None) -> list[ResultMention]:
    """The results of one abstract (see the module doc); `model` is the learned linker, None for the
    rules alone."""
    mentions = sorted(mentions, key=lambda m: (m.start, -m.end))
    canon = {short: long for long, short in aliases}
    for short, long in bracketed_names(text, mentions).items():
        canon.setdefault(short, long)
    found: list[tuple[Number, int, str]] = []
    for number in find_numbers(text):
        sent = _sentence_of(sentences, number.start)
        if refused(text, number, mentions):
            continue
        kind = rule_kind(text, number, sentences[sent] if sentences else (0, len(text)))
        if kind != "none":
            found.append((number, sent, kind))
    found = _share_kinds(text, found)
    listed = respectively_links(text, found, sentences, mentions, canon)
    before = {n.start for (n, s, _), (m, t, _) in pairwise(found)
              if s == t and TO_GAP_RE.fullmatch(text[n.end:m.start])}
    out = []
    for number, sent, kind in found:
        bounds = sentences[sent] if sentences else (0, len(text))
        same = [n for n, s, _ in found if s == sent]
        links = link(text, number, kind, bounds, mentions, same, main, canon)
        confidence = 1.0
        if model is not None:
            others = [n.start for n, _, _ in found if n is not number]
            learned, confidence = learned_links(text, sentences, number, kind, mentions, canon, main, others,
                                                links, model)
            links.update(learned)
        if number.unit in COST_UNITS:
            links["benchmark"] = None
        adjacent = adjacent_names(text, number, mentions, canon)
        links.update(adjacent)
        if over_several(text, number, bounds, mentions, same):
            links["benchmark"] = None
        named = verb_subject(text, number, bounds, mentions, canon)
        if named is not None:
            links["subject"] = named
        elif "subject" not in adjacent and (own := own_subject(text, number, bounds, mentions, canon)):
            links["subject"] = own[0] if own[0] is not None else main
        links.update(listed.get(number.start, {}))
        for role in ("subject", "baseline"):
            if links[role] is not None and unnamed(links[role]):
                links[role] = None
        if FROM_BEFORE_RE.search(text[max(0, number.start - 30):number.start]) or number.start in before:
            # `improves PSNR from 26.10 to 28.36`, `(Jaccard 0.4488 to 0.4983)`: the first is the score
            # before, not the subject's
            links["subject"] = links["baseline"]
        if links["baseline"] == links["subject"]:
            links["baseline"] = None
        out.append(ResultMention(value=number.value, kind=kind, start=number.start, end=number.end,
                                 sentence=sent, display=number.display, number=number.number,
                                 upper=number.upper, unit=number.unit, confidence=round(confidence, 4),
                                 **links))
    return _share_with_neighbours(text, out)


def bracketed_names(text: str, mentions: list[Ent]) -> dict[str, str]:
    """Short names defined in brackets that the acronym rules leave alone, since their letters are not
    the long form's (`Gradient-Reweighted Advantage (GRAIL)`, `Hybrid Motion Video Diagnosis framework
    (HMVDx)`): a one-word name with a capital, in brackets right after a longer method or model name
    (a generic head such as `framework` between) that starts with its letter. Short -> long; a
    result names its subject by the long form, as the results gold does."""
    out: dict[str, str] = {}
    names = [m for m in mentions if m.type in SUBJECT_TYPES]
    for long, short in pairwise(names):
        if (" " in short.surface or not any(c.isupper() for c in short.surface)
                or len(short.surface) >= len(long.surface)
                or short.surface[0].casefold() != long.surface[0].casefold()):
            continue
        closes = text[short.end:short.end + 2].lstrip()[:1] in "),;"
        if closes and BRACKET_GAP_RE.fullmatch(text[long.end:short.start]):
            out.setdefault(short.surface, long.surface)
    return out


def adjacent_names(text: str, number: Number, mentions: list[Ent], canon: dict[str, str]) -> dict[str, str]:
    """Names written right after the number, whatever the linker scores: `96.66% on GSM8K, 94.61% on
    ASDiv` (each number's own benchmark), also past the metric's name (`94.7% accuracy on the SNLI
    dataset, 94.0% accuracy on the E-SNLI dataset`), `54-76% for GPT, 8-10% for Qwen` (each number's own
    model); and the name whose brackets the number opens (`SAGE (+12.4)`, `than GPT-4o (33.2%)`)."""
    out: dict[str, str] = {}
    end = number.end      # the number, or the metric's name right after it
    for i, m in enumerate(mentions):
        if m.end <= number.start and BRACKETED_AFTER_RE.fullmatch(text[m.end:number.start]):
            if m.type in BENCHMARK_TYPES:
                out["benchmark"] = m.surface
            elif m.type in SUBJECT_TYPES:
                out["subject"] = canon.get(m.surface, m.surface)
        if m.start < end:
            continue
        if m.start - end > 12:
            break
        gap = text[end:m.start]
        if m.type == "Metric" and end == number.end and METRIC_GAP_RE.fullmatch(gap):
            end = m.end
            continue
        if MODIFIER_AFTER_RE.match(text, m.end):
            continue    # `for ChatGPT-generated text`, `ImageNet-pretrained`: a modifier, not the name's own
        group = BENCHMARK_TYPES if m.type in BENCHMARK_TYPES else SUBJECT_TYPES
        if m.type not in group or (end != number.end and _heads_a_list(text, m, mentions[i + 1:], group)):
            continue
        if group is BENCHMARK_TYPES and ADJACENT_BENCHMARK_RE.fullmatch(gap):
            out.setdefault("benchmark", m.surface)
        elif group is SUBJECT_TYPES and ADJACENT_SUBJECT_RE.fullmatch(gap):
            out.setdefault("subject", canon.get(m.surface, m.surface))
    return out


def _heads_a_list(text: str, first: Ent, after: list[Ent], group: Iterable[str]) -> bool:
    """Whether another name of `first`'s group follows it as the next item of a list (`on HotpotQA,
    2WikiMultihopQA and MuSiQue`): then the numbers before pair with the list in order, which the
    linker decides."""
    nxt = next((m for m in after if m.start >= first.end), None)
    return (nxt is not None and nxt.type in group
            and bool(BENCHMARK_LIST_GAP_RE.fullmatch(text[first.end:nxt.start])))


def over_several(text: str, number: Number, bounds: tuple[int, int], mentions: list[Ent],
                 same: list[Number]) -> bool:
    """One number over a list of benchmarks (`F1-scores exceeding 99% on FF++, Celeb-DF, and VDFD`) is
    measured on none of them alone (RESULTS_GUIDELINE: an average over benchmarks has no benchmark);
    a list of numbers with its list of benchmarks (`45.2% and 71.3% on AIME 2024 and MATH500`) is not."""
    if any(n is not number and abs(n.start - number.start) <= 60 and LIST_GAP_RE.fullmatch(
            text[min(n.end, number.end):max(n.start, number.start)]) for n in same):
        return False
    limit = min([n.start for n in same if n.start > number.start] + [bounds[1]])
    benches = [m for m in mentions if m.type in BENCHMARK_TYPES and number.end <= m.start < limit]
    if len(benches) < 2 or len(text[number.end:benches[0].start]) > 30:
        return False
    return bool(BENCHMARK_LIST_GAP_RE.fullmatch(text[benches[0].end:benches[1].start]))


def unnamed(name: str) -> bool:
    """A description standing where a name should (`automated framework`, `generalized framework`)."""
    words = name.casefold().split()
    return (len(words) <= 4 and words[-1] in GENERIC_HEADS
            and all(w in GENERIC_MODIFIERS for w in words[:-1]))


def verb_subject(text: str, number: Number, bounds: tuple[int, int], mentions: list[Ent],
                 canon: dict[str, str]) -> str | None:
    """The method or model the sentence says reached the number: the last one before it, in its
    sentence, that a result verb follows (`GRAIL achieved an average improvement of 3.60%`), unless a
    comparison names it the baseline (`than X achieves`). It outranks the paper's own method, which
    the sentence may not be about (`GMPO-7B outperforms GRPO by 4.1%`, `ChatGPT-5 peaks at 0.90`)."""
    a = bounds[0]
    names = [m for m in mentions if m.type in SUBJECT_TYPES and a <= m.start and m.end <= number.start]
    for m in reversed(names):
        if (SUBJECT_VERB_AFTER_RE.match(text[m.end:m.end + 60])
                and not GLUED_BEFORE_RE.search(text[a:m.start])
                and not BASELINE_BEFORE_RE.search(text[max(a, m.start - 40):m.start])):
            return canon.get(m.surface, m.surface)
    return None


def own_subject(text: str, number: Number, bounds: tuple[int, int], mentions: list[Ent],
                canon: dict[str, str]) -> tuple[str | None] | None:
    """`our method achieves up to 16%`, `our fine-tuned RoBERTa-base model achieved 0.801`: the paper's
    own method said to reach the number in its sentence, unless a comparison between them hands the
    number to another (`compared to 3.43 for`, `the Decision Tree baseline which achieves 96.2%`).
    Returns (the name inside the phrase, or None for the paper's method however it is named), or None
    when the sentence does not say so."""
    phrases = list(OWN_SUBJECT_RE.finditer(text, bounds[0], number.start))
    if not phrases or OWN_CUT_RE.search(text, phrases[-1].end(), number.start):
        return None
    own = phrases[-1]
    inside = [m for m in mentions
              if m.type in SUBJECT_TYPES and own.start() <= m.start and m.end <= own.end()]
    return (canon.get(inside[-1].surface, inside[-1].surface),) if inside else (None,)


def respectively_links(text: str, found: list[tuple[Number, int, str]], bounds: list[tuple[int, int]],
                       mentions: list[Ent], canon: dict[str, str]) -> dict[int, dict[str, str]]:
    """`77.8 and 80.4 on Gait3D and GREW, respectively`: the numbers of a list followed by
    `respectively` take the names of an equally long list of one role in their sentence, in order
    (the names after the numbers, else before them). Number start -> {role: name}."""
    out: dict[int, dict[str, str]] = {}
    groups: list[list[tuple[Number, int]]] = []
    for number, sent, _kind in found:
        last = groups[-1][-1] if groups else None
        if last and last[1] == sent and LIST_GAP_RE.fullmatch(text[last[0].end:number.start]):
            groups[-1].append((number, sent))
        else:
            groups.append([(number, sent)])
    for group in groups:
        a, b = bounds[group[0][1]] if bounds else (0, len(text))
        first, last = group[0][0], group[-1][0]
        if len(group) < 2 or not RESPECTIVELY_RE.search(text[last.end:b]):
            continue
        for role, types in ROLES.items():
            for side in ([m for m in mentions if last.end <= m.start < b],
                         [m for m in mentions if a <= m.start and m.end <= first.start]):
                names = list(dict.fromkeys(canon.get(m.surface, m.surface) for m in side if m.type in types))
                if len(names) == len(group):
                    for (number, _s), name in zip(group, names, strict=True):
                        out.setdefault(number.start, {})[role] = name
                    break
    return out


def _share_with_neighbours(text: str, results: list[ResultMention]) -> list[ResultMention]:
    """Numbers of one list (`77.8 and 80.4 rank-1 accuracy`) or of one change (`PSNR from 26.10 to
    28.36`) measure the same thing: one named only once takes the metric of its neighbour; the two
    ends of a change, and a change in brackets right after its score, share a benchmark too."""
    out = list(results)
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        gap = text[prev.end:cur.start]
        if (prev.sentence == cur.sentence and prev.unit == cur.unit and len(gap) <= 20
                and (LIST_GAP_RE.fullmatch(gap) or TO_GAP_RE.fullmatch(gap))
                and (prev.metric is None) != (cur.metric is None)):
            metric = prev.metric or cur.metric
            out[i - 1], out[i] = replace(prev, metric=metric), replace(cur, metric=metric)
        prev, cur = out[i - 1], out[i]
        if (prev.sentence == cur.sentence and (prev.benchmark is None) != (cur.benchmark is None)
                and (TO_GAP_RE.fullmatch(gap) or CHANGE_BESIDE_RE.fullmatch(gap))):
            # `from 19.8% to 70.9% accuracy (+258%)` on one benchmark: the three share it
            bench = prev.benchmark or cur.benchmark
            out[i - 1], out[i] = replace(prev, benchmark=bench), replace(cur, benchmark=bench)
    return out


def _sentence_of(sentences: list[tuple[int, int]], pos: int) -> int:
    for i, (a, b) in enumerate(sentences):
        if a <= pos < b:
            return i
    return max(0, len(sentences) - 1)


def refused(text: str, number: Number, mentions: list[Ent]) -> bool:
    """The guideline's never-results: a number inside a mention (a name: `AIME 2024`, `Llama 3 8B`), a
    size or count right after it (`7 B`, `10k images`, `16 frames`), a setting or bound before it
    (`k = 8`, `top-5`, `O(n`), a spread or interval (`+- 0.04`, `95% CI`), a score no one reached
    (`none achieve 50%`), a reference level (`the 50% baseline`, `50% chance`), a duration or volume of
    data (`1400 hours of speech`), a device's memory (`8 GB GPU`), a ratio of sizes (`models 10x larger`),
    people's scores (`>90% for humans`), a year or a decade."""
    if any(m.start < number.end and number.start < m.end for m in mentions):
        return True
    after = text[number.end:number.end + 24]
    if not number.unit and SIZE_AFTER_RE.match(after):
        return True
    phrase = text[number.end:number.end + 60]    # `of` and up to three words before the data's noun
    if number.unit in DATA_UNITS and DATA_SIZE_AFTER_RE.match(phrase):
        return True
    if number.unit == "h" and HOURS_OF_AFTER_RE.match(phrase):
        return True
    if number.unit == "GB" and HARDWARE_AFTER_RE.match(after):
        return True
    if number.unit == "deg" and FREEDOM_AFTER_RE.match(after):
        return True
    if number.unit in RATIO_UNITS and SCALE_AFTER_RE.match(after):
        return True
    before = text[max(0, number.start - 30):number.start]
    if SETTING_BEFORE_RE.search(before) and not number.unit:
        return True
    if SETTING_AFTER_RE.match(after):
        return True
    if SPREAD_BEFORE_RE.search(before) or SPREAD_AFTER_RE.match(after):
        return True
    wide = text[max(0, number.start - 80):number.start]     # lists before the number
    if NEGATED_BEFORE_RE.search(before) or SHARE_OF_BEFORE_RE.search(wide):
        return True
    if VERSION_NAME_BEFORE_RE.search(before):
        return True
    if (HUMAN_AFTER_RE.match(after) and not DELTA_BEFORE_RE.search(before)) or HUMAN_BEFORE_RE.search(wide):
        return True
    if REFERENCE_AFTER_RE.match(after):
        return True
    return bool((YEAR_RE.match(number.value) and not number.unit) or DECADE_RE.fullmatch(number.value))


def rule_kind(text: str, number: Number, bounds: tuple[int, int]) -> str:
    """absolute, delta, ratio, or `none` (a bare integer with no sign and no unit is nearly always a
    count): by the unit (`3x` ratio, `pp` delta), then by the words around the number (`improves by`,
    `a gain of`, `higher`: a change; a change in a cost such as time or memory: a ratio; `to 64.3%`,
    `from 78% to 88%`: scores)."""
    before, after = text[bounds[0]:number.start], text[number.end:bounds[1]]
    digits = number.value.replace(",", "")
    if number.unit in RATIO_UNITS:
        return "ratio"
    if not number.unit and "." not in digits and not number.signed and number.number is not None:
        return "none"
    if number.unit == "%" and SHARE_AFTER_RE.match(after):
        return "ratio"
    named_change = bool(CHANGE_NOUN_AFTER_RE.match(after)) or bool(GAP_BEFORE_RE.search(before[-120:]))
    reached = TO_BEFORE_RE.search(before) or BOUND_BEFORE_RE.search(before)
    if reached and not number.signed and not named_change:
        return "absolute"
    delta = (bool(DELTA_BEFORE_RE.search(before[-60:]) or DELTA_AFTER_RE.match(after)
                  or (DELTA_UP_TO_RE.search(before[-120:]) and not SCORE_UP_TO_RE.search(before)))
             or number.signed or named_change)
    if number.unit in DELTA_UNITS or (number.unit == "points" and delta):
        return "delta"
    if delta and number.unit == "%":
        # the words of its own clause: `77% length reduction with only 1.1% performance loss` is a
        # change in performance, `sacrifices 4.3% for 68% length reduction` too
        near = CLAUSE_BREAK_RE.split(before[-50:])[-1] + " " + CLAUSE_BREAK_RE.split(after[:30])[0]
        return "ratio" if COST_RE.search(near) else "delta"
    return "delta" if delta else "absolute"


def _share_kinds(text: str, found: list[tuple[Number, int, str]]) -> list[tuple[Number, int, str]]:
    """A number listed right after another of its sentence with the same unit (`by 7.8% in X and 4.6%
    in Y`, `11% (PPO) and 18% (A2C) higher`) is a result of the same kind: the list's cue word is
    written once, before the first or after the last."""
    out = list(found)
    for i in range(1, len(out)):
        (prev, ps, pk), (cur, cs, ck) = out[i - 1], out[i]
        gap = text[prev.end:cur.start]
        if (ps == cs and prev.unit == cur.unit and len(gap) <= 45 and LIST_GAP_RE.fullmatch(gap)
                and not CLAUSE_GAP_RE.search(gap)):
            kinds = {pk, ck}
            if kinds in ({"absolute", "delta"}, {"absolute", "ratio"}):
                shared = ck if pk == "absolute" else pk
                out[i - 1], out[i] = (prev, ps, shared), (cur, cs, shared)
    return out


def link(text: str, number: Number, kind: str, bounds: tuple[int, int], mentions: list[Ent],
         same_sentence: list[Number], main: str | None, canon: dict[str, str]) -> dict[str, str | None]:
    """subject / benchmark / metric / baseline of one result, as surfaces of this abstract's mentions."""
    a, b = bounds
    near = [m for m in mentions if a <= m.start and m.end <= b]
    order = [n.start for n in same_sentence]
    benchmark = _pick(text, number, [m for m in near if m.type in BENCHMARK_TYPES], order, after_only=True)
    metric = _pick(text, number, [m for m in near if m.type == "Metric"], order)
    baseline = None
    methods = [m for m in near if m.type in SUBJECT_TYPES]
    if kind != "absolute":
        for m in methods:
            if BASELINE_BEFORE_RE.search(text[max(a, m.start - 40):m.start]):
                baseline = canon.get(m.surface, m.surface)
                break
    subject = None
    named = {canon.get(m.surface, m.surface) for m in methods if m.start < number.start}
    if main is not None and main in named:
        subject = main
    else:
        for m in reversed(methods):
            if m.start < number.start and not BASELINE_BEFORE_RE.search(text[max(a, m.start - 40):m.start]):
                subject = canon.get(m.surface, m.surface)
                break
    if subject is None:
        subject = main
    if subject is not None and subject == baseline:
        baseline = None
    return {"subject": subject, "benchmark": benchmark, "metric": metric, "baseline": baseline}


# what ends the words that may follow a number before its metric or benchmark (`77.8 rank-1 accuracy`,
# `4% gain on GSM8K`, not `by 21.1%, lowers carbon emissions`)
TO_GAP_RE = re.compile(r"\s*to\s+(?:below\s+|over\s+|about\s+|approximately\s+)?")
AFTER_BREAK_RE = re.compile(r"[;,]|\band\b|\bwhile\b|\bwhereas\b")


def _pick(text: str, number: Number, cands: list[Ent], order: list[int], after_only: bool = False
          ) -> str | None:
    """The mention of `cands` that goes with `number`: the one right after it (a few words, no other
    number between); else, for metrics, the nearest before it in its clause."""
    if not cands:
        return None
    nxt = [n for n in order if n > number.start]
    limit = min(nxt) if nxt else len(text)
    for m in cands:
        gap = text[number.end:m.start]
        if m.start >= number.end and m.start < limit and len(gap) <= 30 and not AFTER_BREAK_RE.search(gap):
            return m.surface
    if after_only:
        return None
    prev = [n for n in order if n < number.start]
    floor = max(prev) if prev else 0
    for m in reversed(cands):
        gap = text[m.end:number.start]
        if m.end <= number.start and m.start > floor and len(gap) <= 60 and ";" not in gap:
            return m.surface
    return None
