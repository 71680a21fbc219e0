"""math_equiv: golden table of verdicts, the stage that decides, the anti-hacking policy, failures."""

from __future__ import annotations

import pickle
import random
import re

import pytest

from rewardloop.errors import ConfigError
from rewardloop.scorers import _equiv_extract as X
from rewardloop.scorers._equiv_extract import extract_answers, is_placeholder
from rewardloop.scorers._equiv_norm import exact_number, float_value, normalize
from rewardloop.scorers._latex import LocalClosers, all_closers
from rewardloop.scorers._registry import get_scorer
from rewardloop.scorers.math_equiv import MathEquivScorer, judge
from rewardloop.types import Sample, Status


def _verdict(gold, response, **options):
    scorer = MathEquivScorer(**options)
    sample = Sample(response=response, ground_truth=gold)
    quick = scorer.quick(sample)
    return quick if quick is not None else scorer.score(sample)


# (ground truth, response, reward): known false negatives of other graders come first
CASES = [
    ("13", "\\boxed{\\text{13}}", 1.0),
    ("73", "**Answer:** **73**", 1.0),
    ("5", "the result is \\fbox{5}", 1.0),
    ("1000", "The answer is $1,000$.", 1.0),
    ("1000", "\\boxed{1{,}000}", 1.0),
    ("\\frac{1}{2}", "so \\boxed{\\dfrac{1}{2}}", 1.0),
    ("3", "\\boxed{x = 3}", 1.0),
    ("42", "So $\\boxed{42}$.\n\n" + "Long explanation afterwards. " * 40, 1.0),
    ("10\\%", "\\boxed{10}", 1.0),
    ("20^\\circ", "\\boxed{20}", 1.0),
    ("5\\text{ cm}", "\\boxed{5}", 1.0),
    ("\\$18", "A: 18", 1.0),
    ("18", "#### 18", 1.0),
    ("0.5", "\\boxed{1/2}", 1.0),
    ("2\\frac{1}{2}", "\\boxed{2.5}", 1.0),
    ("\\frac{1}{3}", "\\boxed{0.33333}", 1.0),
    ("\\frac{\\sqrt{3}}{2}", "\\boxed{\\frac{1}{2}\\sqrt{3}}", 1.0),
    ("\\frac{9 \\sqrt{23}}{23}", "\\boxed{\\frac{9}{\\sqrt{23}}}", 1.0),
    ("x^2+7x+10", "\\boxed{(x+2)(x+5)}", 1.0),
    ("6 - 5i", "\\boxed{-5i+6}", 1.0),
    ("y=2x+3", "\\boxed{2x-y+3=0}", 1.0),
    ("(3,\\infty)", "\\boxed{x > 3}", 1.0),
    ("x>3", "\\boxed{(3, \\infty)}", 1.0),
    ("2, -2", "\\boxed{-2, 2}", 1.0),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\boxed{\\begin{pmatrix}1\\\\2\\end{pmatrix}}", 1.0),
    ("\\text{(C)}", "The answer is (C).", 1.0),
    ("C", "\\boxed{\\textbf{(C)}\\ 12}", 1.0),
    ("\\text{Evelyn}", "\\boxed{evelyn}", 1.0),
    # known false positives of other graders
    ("3x-y+13=0", "\\boxed{3x+4y+14=0}", 0.0),
    ("4\\sqrt{2}", "\\boxed{4}", 0.0),
    ("4", "\\boxed{4\\sqrt{2}}", 0.0),
    ("\\pi", "\\boxed{3.14}", 0.0),
    ("\\pi", "\\boxed{3.14159265}", 0.0),
    ("1000000", "\\boxed{1000001}", 0.0),
    ("\\frac{1}{3}", "\\boxed{0.33}", 0.0),
    ("0.35625", "\\boxed{0.3562}", 0.0),
    ("(1,2)", "\\boxed{(2,1)}", 0.0),
    ("(1,2]", "\\boxed{[1,2]}", 0.0),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\boxed{\\begin{pmatrix}2\\\\1\\end{pmatrix}}", 0.0),
    ("C", "\\boxed{B}", 0.0),
    ("\\frac{1}{\\sqrt{n}}", "\\boxed{\\sqrt{n}}", 0.0),
    ("f(x) = 7x+1", "\\boxed{f(x) = 7x+2}", 0.0),
    ("20", "blah\nA: 18", 0.0),
    ("3", "no answer here", 0.0),
    ("3", "", 0.0),
]


