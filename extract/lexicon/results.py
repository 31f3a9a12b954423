"""Word lists and patterns for reported results (`extract/numbers.py`, `extract/results.py`).

What counts as a result follows `RESULTS_GUIDELINE.md`: scores, changes and ratios are; sizes,
settings, counts, years, bounds and numbers inside names are not.
"""

import re

# a number as written: `1,073.9`, `.5`, `94`
NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+"
# words that stand for a number in a ratio (`ten times`, `two-fold`, `two orders of magnitude`)
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "twenty": 20, "hundred": 100, "a hundred": 100}
WORD_RATIO_RE = re.compile(
    r"\b(?P<word>two|three|four|five|six|seven|eight|nine|ten|twenty|a hundred|hundred)"
    r"(?P<unit>(?:\s+orders?\s+of\s+magnitude)|(?:\s+times)|(?:-fold))\b", re.I)
# a range between two numbers: `95$--$99`, `5-10`, `10% to 25%`
RANGE_SEP_RE = re.compile(r"\s*(?:\$--\$|\$-\$|---|--|-|\u2013|\u2014)\s*")
# `10% to 25%` is a range only with a unit on both sides (`Jaccard 0.4488 to 0.4983` is a change)
RANGE_TO_RE = re.compile(r"\s+to\s+")

# units written right after the number (longest first; `(?![A-Za-z])` keeps `7B` or `10k` out);
# each with the unit name the record keeps
UNITS: list[tuple[str, str]] = [
    (r"\s?\\%", "%"), (r"\s?\$\\%\$", "%"), (r"\s?%", "%"),
    (r"\s?percentage\s+points?", "pp"), (r"\s?absolute\s+points?", "points"),
    (r"\s?percent(?:age)?", "%"), (r"\s?p\.p\.", "pp"), (r"\s?pp", "pp"), (r"\s?points?", "points"),
    (r"\s?\$\\times\$", "x"), (r"\s?\\times", "x"), (r"\s?\$\\mathbf\{\\times\}\$", "x"),
    (r"\s?[x\u00d7X](?![\d-])", "x"), (r"\s?times", "x"), (r"-?fold", "x"),
    (r"\$\^\\circ\$", "deg"), (r"\s?deg(?:rees)?", "deg"),
    (r"\s?dB", "dB"), (r"\s?ms", "ms"), (r"\s?FPS", "FPS"), (r"\s?fps", "FPS"),
    (r"\s?(?:tokens|tok)(?:/s|\s+per\s+second)", "tok/s"), (r"\s?req/s", "req/s"),
    (r"\s?s/frame", "s/frame"), (r"\s?seconds?", "s"), (r"\s?s", "s"), (r"\s?minutes?", "min"),
    (r"\s?hours?", "h"), (r"\s?GB", "GB"), (r"\s?nm", "nm"),
]
UNIT_RE = re.compile("|".join(f"(?P<u{i}>{pattern})(?![A-Za-z])" for i, (pattern, _) in enumerate(UNITS)))
UNIT_NAMES = [name for _, name in UNITS]
# units that say the number is a ratio, or a change in points
RATIO_UNITS = {"x"}
DELTA_UNITS = {"pp"}
# a time, memory or throughput is a cost of running the subject, not a score on a benchmark named
# beside it (`3.5GB peak RAM usage ... while achieving a VBench total score of 81.61`): such a number
# takes a benchmark only when written right after it
COST_UNITS = {"ms", "s", "min", "h", "s/frame", "GB", "FPS", "tok/s", "req/s"}

# right after a number, a size or a count, not a result: `7B`, `10k images`, `1.6 million`
SIZE_AFTER_RE = re.compile(
    r"^(?:[-\s]?(?:[KkMBbTG]\b|[KMBT]B?\b|bn\b|billion|million|thousand|trillion|k\b|M\b|B\b)|"
    r"[-\s]?(?:bit|layer|shot|way|step|hop|turn|head|frame|dimension|dim|token|sample|image|example|"
    r"task|language|dataset|benchmark|model|paper|participant|user|subject|patient|domain|class|categor|"
    r"epoch|GPU|node|agent|round|iteration|trial|run|seed|query|queries|question|problem|instance|episode|"
    r"video|clip|hour|day|week|month|year|km|kilometer|meter|cm|mm|word|sentence|document|page|pixel|"
    r"channel|expert|parameter|param|feature|scene|object|category|hand|robot|environment|game|city|"
    r"countr|site|hospital|center|centre|annotator|rater|k\b))", re.I)
