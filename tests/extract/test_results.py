"""Reported results (`extract/numbers.py`, `extract/results.py`, `extract/result_links.py`): numbers read
as written (LaTeX included), the guideline's refusals, kinds, and links to the abstract's mentions, on
sentences from real abstracts of the results gold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import spacy

from paperkg.extract import factories  # noqa: F401  (registers the components)
from paperkg.extract.doc_utils import FINAL
from paperkg.extract.numbers import display, find_numbers
from paperkg.extract.pipeline import Extractor
from paperkg.extract.result_links import Linker
from paperkg.extract.results import Ent, ResultFinder, adjacent_names, find_results, main_method, verb_subject
from paperkg.extract.tokenizer import customize_tokenizer
from paperkg.extract.training import train_results
from paperkg.graph.records import Extraction

MODEL = Path(__file__).resolve().parents[2] / "extract" / "model" / "results.json"

PASS_RATE = "distillation achieves 77.8\\% pass rate on MCP-dominant tasks (+17.8pp)"
# (text, value as written, number, upper, unit, display)
PARSE_CASES = [
    pytest.param(PASS_RATE, "77.8\\%", 77.8, None, "%", "77.8%", id="latex-percent"),
    pytest.param(PASS_RATE, "+17.8pp", 17.8, None, "pp", "+17.8pp", id="signed-points"),
    pytest.param("Soft-Mix collapses ($-37.3$pp on CIFAR-10 at 12 layers)", "$-37.3$pp", -37.3, None, "pp",
                 "-37.3pp", id="math-mode-negative"),
    pytest.param("CoT and ToT substantially increase recall (often approaching $\\approx 95$--$99\\%$)",
                 "95$--$99\\%", 95.0, 99.0, "%", "95\u201399%", id="latex-range"),
    pytest.param("up to 3.1$\\times$ and 1.4$\\times$ improvements, respectively", "3.1$\\times$", 3.1,
                 None, "x", "3.1\u00d7", id="latex-times"),
    pytest.param("achieving an average BERTScore of $\\sim$ 0.90, indicating high alignment", "0.90", 0.90,
                 None, "", "0.90", id="approximately"),
    pytest.param("reduces computational costs by $\\sim 90\\%$ while maintaining", "90\\%", 90.0, None, "%",
                 "90%", id="approximately-inside-math"),
    pytest.param("cuts rotation error (ROT) from 22.91$^\\circ$ to 20.93$^\\circ$", "22.91$^\\circ$", 22.91,
                 None, "deg", "22.91\u00b0", id="degrees"),
    pytest.param("with the largest gains observed in pharmacogenomic reasoning (+30--41\\%).", "+30--41\\%",
                 30.0, 41.0, "%", "+30\u201341%", id="signed-range"),
    pytest.param("reducing boundary failure rates from approximately 40% (baseline RLHF) to below 1%", "40%",
                 40.0, None, "%", "40%", id="from-to-is-two-numbers"),
    pytest.param("AgentDSE achieves competitive design quality with up to two orders of magnitude fewer "
                 "evaluations", "two orders of magnitude", None, None, "x", "two orders of magnitude",
                 id="words"),
    pytest.param("improves by \\textbf{+40.3\\%} over 7B baselines", "+40.3\\%", 40.3, None, "%", "+40.3%",
                 id="inside-textbf"),
    pytest.param("a throughput of 1,073.9 tokens per second", "1,073.9 tokens per second", 1073.9, None,
                 "tok/s", "1,073.9 tokens per second", id="thousands-and-unit-words"),
]


@pytest.mark.parametrize(("text", "value", "number", "upper", "unit", "shown"), PARSE_CASES)
def test_numbers_are_read_as_written(text: str, value: str, number: float | None, upper: float | None,
                                     unit: str, shown: str) -> None:
    found = {n.value: n for n in find_numbers(text)}
    assert value in found, f"{value!r} not among {list(found)}"
    n = found[value]
    assert text[n.start:n.end] == value
    assert (n.number, n.upper, n.unit, n.display) == (number, upper, unit, shown)


@pytest.mark.parametrize("text", [
    "GPT-4 and Llama-3 on CIFAR-10", "7B parameters", "10k images", "a 2x2 taxonomy", "pass@1", "x^{2}",
    "Pixhawk 2.4.8 hardware",
], ids=["names", "size", "count", "grid", "metric-name", "exponent", "version"])
def test_numbers_glued_into_names_or_sizes_are_not_read(text: str) -> None:
    assert [n.value for n in find_numbers(text)] == []


def test_a_times_sign_needs_a_number_not_a_word() -> None:
    found = [(n.value, n.unit) for n in find_numbers("6 x-ray datasets, 8x faster")]
    assert found == [("6", ""), ("8x", "x")]


def test_display_shows_no_markup() -> None:
    assert display("65.8\\%") == "65.8%"
    assert display("$94.1$") == "94.1"
    assert display("45.2%") == "45.2%"


def _ents(text: str, names: dict[str, str]) -> list[Ent]:
    """Every occurrence of each name (longest first, no overlaps) as a mention of its type."""
    out: list[Ent] = []
    for name in sorted(names, key=len, reverse=True):
        for m in re.finditer(re.escape(name), text):
            if not any(e.start < m.end() and m.start() < e.end for e in out):
                out.append(Ent(m.start(), m.end(), names[name], name))
    return sorted(out, key=lambda e: e.start)


_SENTENCIZER = spacy.blank("en")
customize_tokenizer(_SENTENCIZER)
_SENTENCIZER.add_pipe("sentencizer")


def _sentences(text: str) -> list[tuple[int, int]]:
    """The sentences as the pipeline splits them."""
    return [(s.start_char, s.end_char) for s in _SENTENCIZER(text).sents]


def _results(text: str, names: dict[str, str], main: str | None = None, aliases: tuple = (),
             learned: bool = False) -> list:
    model = Linker.from_disk(MODEL) if learned else None
    return find_results(text, _sentences(text), _ents(text, names), list(aliases), main, model)


# (text, mentions, values that must not be results)
REFUSAL_CASES = [
    pytest.param("Our model reaches 45.2% accuracy on AIME 2024.", {"AIME 2024": "Benchmark"}, ["2024"],
                 id="number-inside-a-benchmark-name"),
    pytest.param("We fine-tune Qwen2.5-7B with k = 8 rollouts and a temperature of 0.7.",
                 {"Qwen2.5-7B": "Model"}, ["8", "0.7"], id="settings"),
    pytest.param("Our comprehensive evaluation across five diverse datasets encompassing 13 subtasks shows "
                 "the efficacy of ICR.", {"ICR": "Method"}, ["13"], id="count"),
    pytest.param("the dataset contains approximately 1.6 million multi-modal radiographs", {}, ["1.6"],
                 id="size-in-words"),
    pytest.param("Since 2023, regret of O(n log n) is known.", {}, ["2023"], id="year"),
    # settings written after their number, from the 2,500 arXiv abstracts (2409.06211, the second shortened)
    pytest.param("Our method needs one H100 to achieve nearly no loss in performance with 40% sparsity, "
                 "even in generative tasks such as GSM8K.", {"GSM8K": "Benchmark"}, ["40%"],
                 id="sparsity-is-a-setting"),
    pytest.param("Self-supervised labeling achieved 70.3% accuracy using 23.1% of the labeled data.",
                 {"accuracy": "Metric"}, ["23.1%"], id="a-share-of-the-data-is-a-setting"),
    # a score no one reached (2512.23565)
    pytest.param("Notably, models with inference-time reasoning significantly outperform standard "
                 "architectures, yet none achieve 50\\% accuracy on FD-QA.",
                 {"inference-time reasoning": "Method", "accuracy": "Metric", "FD-QA": "Benchmark"},
                 ["50\\%"], id="none-achieve"),
    # a reference level (results_dev 2605.08820)
    pytest.param("Specialized detectors fail on many fake-damaged subsets, with fake-damage detection rates "
                 "(TPR) far below the 50% baseline on most generator subsets.", {"TPR": "Metric"}, ["50%"],
                 id="a-baseline-level"),
    # a reference (results_dev 2508.02197)
    pytest.param("We present a message passing approach to Expected Free Energy (EFE) minimization on factor "
                 "graphs, based on the theory introduced in arXiv:2504.14898.", {}, ["2504.14898"],
                 id="an-arxiv-id"),
    # durations and volumes of data, hardware, a decade, from the 2,500 arXiv abstracts
    pytest.param("To support comprehensive training and evaluation, we construct CSEMOTIONS, a high-quality "
                 "emotional speech dataset containing 10 hours of Mandarin speech from six professional "
                 "speakers.", {"CSEMOTIONS": "Dataset"}, ["10 hours"], id="hours-of-speech"),
    pytest.param("Trained on 10,000 hours of gameplay collected with publicly available bots, the model "
                 "reaches 71% win rate.", {}, ["10,000 hours"], id="hours-of-gameplay"),
    pytest.param("Our system fits in a single GPU (8 GB GPU) on ValueEval'24.", {"ValueEval'24": "Benchmark"},
                 ["8 GB"], id="gigabytes-of-a-device"),
    pytest.param("Kolmogorov-Arnold networks have drawn attention in the 2020s.", {}, ["2020s"],
                 id="a-decade"),
    pytest.param("A view is produced by a camera with 6 degrees of freedom.", {}, ["6 degrees"],
                 id="degrees-of-freedom"),
    pytest.param("From a recently assembled archive of 80,775 hours of BPC associated with CPD "
                 "operations, we analyze text transcripts.", {}, ["80,775 hours"],
                 id="hours-of-anything-but-compute"),
    # shares of a population, versions, agreement and correlation statistics (results_train 2504.15063,
    # 2406.07693; the 2,500 arXiv abstracts)
    pytest.param("Existing solutions predominantly focus on code vulnerabilities within smart contracts, "
                 "accounting for only 50% of security incidents.", {}, ["50%"], id="accounting-for-a-share"),
    pytest.param("These websites primarily include YouTube and TikTok, which account for 48.6% and 15.2% "
                 "of the videos, respectively.", {}, ["48.6%"], id="account-for-a-share"),
    pytest.param("These websites primarily include YouTube and TikTok, which account for 48.6%, 15.2% and "
                 "3.1% of the videos.", {}, ["15.2%", "3.1%"], id="each-share-of-a-list"),
    # a confidence interval after its name (results_train 2510.14800)
    pytest.param("Prognostic performance for five-year OS (AUC = 0.70 +- 0.04; HR = 3.34, 95% CI = "
                 "2.28-4.90; p < 0.0001), outperforming existing CRC-specific models.", {"AUC": "Metric"},
                 ["2.28-4.90", "0.04"], id="a-confidence-interval"),
    pytest.param("The hazard ratio of the model's risk score was 2.1 (95% CI [1.62, 2.71]).", {},
                 ["1.62", "2.71"], id="both-bounds-of-an-interval"),
    # people's scores (results_train 2512.16899; 2608.00473 of the 2,500 arXiv abstracts)
    pytest.param("GPT-5 and Gemini 2.5 Pro reach 66-75% accuracy, compared to >90% for humans, yet surpass "
                 "the widely used GPT-4o (59%).",
                 {"GPT-5": "Model", "Gemini 2.5 Pro": "Model", "GPT-4o": "Model", "accuracy": "Metric"},
                 ["90%"], id="a-score-for-humans"),
    pytest.param("Three architecture-trained participants reach 87.3-93.3% categorical accuracy and 76-92% "
                 "GT-region hit, supporting task feasibility.", {"categorical accuracy": "Metric"},
                 ["87.3-93.3%", "76-92%"],
                 id="participants-reach"),
    pytest.param("We release all our long-context Granite code models under an Apache 2.0 license. In the "
                 "dynamic landscape of Industry 4.0, efficiency is essential.", {}, ["2.0", "4.0"],
                 id="versions-of-names"),
    pytest.param("A dual-judge protocol reaches inter-judge kappa = 0.88, and Mistral Large exhibited the "
                 "most pronounced effect (rho = -0.734).", {"Mistral Large": "Model"}, ["0.88", "-0.734"],
                 id="agreement-and-correlation-settings"),
    # ratios of sizes (2410.13116 of results_train, 2508.01242 and 2408.06854 of the 2,500 arXiv abstracts)
    pytest.param("Finally, we introduce SummLlama3-8b, a model that outperforms the nearly 10x larger "
                 "Llama3-70b-instruct.", {"SummLlama3-8b": "Model", "Llama3-70b-instruct": "Model"}, ["10x"],
                 id="a-competitor-ten-times-larger"),
    pytest.param("This enables the creation of a large-scale dataset with 1500k+ samples, almost 50 times "
                 "larger than previous methods.", {}, ["50 times"], id="a-dataset-fifty-times-larger"),
    pytest.param("Even when the parameters are further reduced to 0.17M, it still achieves comparable "
                 "results to the baseline with 8 times more parameters.", {}, ["8 times"],
                 id="a-baseline-with-more-parameters"),
    pytest.param("An optimal learning strategy targets points of maximum ambiguity "
                 "($\\mathbb{E}[\\theta]=0.5$).", {}, ["0.5"], id="a-bracketed-expression-equals"),
]


@pytest.mark.parametrize(("text", "names", "refused"), REFUSAL_CASES)
@pytest.mark.parametrize("learned", [False, True], ids=["rules", "learned"])
def test_refusals(text: str, names: dict[str, str], refused: list[str], learned: bool) -> None:
    assert set(refused) <= {n.value for n in find_numbers(text)}    # read as numbers, then refused
    values = [r.value for r in _results(text, names, learned=learned)]
    assert not set(values) & set(refused), values


# (text, mentions, a value that stays a result): what the refusals' words must not catch
KEPT_CASES = [
    pytest.param("Our model reaches 76.5 AP for human pose estimation on COCO.", {"COCO": "Dataset"}, "76.5",
                 id="for-human-pose-estimation"),
    pytest.param("The assistant cuts labelling time by 40% for participants of the study.", {}, "40%",
                 id="a-change-for-participants"),
    pytest.param("Our model achieves a 2.5x larger throughput than vLLM.", {"vLLM": "Method"}, "2.5x",
                 id="a-larger-throughput"),
    pytest.param("The treatment effect was HR = 0.62 (95% CI 0.51-0.75) and our model reaches 81% accuracy.",
                 {"accuracy": "Metric"}, "81%", id="a-result-after-an-interval"),
]


@pytest.mark.parametrize(("text", "names", "kept"), KEPT_CASES)
def test_what_the_refusals_leave(text: str, names: dict[str, str], kept: str) -> None:
    assert kept in [r.value for r in _results(text, names)]


# (text, mentions, value): scores that the change words around them must not make changes
SCORE_CASES = [
    pytest.param("Our solver attains an optimality gap of 0.52% on TSP100.", {"TSP100": "Benchmark"}, "0.52%",
                 id="a-gap-as-the-metric"),
    pytest.param("It reaches a mean absolute difference of 0.85 on the test set.", {}, "0.85",
                 id="a-difference-as-the-metric"),
    pytest.param("Adding the compressed prefix reduces the material-difference rate to 30.8%.", {}, "30.8%",
                 id="a-rate-named-after-a-difference"),
    pytest.param("Our method outperforms all baselines on the benchmark and obtains up to 95.2% accuracy on "
                 "CIFAR-10.", {"CIFAR-10": "Dataset", "accuracy": "Metric"}, "95.2%",
                 id="a-score-obtained-up-to"),
    pytest.param("A model trained by contrastive learning on web data achieves up to 92.1% accuracy on "
                 "ImageNet.", {"ImageNet": "Dataset", "accuracy": "Metric"}, "92.1%",
                 id="by-is-no-change-word-far-back"),
    pytest.param("On Lost in the Middle, our model scores 85.3% accuracy.", {"accuracy": "Metric"}, "85.3%",
                 id="lost-in-a-name"),
]


@pytest.mark.parametrize(("text", "names", "value"), SCORE_CASES)
def test_scores_stay_scores(text: str, names: dict[str, str], value: str) -> None:
    found = {r.value: r.kind for r in _results(text, names)}
    assert found.get(value) == "absolute", found


def test_needing_fewer_parameters_stays_a_result() -> None:
    """Efficiency is a result (results_train 7d28408754ab): only a larger size is refused."""
    text = ("Our model outperforms single-model baselines in balanced accuracy and recall, while using up "
            "to 10 times fewer parameters than independent models.")
    assert "10 times" in [r.value for r in _results(text, {"balanced accuracy": "Metric"})]


def test_agreement_with_human_experts_stays_a_result() -> None:
    text = "On the held-out dataset, DICE achieves 85.7% agreement with human experts."
    assert "85.7%" in [r.value for r in _results(text, {"DICE": "Method"})]


TRACKLET = ("In this paper, we propose a novel framework, TrackletGait, designed to address these challenges "
            "in the wild. TrackletGait achieves state-of-the-art results, with 77.8 and 80.4 rank-1 accuracy "
            "on the Gait3D and GREW datasets, respectively, while using only 10.3M backbone parameters.")
TRACKLET_NAMES = {"TrackletGait": "Method", "rank-1 accuracy": "Metric", "Gait3D": "Dataset",
                  "GREW": "Dataset"}
DBP = ("On ImageNet-1K pre-training with ADE20K fine-tuning, DBP-MAE reduces wall-clock time to baseline "
       "performance by 21.1%, lowers carbon emissions by 21.4% and improves segmentation mIoU by 1.1 points.")
DBP_NAMES = {"ImageNet-1K": "Dataset", "ADE20K": "Dataset", "DBP-MAE": "Method", "wall-clock time": "Metric",
             "carbon emissions": "Metric", "mIoU": "Metric"}
INST = ("On the Panoptic Studio dataset, Inst4DGS improves PSNR from 26.10 to 28.36, and instance mIoU from "
        "0.6310 to 0.9129, over the strongest baseline.")
INST_NAMES = {"Panoptic Studio": "Dataset", "Inst4DGS": "Method", "PSNR": "Metric", "instance mIoU": "Metric"}
VISCOG = ("Comprehensive evaluations on GenEval, T2I-CompBench, and the proposed VisCog-Bench show "
          "improvements of 15%, 5%, and 19%, respectively, demonstrating the superior performance of "
          "Visual-Chain of Guidance.")
VISCOG_NAMES = {"GenEval": "Benchmark", "T2I-CompBench": "Benchmark", "VisCog-Bench": "Benchmark",
                "Visual-Chain of Guidance": "Method"}
ICR = ("We propose a new method called In-Context Reflection (ICR) to overcome these challenges. Compared to "
       "existing methods, ICR achieves an average performance boost of 4%, while demonstrating remarkable "
       "cross-task generalization capabilities.")
ICR_NAMES = {"In-Context Reflection": "Method", "ICR": "Method"}
# `up to` bounds a change or a score alike (arXiv 2410.12608; the second made up on its model)
PROVE = ("Our results show that Prove consistently outperforms vanilla majority voting as a heuristic for "
         "solving mathematical reasoning tasks across all model sizes and datasets, achieving improvements "
         "of up to 18% on GSM8K and 8% on MATH-500. Prove reaches an accuracy of up to 95% on SVAMP.")
PROVE_NAMES = {"Prove": "Method", "majority voting": "Method", "GSM8K": "Benchmark", "MATH-500": "Benchmark",
               "SVAMP": "Benchmark", "accuracy": "Metric"}
# a share of a reference's accuracy (arXiv 2605.09490)
KV = ("We introduce a semantics-aware memory hierarchy. With only 3% eviction, the hierarchy retains 91% of "
      "full-cache accuracy on GSM8K and 71% on MATH-500.")
KV_NAMES = {"semantics-aware memory hierarchy": "Method", "GSM8K": "Benchmark", "MATH-500": "Benchmark",
            "accuracy": "Metric"}

# the cases below are sentences of the results training gold (their ids beside them)
# 80b53be27df1: a change named after the thing changed, even after `achieves`
DRPO = ("Notably, with a 1.5B model, our method achieves 77\\% length reduction with only 1.1\\% performance "
        "loss on simple questions like GSM8k dataset, while the follow-up baseline sacrifices 4.3\\% for "
        "68\\% length reduction.")
DRPO_NAMES = {"GSM8k": "Dataset"}
# 2605.17757: a gap a change closes is a change, its whole list; 2408.11237: `up to` ends a change
# begun far back
OSCAR = ("On Qwen3-4B-Thinking-2507 and Qwen3-8B, OSCAR reduces the BF16 accuracy gap to 3.78 and 1.42 "
         "points, respectively, while naive rotation INT2 collapses to nearly zero.")
OSCAR_NAMES = {"Qwen3-4B-Thinking-2507": "Model", "Qwen3-8B": "Model", "OSCAR": "Method",
               "accuracy": "Metric"}
AHM = ("Our empirical results demonstrate that the proposed AHM method outperforms all state-of-the-art "
       "approaches and significantly decreases the false positive rate (FPR) compared to existing solutions "
       "up to 7.5\\%.")
AHM_NAMES = {"AHM": "Method", "false positive rate": "Metric", "FPR": "Metric"}
# 2601.11614: a score passed is a score; 2408.10701: `which is` starts a clause, not a list
SSIM = ("My model generates high-fidelity maps, achieving a structural similarity index (SSIM) exceeding "
        "0.93 and a strong Pearson correlation (>0.94) with ground-truth dMRI.")
SSIM_NAMES = {"structural similarity index": "Metric", "SSIM": "Metric"}
FERRET = ("Our results demonstrate that Ferret, utilizing a reward model as a scoring function, improves the "
          "overall attack success rate (ASR) to 95%, which is 46% higher than Rainbow Teaming.")
FERRET_NAMES = {"Ferret": "Method", "attack success rate": "Metric", "ASR": "Metric",
                "Rainbow Teaming": "Method"}
# 2507.20673 and 2608.14791: the name a result verb follows, not a tail glued to another name
GMPO = ("We propose Geometric-Mean Policy Optimization (GMPO), a stabilized variant of GRPO. Beyond improved "
        "stability, GMPO-7B outperforms GRPO by an average of 4.1% on multiple mathematical benchmarks.")
GMPO_NAMES = {"Geometric-Mean Policy Optimization": "Method", "GMPO": "Method", "GRPO": "Method",
              "GMPO-7B": "Model"}
CEDAR = ("We introduce CEDAR-GRPO, a process-aware framework. CEDAR- GRPO improves every model on every "
         "held-out task over both base models and correctness-only GRPO, with average gains of 7.4 and 2.7 "
         "points, respectively, and a maximum gain of 30.8 points.")
CEDAR_NAMES = {"CEDAR-GRPO": "Method", "GRPO": "Method"}
# 14cc537e7d35: a short name in brackets whose letters are not the long form's
GRAIL = ("To address this, we introduce Gradient-Reweighted Advantage (GRAIL), an intrinsic token-wise "
         "advantage reweighting method. GRAIL achieved an average improvement of 3.60% in accuracy and 3.05% "
         "in Pass@3.")
GRAIL_NAMES = {"Gradient-Reweighted Advantage": "Method", "GRAIL": "Method", "accuracy": "Metric",
               "Pass@3": "Metric"}
# 2605.09338: a description is no name
GENERAL = ("To address this, we propose a generalized framework for MM-LLM-driven multimedia "
           "understanding. Empirical evaluation demonstrates the efficacy of this approach, yielding a "
           "$0.35\\%$ increase in offline AUC.")
GENERAL_NAMES = {"generalized framework": "Method", "offline AUC": "Metric"}
# 2604.24426: one number over three benchmarks belongs to none of them alone
DYMAPIA = ("This joint design achieves state-of-the-art results, with accuracy and F1-scores exceeding "
           "99\\% on FF++, Celeb-DF, and VDFD benchmarks, while keeping the model compact enough for "
           "real-time use.")
DYMAPIA_NAMES = {"accuracy": "Metric", "F1-scores": "Metric", "FF++": "Dataset", "Celeb-DF": "Dataset",
                 "VDFD": "Dataset"}
# 2608.00098: `0.4488 to 0.4983` is a score before and after, like `from ... to`
GRAIN = ("GRAIN improves over a re-implemented MambaHealth baseline on MIMIC-IV across all standard "
         "multi-label metrics (Jaccard 0.4488 to 0.4983, PRAUC 0.6911 to 0.7485).")
GRAIN_NAMES = {"GRAIN": "Method", "MambaHealth": "Method", "MIMIC-IV": "Dataset", "Jaccard": "Metric",
               "PRAUC": "Metric"}

# the 2,500 arXiv abstracts (2504.09402, 2608.00473): each number with the name right after it
SSR = ("These methods significantly improve performance, with SSR++ achieving state-of-the-art results on "
       "several benchmarks: 96.66% on GSM8K, 94.61% on ASDiv, and 76.28% on AQuA.")
SSR_NAMES = {"SSR++": "Method", "GSM8K": "Benchmark", "ASDiv": "Benchmark", "AQuA": "Benchmark"}
PCK = ("Free localization remains fragile: on natural drawings, point/region PCK@.05 is 54-76% for GPT, "
       "8-10% for Qwen, and 14-36% for GLM.")
PCK_NAMES = {"PCK@.05": "Metric", "GPT": "Model", "Qwen": "Model", "GLM": "Model"}
# results_train 2511.06055: a memory and a latency are costs, not scores on the benchmark named after them
NEODRAGON = ("Our end-to-end Neodragon system becomes a highly parameter (4.945B full model), memory (3.5GB "
             "peak RAM usage), and runtime (6.7s E2E latency) efficient mobile-friendly model, while "
             "achieving a VBench total score of 81.61.")
NEODRAGON_NAMES = {"Neodragon": "Method", "peak RAM usage": "Metric", "E2E latency": "Metric",
                   "VBench": "Benchmark", "total score": "Metric"}
# results_train 2606.15532: a number opening the brackets after a name is that name's
EIBENCH = ("Training with simulator-tracked user states lifts Qwen3-8B from -22.4 to +22.4 on EIBench and "
           "also improves on out-of-distribution evaluations including SAGE (+12.4) and EQBench3 (+20.9%).")
EIBENCH_NAMES = {"Qwen3-8B": "Model", "EIBench": "Benchmark", "SAGE": "Benchmark", "EQBench3": "Benchmark"}
# results_dev d3ffa6589b5a: the brackets open with the metric's name before the number
DMFID = ("Our method achieves the SOTA results on CIFAR-10 (FID 1.54), AFHQv2 64x64 (FID 1.23), FFHQ 64x64 "
         "(FID 0.85) and ImageNet 64x64 (FID 1.16) with great efficiency.")
DMFID_NAMES = {"CIFAR-10": "Dataset", "AFHQv2 64x64": "Dataset", "FFHQ 64x64": "Dataset",
               "ImageNet 64x64": "Dataset", "FID": "Metric"}
# 2501.01372 (the 2,500 arXiv abstracts): the metric's name and a colon
SCARNET = ("ScarNet demonstrated lower bias (-0.63%) and coefficient of variation (4.3%) compared to MedSAM "
           "(bias: -13.31%, CoV: 130.3%) and nnU-Net (bias: -2.46%, CoV: 20.3%).")
SCARNET_NAMES = {"ScarNet": "Model", "MedSAM": "Model", "nnU-Net": "Method", "bias": "Metric",
                 "CoV": "Metric"}

# 2412.09263 and 2608.00585 (the 2,500 arXiv abstracts): the benchmark right after the metric's name,
# unless it opens a list the numbers follow in order
SNLI = ("We train a GTR-T5-XL model on this expanded dataset, achieving a new benchmark of 94.7% accuracy on "
        "the SNLI dataset, 94.0% accuracy on the E-SNLI dataset, and 92.6% accuracy on the MultiNLI dataset.")
SNLI_NAMES = {"GTR-T5-XL": "Model", "accuracy": "Metric", "SNLI": "Dataset", "E-SNLI": "Dataset",
              "MultiNLI": "Dataset"}
AUC = ("Entailment scoring reaches 0.643, 0.523 and 0.560 AUC on HotpotQA, 2WikiMultihopQA and MuSiQue, "
       "against 0.951 on single-hop data.")
AUC_NAMES = {"Entailment scoring": "Method", "AUC": "Metric", "HotpotQA": "Benchmark",
             "2WikiMultihopQA": "Benchmark", "MuSiQue": "Benchmark"}

# (text, mentions, main method, aliases, value, expected fields)
LINK_CASES = [
    pytest.param(TRACKLET, TRACKLET_NAMES, "TrackletGait", (), "77.8",
                 {"kind": "absolute", "subject": "TrackletGait", "benchmark": "Gait3D",
                  "metric": "rank-1 accuracy"}, id="respectively-first"),
    pytest.param(TRACKLET, TRACKLET_NAMES, "TrackletGait", (), "80.4",
                 {"kind": "absolute", "subject": "TrackletGait", "benchmark": "GREW",
                  "metric": "rank-1 accuracy"}, id="respectively-second"),
    pytest.param(VISCOG, VISCOG_NAMES, "Visual-Chain of Guidance", (), "5%",
                 {"kind": "delta", "benchmark": "T2I-CompBench", "subject": "Visual-Chain of Guidance"},
                 id="respectively-names-before-numbers"),
    pytest.param(DBP, DBP_NAMES, "DBP-MAE", (), "21.1%",
                 {"kind": "ratio", "subject": "DBP-MAE", "metric": "wall-clock time"},
                 id="cost-change-is-ratio"),
    pytest.param(DBP, DBP_NAMES, "DBP-MAE", (), "1.1 points",
                 {"kind": "delta", "subject": "DBP-MAE", "metric": "mIoU"}, id="points-change-is-delta"),
    pytest.param(INST, INST_NAMES, "Inst4DGS", (), "26.10",
                 {"kind": "absolute", "subject": None, "metric": "PSNR"},
                 id="from-value-is-the-score-before"),
    pytest.param(INST, INST_NAMES, "Inst4DGS", (), "28.36",
                 {"kind": "absolute", "subject": "Inst4DGS", "metric": "PSNR"},
                 id="to-value-is-the-subject's"),
    pytest.param(ICR, ICR_NAMES, "In-Context Reflection", (("In-Context Reflection", "ICR"),), "4%",
                 {"kind": "delta", "subject": "In-Context Reflection", "benchmark": None, "metric": None},
                 id="subject-by-its-long-form"),
    pytest.param(PROVE, PROVE_NAMES, "Prove", (), "18%", {"kind": "delta"},
                 id="improvements-of-up-to-are-a-change"),
    pytest.param(PROVE, PROVE_NAMES, "Prove", (), "95%", {"kind": "absolute"},
                 id="an-accuracy-of-up-to-is-a-score"),
    pytest.param(KV, KV_NAMES, "semantics-aware memory hierarchy", (), "91%", {"kind": "ratio"},
                 id="a-share-of-a-reference-is-a-ratio"),
    pytest.param("Experiments on miniF2F and ProofNet demonstrate that our EconProver achieves comparable "
                 "performance to baseline methods with only 12% of the computational cost.",
                 {"miniF2F": "Benchmark", "ProofNet": "Benchmark", "EconProver": "Method"}, "EconProver", (),
                 "12%", {"kind": "ratio"}, id="a-share-of-the-cost-is-a-ratio"),
    pytest.param(SSR, SSR_NAMES, "SSR++", (), "94.61%", {"subject": "SSR++", "benchmark": "ASDiv"},
                 id="on-the-benchmark-right-after"),
    pytest.param(SNLI, SNLI_NAMES, None, (), "94.0%", {"benchmark": "E-SNLI", "metric": "accuracy"},
                 id="on-the-benchmark-right-after-the-metric"),
    pytest.param(SNLI, SNLI_NAMES, None, (), "94.7%", {"benchmark": "SNLI"}, id="the-first-of-such-a-list"),
    pytest.param(PCK, PCK_NAMES, None, (), "8-10%", {"subject": "Qwen", "metric": "PCK@.05"},
                 id="for-the-model-right-after"),
    pytest.param(DRPO, DRPO_NAMES, None, (), "77\\%", {"kind": "ratio"}, id="a-length-reduction-is-a-ratio"),
    pytest.param(DRPO, DRPO_NAMES, None, (), "1.1\\%", {"kind": "delta"},
                 id="a-performance-loss-is-a-change"),
    pytest.param(DRPO, DRPO_NAMES, None, (), "4.3\\%", {"kind": "delta"},
                 id="a-score-sacrificed-for-a-cost-is-a-change-of-score"),
    pytest.param(OSCAR, OSCAR_NAMES, "OSCAR", (), "3.78", {"kind": "delta"}, id="a-gap-is-a-change"),
    pytest.param(OSCAR, OSCAR_NAMES, "OSCAR", (), "1.42 points", {"kind": "delta"},
                 id="the-rest-of-a-gap's-list-too"),
    pytest.param(AHM, AHM_NAMES, "AHM", (), "7.5\\%", {"kind": "delta"},
                 id="up-to-ends-a-change-begun-far-back"),
    pytest.param(SSIM, SSIM_NAMES, None, (), "0.93", {"kind": "absolute"}, id="exceeding-a-score-is-a-score"),
    pytest.param(FERRET, FERRET_NAMES, "Ferret", (), "95%", {"kind": "absolute", "subject": "Ferret"},
                 id="a-clause-after-a-score-does-not-change-its-kind"),
    pytest.param(FERRET, FERRET_NAMES, "Ferret", (), "46%", {"kind": "delta"}, id="the-clause's-change"),
    pytest.param(GMPO, GMPO_NAMES, "Geometric-Mean Policy Optimization",
                 (("Geometric-Mean Policy Optimization", "GMPO"),), "4.1%",
                 {"kind": "delta", "subject": "GMPO-7B"}, id="the-name-before-the-result-verb"),
    pytest.param(GRAIL, GRAIL_NAMES, "Gradient-Reweighted Advantage", (), "3.05%",
                 {"kind": "delta", "subject": "Gradient-Reweighted Advantage", "metric": "Pass@3"},
                 id="a-bracketed-short-name-by-its-long-form"),
    pytest.param(GENERAL, GENERAL_NAMES, "generalized framework", (), "0.35\\%",
                 {"kind": "delta", "subject": None, "metric": "offline AUC"},
                 id="a-description-is-no-subject"),
    pytest.param(DYMAPIA, DYMAPIA_NAMES, None, (), "99\\%", {"kind": "absolute", "benchmark": None},
                 id="one-number-over-a-list-of-benchmarks"),
    pytest.param(GRAIN, GRAIN_NAMES, "GRAIN", (), "0.4488", {"kind": "absolute", "subject": None},
                 id="a-score-before-to-is-not-the-subject's"),
    pytest.param(GRAIN, GRAIN_NAMES, "GRAIN", (), "0.4983", {"subject": "GRAIN", "metric": "Jaccard"},
                 id="the-score-after-to-is"),
    pytest.param(EIBENCH, EIBENCH_NAMES, None, (), "+12.4", {"benchmark": "SAGE"},
                 id="bracketed-after-a-benchmark"),
    pytest.param(EIBENCH, EIBENCH_NAMES, None, (), "+20.9%", {"benchmark": "EQBench3"},
                 id="bracketed-after-the-next-benchmark"),
    pytest.param(DMFID, DMFID_NAMES, None, (), "1.23", {"benchmark": "AFHQv2 64x64", "metric": "FID"},
                 id="bracketed-with-its-metric-after-a-benchmark"),
    pytest.param(DMFID, DMFID_NAMES, None, (), "0.85", {"benchmark": "FFHQ 64x64", "metric": "FID"},
                 id="bracketed-with-its-metric-after-the-third-benchmark"),
    pytest.param(SCARNET, SCARNET_NAMES, "ScarNet", (), "-2.46%", {"subject": "nnU-Net", "metric": "bias"},
                 id="bracketed-with-its-metric-and-a-colon-after-a-method"),
    pytest.param(SCARNET, SCARNET_NAMES, "ScarNet", (), "-13.31%", {"subject": "MedSAM", "metric": "bias"},
                 id="bracketed-with-its-metric-and-a-colon-after-a-model"),
    pytest.param("On SWE-bench Verified, our agent resolves more issues than GPT-4o (33.2%).",
                 {"SWE-bench Verified": "Benchmark", "GPT-4o": "Model"}, None, (), "33.2%",
                 {"subject": "GPT-4o"}, id="bracketed-after-a-model"),
    pytest.param("On a real USB pick-and-insertion task, ACT QChunk-MCBC attains 99\\% success within 30 "
                 "minutes of HIL training.", {"ACT QChunk-MCBC": "Method"}, "ACT QChunk-MCBC", (),
                 "30 minutes",
                 {"kind": "absolute", "subject": "ACT QChunk-MCBC"}, id="minutes-of-training-are-a-cost"),
    pytest.param("ProVideLLM runs streaming dialogue at 25 FPS, with a minimal 2GB GPU memory footprint.",
                 {"ProVideLLM": "Method"}, "ProVideLLM", (), "2GB", {"subject": "ProVideLLM"},
                 id="a-memory-footprint-is-a-cost"),
    # the paper's own method, unnamed in the sentence (the 2,500 arXiv abstracts: 2504.15270, 2501.11918,
    # 2607.04336, 2511.19065)
    pytest.param("After training, our model outperforms the direct baseline employing a fixed partitioning "
                 "strategy by a maximum of 8.72 in accuracy.",
                 {"Quicksviewer": "Model", "fixed partitioning strategy": "Method"}, "Quicksviewer", (),
                 "8.72", {"subject": "Quicksviewer"}, id="our-model-outperforms"),
    pytest.param("In Subtask B, our fine-tuned RoBERTa-base model achieved a TPR score of 0.801.",
                 {"RoBERTa-base": "Model", "inverse perplexity weighting": "Method"},
                 "inverse perplexity weighting", (), "0.801", {"subject": "RoBERTa-base"},
                 id="the-name-inside-our-phrase"),
    pytest.param("Using the same DiT-XL backbone, our method reaches an impressive FID of 2.87 on ImageNet, "
                 "compared to 3.43 for the MeanFlow baseline.",
                 {"MeanFlow": "Method", "ImageNet": "Dataset", "FID": "Metric", "training scheme": "Method"},
                 "training scheme", (), "3.43", {"subject": "MeanFlow"},
                 id="another's-number-after-compared-to"),
    pytest.param(NEODRAGON, NEODRAGON_NAMES, "Neodragon", (), "3.5GB",
                 {"kind": "absolute", "subject": "Neodragon", "benchmark": None}, id="a-memory-is-no-score"),
    pytest.param(NEODRAGON, NEODRAGON_NAMES, "Neodragon", (), "6.7s", {"benchmark": None},
                 id="a-latency-is-no-score"),
    pytest.param(NEODRAGON, NEODRAGON_NAMES, "Neodragon", (), "81.61",
                 {"kind": "absolute", "subject": "Neodragon"}, id="the-score-is"),
    pytest.param("RT-Pose runs at 32 FPS on KITTI and reaches 71.2 AP.",
                 {"RT-Pose": "Method", "KITTI": "Dataset", "AP": "Metric"}, "RT-Pose", (), "32 FPS",
                 {"benchmark": "KITTI"}, id="a-speed-on-the-benchmark-right-after"),
]


@pytest.mark.parametrize(("text", "names", "main", "aliases", "value", "expected"), LINK_CASES)
@pytest.mark.parametrize("learned", [False, True], ids=["rules", "learned"])
def test_links(text: str, names: dict[str, str], main: str, aliases: tuple, value: str, expected: dict,
               learned: bool) -> None:
    found = {r.value: r for r in _results(text, names, main, aliases, learned)}
    assert value in found, list(found)
    result = found[value]
    assert text[result.start:result.end] == value
    assert {key: getattr(result, key) for key in expected} == expected


@pytest.mark.parametrize(("text", "names", "value", "expected"), [
    (SNLI, SNLI_NAMES, "94.0%", {"benchmark": "E-SNLI"}),
    (SNLI, SNLI_NAMES, "92.6%", {"benchmark": "MultiNLI"}),
    (AUC, AUC_NAMES, "0.560", {}),
    (AUC, AUC_NAMES, "0.951", {}),
    (AUC, {**AUC_NAMES, "2WikiMultihopQA": "Dataset"}, "0.560", {}),
    ("The model reaches $94.0\\%$ accuracy on SNLI.", {"accuracy": "Metric", "SNLI": "Dataset"}, "94.0\\%",
     {"benchmark": "SNLI"}),
    ("It reaches 95% accuracy for ChatGPT, 88.79% for Mistral.",
     {"accuracy": "Metric", "ChatGPT": "Model", "Mistral": "Model"}, "95%", {"subject": "ChatGPT"}),
    ("Our detector achieves 98.2% accuracy for ChatGPT-generated text.",
     {"accuracy": "Metric", "ChatGPT": "Model"}, "98.2%", {}),
])
def test_names_right_after_a_number_and_its_metric(text: str, names: dict[str, str], value: str,
                                                    expected: dict[str, str]) -> None:
    """Past the metric's name the next benchmark or model is the number's own, unless it opens a list
    of such names (the numbers before pair with it in order, which the linker decides) or modifies the
    next word (`ChatGPT-generated text`)."""
    number = next(n for n in find_numbers(text) if n.value == value)
    assert adjacent_names(text, number, _ents(text, names), {}) == expected


def test_the_ends_of_a_change_and_its_bracketed_change_share_a_benchmark() -> None:
    """results_dev 2512.23611: the linker names the benchmark (at the sentence's start) for the score
    reached; the score before it and the change in brackets are measured on the same one."""
    text = ("Experiments on the Berkeley Function-Calling Leaderboard (BFCL) demonstrate that InfTool "
            "transforms a base 32B model from 19.8% to 70.9% accuracy (+258%), surpassing models 10x larger.")
    names = {"Berkeley Function-Calling Leaderboard": "Benchmark", "BFCL": "Benchmark", "InfTool": "Method",
             "accuracy": "Metric"}
    found = {r.value: r for r in _results(text, names, "InfTool",
                                          (("Berkeley Function-Calling Leaderboard", "BFCL"),), learned=True)}
    benchmarks = {found[v].benchmark for v in ("19.8%", "70.9%", "+258%")}
    assert benchmarks == {"Berkeley Function-Calling Leaderboard"}
    assert (found["19.8%"].subject, found["70.9%"].subject, found["+258%"].kind) == (None, "InfTool", "delta")


def test_a_comparison_after_our_method_hands_the_number_to_another() -> None:
    """2607.04336: `our method achieves` does not name the subject of a number after `which` (the
    linker's choice stands; the rules alone name the paper's method, so only the learned mode)."""
    text = ("Our method achieves 91.0% accuracy, outperforming the Decision Tree baseline which achieves a "
            "higher accuracy of 96.2% but at a cost of recall.")
    found = {r.value: r for r in _results(text, {"YAACS": "Method", "Decision Tree": "Method"}, "YAACS",
                                          learned=True)}
    assert (found["91.0%"].subject, found["96.2%"].subject) == ("YAACS", "Decision Tree")


def test_a_result_verb_after_a_glued_tail_names_no_subject() -> None:
    """`CEDAR- GRPO improves`: the mention `GRPO` is the tail of the paper's name, not a subject."""
    number = next(n for n in find_numbers(CEDAR) if n.value == "2.7 points")
    sentence = next(s for s in _sentences(CEDAR) if s[0] <= number.start < s[1])
    assert verb_subject(CEDAR, number, sentence, _ents(CEDAR, CEDAR_NAMES), {}) is None
    gmpo = next(n for n in find_numbers(GMPO) if n.value == "4.1%")
    sentence = next(s for s in _sentences(GMPO) if s[0] <= gmpo.start < s[1])
    assert verb_subject(GMPO, gmpo, sentence, _ents(GMPO, GMPO_NAMES), {}) == "GMPO-7B"


def test_baseline_follows_over() -> None:
    text = "GMPO-7B outperforms GRPO by an average of 4.1% on multiple mathematical benchmarks."
    (result,) = _results(text, {"GMPO-7B": "Model", "GRPO": "Method"}, "GMPO-7B")
    found = (result.value, result.kind, result.subject, result.baseline)
    assert found == ("4.1%", "delta", "GMPO-7B", "GRPO")


@pytest.mark.parametrize(("head", "expected"), [
    pytest.param("PPO", "Proximal Policy Optimization", id="the-relations-head-by-its-long-form"),
    pytest.param(None, "Adaptive Margin Tuning", id="no-head-the-first-introduced-method"),
])
def test_main_method(head: str | None, expected: str) -> None:
    text = "We propose Adaptive Margin Tuning (AMT). It beats Proximal Policy Optimization (PPO)."
    mentions = _ents(text, {"Adaptive Margin Tuning": "Method", "Proximal Policy Optimization": "Method"})
    introduced = {(m.start, m.end) for m in mentions if m.surface == "Adaptive Margin Tuning"}
    aliases = [("Adaptive Margin Tuning", "AMT"), ("Proximal Policy Optimization", "PPO")]
    assert main_method(head, mentions, introduced, aliases) == expected


def test_component_on_a_blank_pipeline() -> None:
    """The component reads the mentions off `doc.spans` and writes `doc._.paperkg_results`."""
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    finder = nlp.add_pipe("paperkg_results")
    assert isinstance(finder, ResultFinder) and finder.model is None
    doc = nlp.make_doc(TRACKLET)
    doc.spans[FINAL] = [doc.char_span(e.start, e.end, label=e.type) for e in _ents(TRACKLET, TRACKLET_NAMES)]
    for _name, proc in nlp.pipeline:
        doc = proc(doc)
    values = {r.value: r.benchmark for r in doc._.paperkg_results}
    assert values == {"77.8": "Gait3D", "80.4": "GREW"}


def test_component_loads_the_shipped_linker() -> None:
    nlp = spacy.blank("en")
    finder = nlp.add_pipe("paperkg_results", config={"path": str(MODEL)})
    assert finder.model is not None and finder.model.weights


def test_the_linker_travels_with_a_saved_pipeline(tmp_path: Path) -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("paperkg_results", config={"path": str(MODEL)})
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp").get_pipe("paperkg_results")
    assert loaded.model == Linker.from_disk(MODEL)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor()


def test_paperkg_extract_writes_results_in_the_gold_shape(extractor: Extractor) -> None:
    ex = extractor.extract_text(TRACKLET, "tracklet")
    line = ex.to_json()
    assert {"subject", "benchmark", "metric", "value", "kind", "baseline", "confidence", "display"} <= set(
        line["results"][0])
    by_value = {r["value"]: r for r in line["results"]}
    assert by_value["77.8"]["benchmark"] == "Gait3D" and by_value["80.4"]["benchmark"] == "GREW"
    assert "10.3" not in by_value   # a size
    for res in ex.results:
        assert ex.text[res.start:res.end] == res.value
        assert ex.sentences[res.sentence][0] <= res.start < ex.sentences[res.sentence][1]
        assert 0.0 <= res.confidence <= 1.0


def test_long_abstracts_keep_result_offsets(extractor: Extractor) -> None:
    """An abstract cut into chunks keeps every result's offsets into the whole text."""
    extractor.limit = 200
    try:
        ex = extractor.extract_text("Background words only here. " * 10 + TRACKLET, "long")
    finally:
        extractor.limit = 100_000
    assert {r.value for r in ex.results} >= {"77.8", "80.4"}
    assert all(ex.text[r.start:r.end] == r.value for r in ex.results)


def test_extraction_json_without_results() -> None:
    assert Extraction(paper_id="p", text="no numbers").to_json()["results"] == []


def test_linker_training_is_reproducible() -> None:
    records = [r for r in train_results.data.read_jsonl(train_results.GOLD / "results_train.jsonl")
               if r["results"]][:40]
    inputs = train_results.gold_inputs(records)
    first, second = train_results.train(inputs, records), train_results.train(inputs, records)
    assert first == second
    preds = train_results.predict(inputs, records, first)
    found = sum(len(p["results"]) for p in preds.values())
    assert found > 0