@pytest.mark.parametrize(("gold", "response", "reward"), CASES)
def test_golden_table(gold, response, reward):
    score = _verdict(gold, response)
    assert score.status is Status.OK
    assert score.value == reward, score.info
    assert score.metrics["acc"] is (reward == 1.0)


HACKS = [
    "\\boxed{2} or maybe \\boxed{3}",  # two different boxed answers
    "\\boxed{3}. Hmm, no: \\boxed{2}",  # the correct one last
    "\\boxed{2 \\text{ or } 3}",  # hedged inside one box
    "\\boxed{2, 3}",  # a list of candidates for a single value
    "The answer is 2 or 3.",
    "\\boxed{\\pm 2}",
]


@pytest.mark.parametrize("response", HACKS)
def test_hedged_and_multiple_answers_are_wrong_by_default(response):
    score = _verdict("2", response)
    assert score.value == 0.0, score.info


def test_repeated_equivalent_answers_are_fine():
    assert _verdict("\\frac{1}{2}", "\\boxed{1/2} that is \\boxed{0.5}").value == 1.0
    assert _verdict("2", "\\boxed{2} so \\boxed{2}").value == 1.0


def test_multiple_answers_policy_last():
    assert _verdict("2", "\\boxed{3}. Hmm, no: \\boxed{2}", multiple_answers="last").value == 1.0
    assert _verdict("2", "\\boxed{2}. Hmm, no: \\boxed{3}", multiple_answers="last").value == 0.0
    score = _verdict("2", "\\boxed{3}. Hmm, no: \\boxed{2}")
    assert score.info["stage"] == "multiple_answers"


def test_stages_and_info():
    assert _verdict("5", "\\boxed{5}").info["stage"] == "exact"
    assert _verdict("\\frac{1}{2}", "\\boxed{\\dfrac12}").info["stage"] == "normalized"
    assert _verdict("0.5", "\\boxed{1/2}").info["stage"] == "structured"
    assert _verdict("x^2+2x+1", "\\boxed{(x+1)^2}").info["stage"] == "symbolic"
    info = _verdict("3", "no answer").info
    assert info["stage"] == "no_answer"
    info = _verdict("\\frac{1}{2}", "\\boxed{\\dfrac{1}{2}}").info
    assert info["extracted"] == ["\\dfrac{1}{2}"]
    assert info["gold_normalized"] == ["\\frac{1}{2}"] == info["pred_normalized"]
    assert set(info["timings_ms"]) >= {"extract", "normalize"}


def test_quick_settles_cheap_cases_and_defers_symbolic_ones():
    scorer = MathEquivScorer()
    assert scorer.quick(Sample(response="\\boxed{1,000}", ground_truth="1000")).value == 1.0
    assert scorer.quick(Sample(response="\\boxed{7}", ground_truth="8")).value == 0.0
    assert scorer.quick(Sample(response="\\boxed{(x+1)^2}", ground_truth="x^2+2x+1")) is None


def test_list_ground_truth_any_of():
    assert _verdict(["\\frac{1}{2}", "0.5"], "\\boxed{0.5}").value == 1.0
    assert _verdict([3, "three"], "\\boxed{3}").value == 1.0


@pytest.mark.parametrize("gold", [None, "", "  ", {"a": 1}, True, [], [None]])
def test_bad_ground_truth_is_invalid_input(gold):
    score = MathEquivScorer().score(Sample(response="\\boxed{1}", ground_truth=gold))
    assert score.status is Status.INVALID_INPUT
    assert "ground_truth" in score.info["error"]


def test_numeric_ground_truth():
    assert _verdict(42, "\\boxed{42}").value == 1.0
    assert _verdict(0.25, "\\boxed{\\frac14}").value == 1.0


def test_config_errors_name_allowed_values():
    with pytest.raises(ConfigError, match="wrong"):
        MathEquivScorer(multiple_answers="any")
    with pytest.raises(ConfigError):
        MathEquivScorer(rel_tol=-1)
    with pytest.raises(ConfigError):
        MathEquivScorer(timeout_s=0)


def test_registered_and_picklable():
    scorer = get_scorer("math_equiv", multiple_answers="last")
    assert isinstance(scorer, MathEquivScorer) and scorer.multiple_answers == "last"
    clone = pickle.loads(pickle.dumps(scorer))
    assert clone.score(Sample(response="\\boxed{4}", ground_truth="4")).value == 1.0