# a duration or a volume of data, not a result (`1400 hours of speech`, `10 hours of Mandarin speech`,
# `13 GB of text`; `30 minutes of HIL training` stays a cost), memory that names hardware (`a single
# 8 GB GPU`, `80 GB accelerators`; not `a 2GB GPU memory footprint`), a decade (`the 2020s`),
# `6 degrees of freedom`; hours of anything but compute are data (`80,775 hours of BPC`)
DATA_SIZE_AFTER_RE = re.compile(
    r"^\s*(?:\)|\$)?\s*of\s+(?:[\w\-]+\s+){0,3}?(?:speech|audio|video|videos|gameplay|footage|recordings?|"
    r"data|text|read|instruction|music|conversations?|dialogues?|activity|lectures?|podcasts?|"
    r"broadcasts?|demonstrations?|driving|EEG|ECG|MEG|fMRI)\b", re.I)
HOURS_OF_AFTER_RE = re.compile(r"^\s*(?:\)|\$)?\s*of\s+(?!(?:[\w\-]+\s+){0,3}?(?:training|compute|"
                               r"computation|GPU|inference|fine-?tuning|search|optimi[sz]ation|interaction|"
                               r"play|practice)\b)", re.I)
HARDWARE_AFTER_RE = re.compile(r"^\s*(?:GPU|HBM|VRAM|RAM|memory)?\s*(?:GPUs?|accelerators?|cards?|"
                               r"devices?)\b(?!\s+(?:memory|footprint|usage))")
FREEDOM_AFTER_RE = re.compile(r"^\s*of\s+freedom\b")
# a ratio of sizes, not a result: `outperforms models 10x larger`, `a dataset 50 times larger than`, `the
# baseline with 8 times more parameters`; a method that needs `10 times fewer parameters` or is `3x
# smaller` reports its efficiency, and stays
SCALE_AFTER_RE = re.compile(r"^\s*(?:(?:larger|bigger)\b(?!\s+(?:throughput|context|batch|gains?|"
                            r"improvements?|speed-?ups?|margins?))|as\s+large\b|more\s+parameters\b)", re.I)
DATA_UNITS = {"h", "min", "s", "GB"}

# a share of a population, not a score (`which account for 48.6% and 15.2% of the videos`, each of a list)
SHARE_OF_BEFORE_RE = re.compile(r"\baccount(?:s|ed|ing)?\s+for\s+(?:only\s+|about\s+|approximately\s+|"
                                r"nearly\s+|over\s+|roughly\s+|almost\s+)?"
                                r"(?:[~$\\sim]*\s*[\d.,]+\s*\\?%\s*,?\s*(?:and\s+)?)*[~$\\sim]*\s*$", re.I)
# people's scores, not a method's or model's result (`compared to >90% for humans`, `three participants
# reach 87.3-93.3% categorical accuracy`, read over 80 characters before the number); a method's
# agreement *with* human experts, and what it does for people (`76.5 for human pose estimation`, `cuts
# time by 40% for annotators`, `clinicians achieve 91% with our assistant`), stay
_PEOPLE = r"(?:humans|human\s+(?:participants|raters|subjects)|participants)"
HUMAN_AFTER_RE = re.compile(r"^\s*for\s+(?:the\s+|average\s+)?" + _PEOPLE + r"\b", re.I)
HUMAN_BEFORE_RE = re.compile(r"\b" + _PEOPLE + r"\s+(?:only\s+|still\s+|typically\s+|on\s+average\s+)?"
                             r"(?:reach|achiev|attain|scor|obtain)\w*\s+(?:an?\s+|only\s+|about\s+|around\s+)?"
                             # each number of a list they reach (`87.3-93.3% categorical accuracy and 76-92%`)
                             r"(?:[~$\\sim]*\s*[\d.,\-]+\s*\\?%?\s+[\w\- ]{0,40}?\s*(?:,|and|,\s*and)\s+)*"
                             r"[~$\\sim]*\s*$", re.I)
# the version of a named thing, not a result (`Industry 4.0`, `the Apache 2.0 license`)
VERSION_NAME_BEFORE_RE = re.compile(r"\b(?:Industry|Apache|Web|Agriculture|Healthcare|Society|Education|"
                                    r"Logistics|Construction)\s+$")
# a score no one reached is no result (`yet none achieve 50% accuracy`)
NEGATED_BEFORE_RE = re.compile(r"\b(?:none|neither)\s+(?:of\s+(?:them|these|the\s+\w+)\s+)?"
                               r"(?:achieves?|reach(?:es)?|exceeds?|surpass(?:es)?|attains?)\s*[~$\\a-z]*\s*$",
                               re.I)
# just before a number: a setting, a bound or a reference, not a result
SETTING_BEFORE_RE = re.compile(
    r"(?:\b[a-zA-Z]\s*=|\\[a-z]+\s*=|\b(?:alpha|beta|gamma|lambda|tau|sigma|theta|rho|kappa|omega)\s*=|"
    r"[\])]\s*=|[<>\u2264\u2265]|\\leq?|\\geq?|\\le|\\ge|\bO\(|\btop-?|\bTable|"
    r"\bFig\.?|\bFigure|\bSection|\bEq\.?|\bversion|\bv|\blevel|\bstage|\bphase|\bstep|\blayer|"
    r"\bround|\bday|\bsince|\bepoch|\bwindow of|\bbudget of|\brank|\bsize of|\bbatch size|"
    r"\blearning rate|\btemperature|\barXiv)\s*(?:of|=|:|is|at)?\s*[~$({\\]*\s*$", re.I)
# a setting written after its number, whatever its unit: `with 40% sparsity`, `using 10% of the labeled
# data`, `30% label noise` (RESULTS_GUIDELINE: hyperparameters and settings are not results)
SETTING_AFTER_RE = re.compile(
    r"^\s*(?:\)|\$)?\s*(?:sparsity|dropout|(?:pruning|mask(?:ing)?) (?:ratio|rate)|"
    r"(?:label |annotation )?noise\b|"
    r"of (?:the )?(?:training |labell?ed |annotated |unlabell?ed |available )?"
    r"(?:data|samples|labels|examples|annotations|training set)\b)", re.I)
# a share of a reference's performance or cost is a ratio to it, not a score: `retains 91% of
# full-cache accuracy`, `reaching 97.5% of the supervised learning performance`, `with only 12% of the
# computational cost`
SHARE_AFTER_RE = re.compile(r"^\s*(?:\)|\$)?\s*of (?:the |its |their |a |an )?(?:[\w\-]+ ){0,3}?"
                            r"(?:accuracy|performance|quality|score|capabilit\w+|ability|cost|costs|"
                            r"compute|memory|time|latency|energy|FLOPs|tokens)\b", re.I)
# a spread or an interval, not a result: `0.70 +- 0.04`, `$\pm 1.2$`, `95% CI`, `95% CI = 2.28-4.90`
SPREAD_BEFORE_RE = re.compile(r"(?:\+-|\+/-|\\pm|\u00b1|\bCI\s*[=:]?\s*[\[(]?"
                              r"(?:\s*[\d.\-]+\s*\\?%?\s*(?:,|to|-|--)\s*)?)\s*\$?\s*$")