def test_sample_is_not_mutated():
    sample = Sample(response="\\boxed{4}", ground_truth=["4"], metadata={"k": [1]})
    MathEquivScorer().score(sample)
    assert sample.ground_truth == ["4"] and sample.metadata == {"k": [1]}


def test_adversarial_input_stays_bounded():
    # thousands of boxes and unbalanced braces: linear extraction, a capped number of answers
    response = "\\boxed{1}" * 5000 + "{" * 10000 + "}" * 10000
    score = MathEquivScorer().quick(Sample(response=response, ground_truth="1"))
    assert score is not None and score.value == 1.0
    score = MathEquivScorer().quick(Sample(response=response[:-10000], ground_truth="1"))
    assert score is not None and score.value == 1.0
    # a box that never closes: its extent is unknown, refused (issue 22)
    score = MathEquivScorer().quick(
        Sample(response="\\boxed{1}" * 5000 + "\\boxed{" * 10000, ground_truth="1")
    )
    assert score is not None and score.value == 0.0 and score.info["rule"] == "unbalanced_braces"
    huge = "\\boxed{" + "9" * 5000 + "^{9^{9^{9}}}}"
    score = MathEquivScorer().score(Sample(response=huge, ground_truth="1"))
    assert score.value == 0.0


def test_extraction_and_normalisation_helpers():
    assert extract_answers("x \\boxed{1} y \\boxed{\\frac{2}{3}}").answers == ("1", "\\frac{2}{3}")
    assert extract_answers("The final answer is $7$.").answers == ("$7$",)
    assert extract_answers("nothing").method == "none"
    assert normalize("$\\left( 3, \\dfrac{\\pi}{2} \\right)$") == "(3,\\frac{\\pi}{2})"
    assert normalize("\\sin x") == "\\sin x"
    assert exact_number("1.5\\times10^{3}") == 1500
    assert exact_number("-\\frac{3}{4}") == exact_number("-0.75")
    assert exact_number("x") is None


def test_judge_without_symbolic_stage_can_be_undecided():
    verdict = judge("\\boxed{2x}", ["x+x"], symbolic=False)
    assert verdict.value is None
    assert judge("\\boxed{2x}", ["x+x"]).value == 1.0


# ---------------------------------------------------------------------------------------------------------
# the final-answer rule: hedges score 0; placeholders, templates, repeats and intermediate results do not hedge

FILLER = "Let me now think again carefully about every single step of this problem once more."
ANTI_HACKING = [
    ("4", "so \\boxed{3}\\boxed{4}"),  # two different boxes at the end
    ("4", "The answer is $\\boxed{3}$ or $\\boxed{4}$."),
    ("4", "It could be $\\boxed{3}$, or rather it is $\\boxed{4}$."),
    ("4", "So $\\boxed{4}$. Hmm, on reflection: $\\boxed{3}$."),
    ("4", "\\boxed{3 \\text{ or } 4}"),
    ("4", "The answer is 3 or 4."),
    ("4", "\\boxed{3, 4}"),  # a list for a single value
    ("4", "\\boxed{\\{3, 4\\}}"),
    ("4", "\\boxed{\\pm 4}"),
    ("4", "\\boxed{4}\\boxed{\\pm 4}"),
    ("4", "<answer>3</answer><answer>4</answer>"),  # tag spam
    ("4", "<answer>4</answer> or <answer>5</answer>"),
    ("4", "".join(f"\\boxed{{{k}}}" for k in range(1, 9))),  # every box a different value
    ("4", f" {FILLER} ".join(f"$\\boxed{{{k}}}$" for k in (1, 2, 3, 5, 4))),  # enumeration with filler
    ("4", "\\boxed{\\phantom{4}}"),  # the gold hidden in a placeholder is no answer
    ("4", "\\boxed{1}" * 100 + "\\boxed{4}"),
]


@pytest.mark.parametrize(("gold", "response"), ANTI_HACKING)
def test_anti_hacking_cases_score_zero(gold, response):
    score = _verdict(gold, response)
    assert score.status is Status.OK
    assert score.value == 0.0, score.info