SPREAD_AFTER_RE = re.compile(r"^\s*(?:CI|confidence interval)\b")
# markup or words allowed between `$` and the number (`$\sim$60`, `$\approx 95$`)
APPROX_RE = re.compile(r"(?:\$?\\sim\$?|\$?\\approx\$?|~|\u223c|\u2248)\s*$")
# words for a change, before the number in its clause (`improves ... by`, `a gain of`, `sacrifices`)
_CHANGE_WORDS = (
    r"gains?|improv\w*|boost\w*|increas\w*|outperform\w*|surpass\w*|exceed\w*|advanc(?:es|ing)|"
    r"decreas\w*|reduc\w*|lower\w*|cut(?:s|ting)?|drop(?:s|ped|ping)?|degrad\w*|rais\w*|lift(?:s|ed|ing)|"
    r"enhanc\w*|margin|sacrific\w*|los(?:es|ing)|delta|higher|better|relative")
DELTA_BEFORE_RE = re.compile(rf"\b(?:by|{_CHANGE_WORDS})\b[^.;]{{0,40}}$", re.I)
# `up to` ends a change whose word may stand further back in its clause (`decreases the false positive
# rate (FPR) compared to existing solutions up to 7.5%`), unless a score is reached up to it
# (`SCORE_UP_TO_RE`: `outperforms prior methods ... and obtains up to 95.2% accuracy`)
DELTA_UP_TO_RE = re.compile(rf"\b(?:{_CHANGE_WORDS})\b[^.;,0-9]{{0,80}}\bup to\s*[~$\\sim]*\s*$", re.I)
SCORE_UP_TO_RE = re.compile(r"\b(?:of|with|achiev\w*|attain\w*|reach\w*|obtain\w*|yield\w*|scor\w*|gets?|"
                            r"getting|hits?|wins?)\s+up to\s*[~$\\sim]*\s*$", re.I)
# a gap a change closes is a change, and so is the rest of its list (`reduces the BF16 accuracy gap to
# 3.78 and 1.42 points`); a gap or difference alone may be the score (`an optimality gap of 0.52%`,
# `a mean absolute difference of 0.85`), and `the material-difference rate to 30.8%` is a rate
GAP_BEFORE_RE = re.compile(
    r"\b(?:reduc\w*|narrow\w*|clos(?:es|ed|ing)|shr[iau]nk\w*|cut(?:s|ting)?|decreas\w*|lower\w*|bridg\w*|"
    r"halv\w*|minimi[sz]\w*)\s+(?:[\w\-]+\s+){0,4}?(?<![\w\-])(?:gap|difference)\s+"
    r"(?:(?:to|of|at|by|down to|within|only|just|about)\s+)+[~$\\sim]*\s*"
    r"(?:[0-9.]+(?:\s*(?:points?|\\?%))?\s*(?:,\s*and|,|and)\s*)*$", re.I)
# a score something reaches, not a change: `improves accuracy to 64.3%`, `from 78% to 88%`; `up to`
# bounds whatever follows (`improvements of up to 18%`, `reduces rounds by up to 64.4%`: changes)
TO_BEFORE_RE = re.compile(r"\b(?:(?<!\bup )to|from|reaches|reaching|reach|achieves|achieving|attains)"
                          r"\s*[~$\\sim]*\s*$", re.I)
# a score passed or neared, not a change: `SSIM exceeding 0.93`, `recall approaching $\approx 95$`
# (`by exceeding` stays a change)
BOUND_BEFORE_RE = re.compile(r"(?<!\bby )\b(?:exceed(?:s|ed|ing)?|approach(?:es|ed|ing)?|"
                             r"surpass(?:es|ed|ing)?)\s*(?:\$?\\(?:approx|sim)\s*\$?|~)?\s*\$?\s*$", re.I)
# what may stand between two numbers of one list (`7.8% in PSNR, 12.2% in SSIM, and`, `11% (PPO) and`)
LIST_GAP_RE = re.compile(r"[^.;0-9]*?(?:,|\band\b|\bor\b|/)[^.;0-9]*")
# where the words about a number's own clause start (`77% length reduction with only 1.1% ...`)
CLAUSE_BREAK_RE = re.compile(r"\d|,|;|\bwith\b|\bwhile\b|\band\b|\bwhereas\b", re.I)
# a gap that starts a new clause, not a list (`to 95%, which is 46% higher`): its numbers keep their kinds
CLAUSE_GAP_RE = re.compile(r"\b(?:which|that|i\.e\.|while|whereas)\b", re.I)
DELTA_AFTER_RE = re.compile(
    r"^\s*(?:\)|\$)?\s*(?:\([^()]{1,20}\)\s*)?"
    r"(?:absolute\s+|relative\s+|average\s+|on\s+average\s+|points?\s+)?"
    r"(?:improvement|gains?|increase|boost|higher|better|lower|reduction|decrease|drop|more|less|fewer|"
    r"speed-?ups?|faster|slower|smaller|cheaper|over|above|below|relative)\b", re.I)
# a change named after the thing changed (`77% length reduction`, `5% accuracy gain`, `1.1% performance
# loss`): a change even after `achieves`
CHANGE_NOUN_AFTER_RE = re.compile(
    r"^\s*(?:\)|\$)?\s*(?:\([^()]{1,20}\)\s*)?(?:[A-Za-z][\w\-]*\s+){1,2}"
    r"(?:improvements?|gains?|increases?|boosts?|reductions?|decreases?|drops?|savings?|speed-?ups?|"
    r"loss|degradation)\b", re.I)
# a change in a cost (time, memory, compute) is a ratio, not a change of score
COST_RE = re.compile(
    r"\b(?:time|latency|memory|cost|costs|compute|computation\w*|FLOPs?|energy|power|speed\w*|throughput|"
    r"faster|slower|cheaper|parameters?|storage|footprint|overhead|emissions?|tokens?|calls?|"
    r"evaluations?|bandwidth|runtime|wall-clock|GPU hours|queries|length|size|prompts?)\b", re.I)
# a comparison before a baseline (`over X`, `than X`, `compared to X`)
BASELINE_BEFORE_RE = re.compile(
    r"\b(?:over|than|vs\.?|versus|against|compared (?:to|with)|relative to|outperform\w*|surpass\w*|"
    r"beat\w*|exceed\w*|from)\s+(?:the\s+|strong\s+|state-of-the-art\s+|baselines?\s+(?:such as\s+)?)?$",
    re.I)
# `respectively` pairs a list of numbers with a list of names in order
RESPECTIVELY_RE = re.compile(r"\brespectively\b", re.I)
# numbers of this kind are never results when bare: a year
YEAR_RE = re.compile(r"^(?:19|20)\d\d$")
DECADE_RE = re.compile(r"(?:19|20)\d0s")
_RESULT_ADVERBS = "also|further|consistently|significantly|still|only|even|then|thus"
_RESULT_VERBS = ("achiev|attain|reach|deliver|obtain|outperform|improv|yield|scor|reduc|increas|boost|"
                 "surpass|exceed|gain|lower|cut|rais|record|peak")


def _verb_after(lead: str, adverbs: str, verbs: str) -> re.Pattern[str]:
    """A result verb right after a name: closing brackets (`lead`), a short parenthesis, an adverb."""
    return re.compile(rf"^[{lead}]*(?:\([^()]{{0,30}}\)\s*)?(?:(?:{adverbs})\s+)?(?:{verbs})\w*", re.I)


# a name right before one of these is what the sentence's number is said of (`GMPO-7B outperforms`,
# `AdaFocus delivers`, `Gemini 3 Pro attains`)
RESULT_VERB_AFTER_RE = _verb_after(r"\s,)\]}", _RESULT_ADVERBS,
                                   _RESULT_VERBS + "|match|show|demonstrat|set|has|had|is|was")
# the result verbs that make the name before them the subject of the sentence's numbers (`GMPO-7B
# outperforms GRPO by 4.1%`, `Gemini 3 Pro attains 75-80%`); `is`, `has` and `shows` say too little, and
# a participle after a comma (`outperforms GRPO and DAPO, achieving`) belongs to the clause's subject
SUBJECT_VERB_AFTER_RE = _verb_after(r"\s)\]}", _RESULT_ADVERBS + "|substantially|clearly|markedly|notably",
                                    _RESULT_VERBS)