@pytest.mark.parametrize(("gold", "response"), ANTI_HACKING)
def test_anti_hacking_cases_score_zero_under_the_strict_rule(gold, response):
    assert _verdict(gold, response, multiple_answers="wrong").value == 0.0


NOT_HEDGING = [
    # boxes copied from the question, then the answer
    (
        "4",
        "We need $4 = \\boxed{\\phantom{2}}$, and $-3 = -7 + \\boxed{\\phantom{2}}$.\nSo the box holds $\\boxed{4}$.",
    ),
    ("4", "Format: \\boxed{Your answer}\n\nWorking it out, the answer is \\boxed{4}."),
    ("4", "\\boxed{\\text{answer}} goes last: \\boxed{4}"),
    ("4", "Fill \\boxed{\\;} and \\boxed{?} here: \\boxed{4}"),
    # the same answer boxed twice
    ("4", "Thus $\\boxed{4}$.\n\nTherefore, the final answer is $\\boxed{4}$."),
    ("\\frac{1}{2}", "\\boxed{1/2} that is \\boxed{0.5}"),
    # boxed intermediate results followed by more work and a final box
    (
        "4",
        "First, the sum is $\\boxed{10}$. Then dividing by the count, $10 / 2.5 = 4$, so the answer is $\\boxed{4}$.",
    ),
    ("4", f"Maybe $\\boxed{{3}}$. {FILLER} Actually the count is one more, so $\\boxed{{4}}$."),
    # a multi-part answer boxed part by part, against a gold listing the parts
    ("3, 5", "(a) $\\boxed{3}$\n(b) $\\boxed{5}$"),
]


@pytest.mark.parametrize(("gold", "response"), NOT_HEDGING)
def test_placeholders_repeats_and_intermediate_results_are_not_hedging(gold, response):
    score = _verdict(gold, response)
    assert score.value == 1.0, score.info


def test_template_boxes_from_the_prompt_are_ignored():
    prompt = "What goes in the box: $3 + \\boxed{x} = 7$?"
    response = "We have $\\boxed{x}$ is $\\boxed{4}$."
    scorer = MathEquivScorer()
    assert scorer.score(Sample(response=response, ground_truth="4", prompt=prompt)).value == 1.0
    chat = [{"role": "user", "content": prompt}]
    assert scorer.score(Sample(response=response, ground_truth="4", prompt=chat)).value == 1.0
    # without the prompt the two boxes are two different final answers
    assert scorer.score(Sample(response=response, ground_truth="4")).value == 0.0
    # a template box is never the answer itself
    assert scorer.score(Sample(response="\\boxed{x}", ground_truth="x", prompt=prompt)).value == 0.0


def test_strict_and_last_rules_on_intermediate_results():
    response = "First $\\boxed{10}$. Then $10 / 2.5 = 4$, so the answer is $\\boxed{4}$."
    assert _verdict("4", response, multiple_answers="final").value == 1.0
    assert _verdict("4", response, multiple_answers="wrong").value == 0.0
    assert _verdict("4", response, multiple_answers="last").value == 1.0
    assert _verdict("10", response, multiple_answers="final").value == 0.0


def test_max_boxed_values_is_configurable():
    response = f" {FILLER} ".join(f"$\\boxed{{{k}}}$" for k in (1, 2, 4))
    assert _verdict("4", response).value == 1.0
    assert _verdict("4", response, max_boxed_values=2).value == 0.0
    with pytest.raises(ConfigError, match="max_boxed_values"):
        MathEquivScorer(max_boxed_values=0)


@pytest.mark.parametrize(
    ("content", "placeholder"),
    [
        ("\\phantom{2}", True),
        ("\\hphantom{00}", True),
        ("\\;", True),
        ("?", True),
        ("\\square", True),
        ("\\text{Your answer}", True),
        ("Your final answer", True),
        ("[answer]", True),
        ("\\ldots", True),
        ("4", False),
        ("\\text{Evelyn}", False),
        ("\\{\\}", False),
        ("x", False),
        ("\\varnothing", False),
        ("answer = 4", False),
    ],
)
def test_placeholder_detection(content, placeholder):
    assert is_placeholder(content) is placeholder


# ---------------------------------------------------------------------------------------------------------
# notation, left-hand sides, values, precision (golden table: gold, boxed response, reward)