# the paper's own method, unnamed, said to reach the number (`our method achieves up to 16%`): the
# subject is the paper's method, not the name the linker found nearby
OWN_SUBJECT_RE = re.compile(r"\b(?:our|the\s+proposed)\s+(?:[\w\-]+\s+){0,2}?(?:method|approach|framework|"
                            r"model|system|algorithm|technique|pipeline)s?\s+"
                            r"(?:(?:" + _RESULT_ADVERBS + r")\s+)?(?:" + _RESULT_VERBS + r")\w*", re.I)
# between the paper's own method and a number: a comparison that hands the number to another
OWN_CUT_RE = re.compile(r"\b(?:compared\s+(?:to|with)|than|versus|vs\.?|while|whereas|which|who)\b", re.I)
# a name's tail, not a name: `GRPO` of `CEDAR- GRPO`
GLUED_BEFORE_RE = re.compile(r"[\w\-]-\s?$")
# between a name and its short name in brackets: `Hybrid Motion Video Diagnosis framework (HMVDx)`
BRACKET_GAP_RE = re.compile(r"\s*(?:(?:framework|method|model|approach|algorithm|system|architecture|"
                            r"network|pipeline|module|strategy|technique)\s*)?(?:\\,|~)?\s*\(\s*", re.I)
# a description, not a name: `our automated framework`, `a generalized framework`, `the proposed
# method` (RESULTS_GUIDELINE: the subject is null when the abstract does not name it)
GENERIC_HEADS = {"framework", "frameworks", "approach", "approaches", "method", "methods", "strategy",
                 "architecture", "system", "pipeline", "algorithm", "technique", "model", "solution",
                 "scheme"}
GENERIC_MODIFIERS = {"automated", "automatic", "algorithmic", "generalized", "generalised", "general",
                     "formal", "probabilistic", "novel", "new", "proposed", "unified", "simple", "efficient",
                     "effective", "principled", "practical", "theoretical", "systematic", "comprehensive",
                     "flexible", "scalable", "modular", "lightweight", "robust", "our", "the", "a", "this",
                     "overall"}
# between two benchmarks of one list (`on FF++, Celeb-DF, and VDFD`)
BENCHMARK_LIST_GAP_RE = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+|&\s*)")
# right after a number, the words before its own benchmark (`94.61% on ASDiv`) or its own model (`8-10%
# for Qwen`)
ADJACENT_BENCHMARK_RE = re.compile(r"\s*(?:\)|\$)?\s*(?:on|in|at)\s+(?:the\s+)?")
ADJACENT_SUBJECT_RE = re.compile(r"\s*(?:\)|\$)?\s*for\s+(?:the\s+)?")
# between a number and its metric's name (`94.0% accuracy`, `$94.0\%$ accuracy`)
METRIC_GAP_RE = re.compile(r"\s*\$?\s*")
# a name written as a modifier of the next word (`ChatGPT-generated text`, `LLaMA-based agents`)
MODIFIER_AFTER_RE = re.compile(r"-[A-Za-z]")
# a number opening the brackets right after a name is that name's: `SAGE (+12.4) and EQBench3 (+20.9%)`,
# also after its metric's name: `CIFAR-10 (FID 1.54), AFHQv2 64x64 (FID 1.23)`, `MIMIC-IV (AUROC: 0.91)`;
# not after a word that makes the number something else (`(vs. 75.2%)`, `(from 12.5% to 8.1%)`, `(p = 0.003)`)
BRACKETED_AFTER_RE = re.compile(
    r"\s*\(\s*(?:(?!(?i:vs|by|from|to|of|with|about|approximately|around|up|see|table|fig|n|p|k)\b)"
    r"[A-Za-z][\w@.\-]*\s*[:=]?\s*)?\$?")
# a level given for reference, not reached: `far below the 50% baseline`, `above 50% chance`
REFERENCE_AFTER_RE = re.compile(r"^\s*(?:\)|\$)?\s*(?:random[- ]?)?(?:baseline|chance)\b", re.I)
# between a score and its change in brackets: `70.9% accuracy (+258%)`
CHANGE_BESIDE_RE = re.compile(r"\s*(?:[A-Za-z][\w\-@]*\s+){0,2}\(\s*")