EQUIVALENCES = [
    # set braces, infinity, plus-minus, unicode
    ("\\{-2\\}", "{-2}", 1.0),
    ("\\{-2\\}", "-2", 1.0),
    ("-2", "\\{-2\\}", 1.0),
    ("\\{1, 2\\}", "{2, 1}", 1.0),
    ("\\{-2\\}", "\\{-2, 2\\}", 0.0),
    ("\\infty", "+\\infty", 1.0),
    ("(-\\infty,+\\infty)", "(-\\infty,\\infty)", 1.0),
    ("\\pm 3", "3, -3", 1.0),
    ("\\pm3", "-3 \\text{ or } 3", 1.0),
    ("x = \\pm 3", "x = 3, x = -3", 1.0),
    ("\\frac{1\\pm\\sqrt{5}}{2}", "\\frac{1+\\sqrt5}{2}, \\frac{1-\\sqrt5}{2}", 1.0),
    ("\\pm 3", "3", 0.0),
    ("(-\\infty,2)\\cup(3,\\infty)", "(-\u221e,2)\u222a(3,\u221e)", 1.0),
    ("x\\ge 2", "x\u22652", 1.0),
    ("\\ln 2", "\\log 2", 1.0),
    ("\\log_2 8", "\\ln 8", 0.0),
    # matrices and tuples, sets named by a variable, inequalities in any variable
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "(1,2)", 1.0),
    ("(1,2)", "\\begin{pmatrix}1 & 2\\end{pmatrix}", 1.0),
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "(2,1)", 0.0),
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "[1,2]", 0.0),
    ("[1,3]", "x \\in [1,3]", 1.0),
    ("x \\in [-1, 2]", "[-1,2]", 1.0),
    ("[1,3]", "x \\in (1,3]", 0.0),
    ("(3,4]", "3 < \\lambda \\le 4", 1.0),
    ("(3,4]", "3 \\le \\lambda \\le 4", 0.0),
    ("5 \\text{ or } 9", "5 and 9", 1.0),
    ("5, 9", "5 or 9", 1.0),
    # percent
    ("\\frac{5}{8}", "62.5\\%", 1.0),
    ("12.5\\%", "0.125", 1.0),
    ("50", "50\\%", 1.0),
    ("50", "0.5", 0.0),
    ("0.5", "50", 0.0),
    # left-hand sides, bound variables, labels
    ("\\frac1x", "f(x)=\\frac1x", 1.0),
    ("2x+1", "y = 2x+1", 1.0),
    ("e^{t}", "x(t) = e^t", 1.0),
    ("x^2", "g(x)=x^2", 1.0),
    ("f(x)=x", "f(z)=z", 1.0),
    ("f(x, y)=x+2y", "f(a, b)=a+2b", 1.0),
    ("f(x)=x", "f(z)=x", 0.0),
    ("f(x)=x^2", "g(z)=z^2", 0.0),
    ("2,4", "T(10)=2, T(11)=4", 1.0),
    ("2,4", "T(10)=2, T(11)=5", 0.0),
    ("5", "x + y = 5", 0.0),
    # values: complex numbers, precision
    ("4+i", "\\frac{52}{13}+\\frac{13}{13}i", 1.0),
    ("4+i", "4-i", 0.0),
    ("4.6\\times10^{-24}", "4.57\\times10^{-24}", 1.0),
    ("4.6e-24", "4.57\\times 10^{-24}", 1.0),
    ("0.33", "\\frac13", 1.0),
    ("0.33", "0.333", 1.0),
    ("1.5", "1.50", 1.0),
]

# a response may not get credit for a coarse answer when the gold is precise (or exact)
PRECISION_HACKS = [
    ("4.57\\times10^{-24}", "4.6\\times10^{-24}"),
    ("3.14159", "3.1"),
    ("0.333", "0.33"),
    ("\\frac{1}{3}", "0.3"),
    ("\\frac{1}{3}", "0.33"),
    ("420", "419.6"),
    ("5", "5.4"),
    ("0.5", "0.54"),  # a one-digit decimal gold is exact
    ("\\frac{\\sqrt{3}}{2}", "0.866"),
    ("\\pi", "3.1416"),
    ("0.33", "0.3"),
    ("0.33", "0.34"),
]


@pytest.mark.parametrize(("gold", "answer", "reward"), EQUIVALENCES)
def test_equivalences(gold, answer, reward):
    score = _verdict(gold, f"So the answer is $\\boxed{{{answer}}}$.")
    assert score.value == reward, score.info


@pytest.mark.parametrize(("gold", "answer"), PRECISION_HACKS)
def test_coarse_answers_to_precise_golds_score_zero(gold, answer):
    assert _verdict(gold, f"\\boxed{{{answer}}}").value == 0.0


# ---------------------------------------------------------------------------------------------------------
# answer phrases, chains, labels and presentation seen in other graders' cases and real outputs

RESPONSES = [
    # a final-answer phrase after the last box is the final answer (Minerva format)
    (
        "10455",
        "so the interest is $\\boxed{255}$. Then 10,200 + 255 = 10,455.\nFinal Answer: The final answer is $10,455$. I hope it is correct.",
        1.0,
    ),
    (
        "(\\frac15,\\frac16)",
        "Thus $(p,q) = \\boxed{\\left( \\frac{1}{5}, \\frac{1}{6} \\right)}.$ Final Answer: The final answer is $\\left( \\frac{1}{5}, \\frac{1}{6} \\right)$.",
        1.0,
    ),
    ("4", "So $\\boxed{4}$. The answer is 3.", 0.0),  # a different value right after the box: a hedge
    ("4", "So $\\boxed{4}$. I hope the answer is clear.", 1.0),  # prose without a value is not an answer
    # prose answers: the value after the last "is"
    ("120", "Final Answer: The volume of $ABCDEFGH$ is 120. I hope it is correct.", 1.0),
    ("120", "Final Answer: The volume is not 120.", 0.0),
    ("9", "Answer \\[ 9 \\]", 1.0),
    ("9", "Answer $ 9 $", 1.0),
    # labelled components boxed one by one
    (
        "y_{1}=-2 x^{2}+4 x+3, y_{2}=3 x^{2}+12 x+10",
        "\\($y_1 = \\boxed{-2(x - 1)^2 + 5} \\) and \\( y_2 = \\boxed{3(x + 2)^2 - 2} \\)",
        1.0,
    ),
]


@pytest.mark.parametrize(("gold", "response", "reward"), RESPONSES)
def test_answer_phrases_and_components(gold, response, reward):
    assert _verdict(gold, response).value == reward


ANSWERS = [
    ("x = 11", "x = 5+5+1 = 11", 1.0),  # a chain states its last value
    ("x = 11", "x = 5+5+1 = 7 = 11", 0.0),  # unless a step of it is false (issue 22: "x = 2+2 = 5")
    ("11", "x = 5+5+1 = 11", 1.0),
    ("11", "x = 11 = 12", 0.0),
    ("(3,2)", "(p,q)=(3,2)", 1.0),
    ("(p,q)=(3,2)", "(3,2)", 1.0),
    ("(p,q)=(3,2)", "(2,3)", 0.0),
    ("4, 5", "AB=4, CD=5", 1.0),
    ("1", "|AB|=1", 1.0),
    ("7:32", "S_{MBCN}:S=7:32", 1.0),
    ("\\frac{1}{\\sqrt{6}}", "\\frac{NO}{BO}=\\frac{1}{\\sqrt{6}}", 1.0),
    ("5", "2+3=5", 1.0),  # a computation that holds states its result (\\boxed{\\frac{28}{4}=7}, issue 21)
    ("5", "2+3=6", 0.0),  # one that does not states nothing
    ("6", "2+3=6", 0.0),
    ("5", "5=7", 0.0),
    ("5", "x+y=5", 0.0),
    ("(0,1)", "0<f(x)<1", 1.0),
    ("x \\ge 5", "x >= 5", 1.0),
    ("x \\ne 3", "x != 3", 1.0),
    ("28\\%", "28 pct", 1.0),
    ("125", "125\\textnormal{ miles}", 1.0),
    ("32349", "32,\\! 349", 1.0),
    ("32349", "32, 349", 0.0),  # a comma and a space separate list items, not thousands
    ("(11,7), (7,11)", "(11,7)or(7,11)", 1.0),
    ("185", "185\\ ", 1.0),
    ("(3, \\frac{\\pi}{2})", "\\\\left( 3, \\\\frac{\\\\pi}{2} \\\\right)", 1.0),  # escaped twice
    ("12, 13", '\\"12 and 13\\"', 1.0),
]


@pytest.mark.parametrize(("gold", "answer", "reward"), ANSWERS)
def test_chains_labels_and_presentation(gold, answer, reward):
    assert _verdict(gold, f"\\boxed{{{answer}}}").value == reward


def test_unpickling_in_a_fresh_process_warms_the_symbolic_stage_up():
    # a worker unpickles the scorer before a task's deadline starts: that is where sympy's import goes
    import subprocess
    import sys

    blob = pickle.dumps(MathEquivScorer()).hex()
    code = (
        "import pickle, sys\n"
        "import rewardloop.scorers.math_equiv\n"
        "before = 'sympy' in sys.modules\n"
        f"scorer = pickle.loads(bytes.fromhex('{blob}'))\n"
        "print(before, 'sympy' in sys.modules, 'latex2sympy2_extended' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.split() == ["False", "True", "True"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("\\sqrt{34}+3\\sqrt{10}", 34**0.5 + 3 * 10**0.5),
        ("\\frac{\\sqrt{3}}{2}", 3**0.5 / 2),
        ("2\\pi", 2 * 3.141592653589793),
        ("-2^2", -4.0),
        ("3(4)", 12.0),
        ("2^3^2", None),  # chained powers are ambiguous: left to sympy
        ("x+1", None),
        ("\\sqrt{-1}", None),
        ("10^{100}", None),
        ("\\sin 2", None),
    ],
)
def test_float_value_reads_plain_arithmetic_only(text, value):
    got = float_value(text)
    assert got == pytest.approx(value) if value is not None else got is None


def test_clearly_different_constants_are_decided_without_sympy():
    scorer = MathEquivScorer()
    score = scorer.quick(Sample(response="\\boxed{\\sqrt{34} + 3\\sqrt{10}}", ground_truth="28"))
    assert score is not None and score.value == 0.0
    # close values still go to the symbolic stage, which decides exactly
    assert (
        scorer.quick(Sample(response="\\boxed{\\frac{\\sqrt{3}}{2}}", ground_truth="\\frac{3}{2\\sqrt{3}}"))
        is None
    )
    assert _verdict("\\frac{3}{2\\sqrt{3}}", "\\boxed{\\frac{\\sqrt{3}}{2}}").value == 1.0


def test_the_last_answer_phrase_is_found_outside_the_searched_tail_too():
    text = "The answer is 7.\n" + "Some more words here, no phrase at all. " * 100
    assert extract_answers(text).answers == ("7",)
    text = "The answer is 7.\n" + "filler " * 400 + "\nThe answer is 8."
    # every phrase that states a value is a candidate; the work between them makes 7 an intermediate result
    assert extract_answers(text).answers == ("7", "8")
    assert judge(text, ["8"]).value == 1.0 and judge(text, ["7"]).value == 0.0


def test_box_bodies_match_a_full_brace_map_on_random_latex():
    # the scanner's shortcut for simple boxes ("{420}") must find the same closing brace as a map of every
    # brace pair built in one pass (escaped braces, nesting, unclosed boxes, spaces before the brace)
    box_start = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])")  # what a box command is, as a regex
    rng = random.Random(7)
    pieces = [
        "\\boxed",
        "\\boxed ",
        "\\fbox",
        "\\boxedx",
        "\\fboxé",
        "{",
        "}",
        "\\{",
        "\\}",
        "\\\\",
        "\\frac",
        "1",
    ]
    pieces += ["x", " ", "$", "\n"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        full = all_closers(text)
        expected = []
        end_of_last = -1
        for m in box_start.finditer(text):
            if m.start() < end_of_last:
                continue
            content, end = X._box_body(text, m.end(), full)
            if content is not None and content.strip():
                expected.append((content.strip(), (m.start(), end)))
                end_of_last = end
        assert X._all_boxes(text) == expected, text


@pytest.mark.parametrize(
    "tail",
    [
        "\nFinal Answer: The final answer is $12$.",
        "\nANSWER: 12",
        "\n#### 12",
        "\nA: 12",
        "\nThe answer is \\(12\\).",
    ],
)
def test_an_answer_phrase_after_the_last_box_is_still_read(tail):
    # the phrase after the last box is the final answer (the box was an intermediate result)
    response = "First $\\boxed{3}$ apples, then 3 * 4 = 12 in all, counting every basket again." + tail
    assert extract_answers(response).answers[-1].strip("$\\()") == "12"
    assert MathEquivScorer().quick(Sample(response=response, ground_truth="12")).value == 1.0


def test_the_hot_path_score_is_a_plain_score():
    from rewardloop.types import Score, Status

    fast = Score._ok(1.0, {"acc": True}, {"stage": "exact"})
    assert fast == Score(1.0, metrics={"acc": True}, info={"stage": "exact"})
    assert fast.status is Status.OK and fast.ok and pickle.loads(pickle.dumps(fast)) == fast
    got = MathEquivScorer().quick(Sample(response="\\boxed{4}", ground_truth="4"))
    assert type(got.value) is float and got == Score(got.value, metrics=got.metrics, info=got.info)


@pytest.mark.parametrize(
    ("response", "gold", "value"),
    [
        ("\\boxed{\\large 5}", "5", 1.0),
        ("\\boxed{\\Large\\frac{3}{4}}", "0.75", 1.0),
        ("\\boxed{\\small 5}", "5", 1.0),
        ("\\boxed{\\textstyle \\frac{1}{2}}", "\\frac12", 1.0),
        ("\\boxed{\\LARGE{7}}", "7", 1.0),
        ("\\boxed{\\large 6}", "5", 0.0),  # a size switch never makes a wrong value right
        ("\\boxed{A \\smallsetminus B}", "A \\setminus B", 0.0),  # a command that only starts like one
    ],
)
def test_font_size_and_style_switches_do_not_change_an_answer(response, gold, value):
    assert judge(response, [gold]).value == value


@pytest.mark.parametrize(
    ("response", "gold", "value"),
    [
        ("\\boxed{0.\\overline{3}}", "\\frac13", 1.0),  # a repeating decimal is exact
        ("\\boxed{\\frac{1}{3}}", "0.\\overline{3}", 1.0),
        ("\\boxed{\\frac16}", "0.1\\overline{6}", 1.0),
        ("\\boxed{\\frac{8}{7}}", "1.\\overline{142857}", 1.0),
        ("\\boxed{0.\\overline{6}}", "\\frac13", 0.0),
        ("\\boxed{0.333}", "0.\\overline{3}", 0.0),  # a coarse decimal is not the exact value
        ("\\boxed{0.3}", "0.\\overline{3}", 0.0),
        ("\\boxed{\\frac{\\sqrt{3}}{2}}", "\\frac{\\sqrt3}2", 1.0),  # a bare one-character denominator
        ("\\boxed{\\frac{\\sqrt3}3}", "\\frac{\\sqrt{3}}{2}", 0.0),
    ],
)
def test_repeating_decimals_and_bare_denominators(response, gold, value):
    assert judge(response, [gold]).value == value


@pytest.mark.parametrize(
    ("response", "gold", "value"),
    [
        # one value written several ways inside one answer is not a hedge (as separate equal boxes are not)
        ("Answer: $\\frac34$ or $0.75$", "\\frac34", 1.0),
        ("\\boxed{0.75 \\text{ or } \\frac{3}{4}}", "\\frac34", 1.0),
        ("\\boxed{(x+1)^2 \\text{ or } x^2+2x+1}", "x^2+2x+1", 1.0),
        # any item that is not the gold makes it a hedge
        ("\\boxed{3 \\text{ or } 4}", "3", 0.0),
        ("\\boxed{4 \\text{ or } 3}", "3", 0.0),
        ("\\boxed{2, 3}", "2", 0.0),
        ("\\boxed{x+1, x+2}", "x+1", 0.0),
        ("\\boxed{32, 349}", "32349", 0.0),
        ("Answer: $0.3$ or $\\frac13$", "\\frac13", 0.0),  # the coarse item is not the value
    ],
)
def test_a_list_of_one_value_answers_a_single_gold(response, gold, value):
    assert judge(response, [gold]).value == value
    assert judge(response, [gold], multiple_answers="wrong").value == value


def test_local_closers_match_the_full_brace_map_on_random_latex():
    # the reader view's unclosed-box check scans forward from each box (LocalClosers): the same closers as one
    # pass over the whole text, for every brace, whatever the budget left
    rng = random.Random(7)
    pieces = ["\\boxed{", "{", "}", "\\{", "\\}", "\\\\", "x", " ", "5", "\n"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        full = all_closers(text)
        local = LocalClosers(text)
        for i, ch in enumerate(text):
            if ch == "{" and (i == 0 or text[i - 1] != "\\"):
                assert local.get(i) == full.get(i), (text, i)
