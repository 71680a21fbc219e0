"""math_equiv on the answer formats of issue 21: other languages' markers, end-of-answer tokens, gpt-oss
harmony channels, Kimi's thinking markers, truncated reasoning. Attacks (hedges, wrong options, answers left
in the thinking) outnumber the correct rows; every row runs under every final-answer rule."""

from __future__ import annotations

import pytest

from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample

RULES = ("final", "wrong", "last")


def _value(gold, response, rule):
    scorer = MathEquivScorer(multiple_answers=rule)
    sample = Sample(response=response, ground_truth=gold)
    score = scorer.quick(sample)
    return (score if score is not None else scorer.score(sample)).value


MARKERS_EQUAL = [
    ("D", "【解析】集合的交集是$\\{0,1,2\\}$。所以答案是D。<eoe>\n【答案】D<eoa>"),
    ("B", "因此 $x=2$，故选B。"),
    ("\\frac{1}{2}", "答案：$\\frac{1}{2}$"),
    ("12", "Ответ: 12."),
    ("12", "Réponse : 12"),
    ("12", "Antwort: $12$"),
    ("12", "Respuesta: 12"),
    ("12", "答えは 12 です"),
]
MARKERS_MISSES = [
    ("D", "【答案】A<eoa>"),
    ("D", "【答案】A B C D<eoa>"),
    ("D", "【答案】(A)(B)(C)(D)<eoa>"),
    ("B", "故选A。"),
    ("5", "答案：7"),
    ("5", "答案是5或7"),
    ("5", "答案：7\n答案：5"),
    ("12", "Ответ: 13."),
    ("12", "Réponse : 12 (faux)"),
    ("5", "Antwort: 5 (wrong)"),
    ("12", "Respuesta: 21"),
]

CHANNELS_EQUAL = [
    (
        "12",
        "<|channel|>analysis<|message|>maybe 7<|end|><|start|>assistant<|channel|>final<|message|>"
        "The answer is 12.<|return|>",
    ),
    ("12", "\u25c1think\u25b7 hmm 7 \u25c1/think\u25b7 The answer is \\boxed{12}"),
    ("12", "hmm 7, no \u25c1/think\u25b7 \\boxed{12}"),
    ("12", "Let me think... 7? no.\n</think>\n\nSo the answer is $\\boxed{12}$."),
]
CHANNELS_MISSES = [
    ("12", "<|channel|>analysis<|message|>so \\boxed{12}"),  # ended while analysing
    (
        "12",
        "<|channel|>analysis<|message|>\\boxed{12}<|end|><|start|>assistant<|channel|>final<|message|>"
        "The answer is 7.<|return|>",
    ),
    ("12", "<|channel|>final<|message|>\\boxed{7}<|return|><|channel|>analysis<|message|>\\boxed{12}"),
    ("12", "\u25c1think\u25b7 hmm \\boxed{12}"),  # truncated while thinking
    ("12", "\u25c1think\u25b7 \\boxed{12} \u25c1/think\u25b7 The answer is 7."),
    (
        "12",
        "<think>\nSo the total is 12. Let me double-check: 5 + 7 = 12, so \\boxed{12}",
    ),  # cut off thinking
    ("12", "<think>\nThe answer is 12.\n</think>\n"),  # nothing after the thinking
    ("12", "<think>\nThe answer is 12.\n</think>\nThe answer is 7."),
    ("12", "Okay, 5 + 7 = 12. Hmm, the sum is 12, let me verify the second case where"),  # cut off, no marker
]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(
    "table,want",
    [(MARKERS_EQUAL, 1.0), (MARKERS_MISSES, 0.0), (CHANNELS_EQUAL, 1.0), (CHANNELS_MISSES, 0.0)],
    ids=["markers-equal", "markers-misses", "channels-equal", "channels-misses"],
)
def test_formats(table, want, rule):
    if rule == "last" and table is MARKERS_MISSES:
        table = [(g, r) for g, r in table if r != "答案：7\n答案：5"]  # "last" takes the last by definition
    wrong = [(g, r, got) for g, r in table if (got := _value(g, r, rule)) != want]
    assert not wrong, wrong


def test_tables_hold_more_near_misses_than_equivalents():
    assert len(MARKERS_MISSES) > len(MARKERS_EQUAL) and len(CHANNELS_MISSES) > len(CHANNELS_EQUAL)


MC_PROMPT = "Which is the value of $x$?\nA. $5$\nB. $6$\nC. $\\frac{1}{2}$\nD. none of these\n"
# a multiple-choice answer given as an option's content is that option's letter, when the caller has the prompt
OPTION_CONTENT_EQUAL = [
    ("B", "So $x = 6$. The answer is $6$."),
    ("C", "\\boxed{\\frac12}"),
    ("B", "【解析】所以答案是 $6$。<eoe>\n【答案】B<eoa>"),
]
OPTION_CONTENT_MISSES = [
    ("B", "The answer is $5$."),  # option A's content
    ("B", "\\boxed{8}"),  # no option's content
    ("B", "\\boxed{5, 6, 7}"),  # every content: no option
    ("B", "\\boxed{A} \\boxed{6}"),  # A and B
    ("B", "The answer is 6 or 5."),
    ("B", "【解析】所以答案是 $6$。<eoe>\n【答案】A<eoa>"),  # the answer section decides
    (
        "B",
        "\\boxed{6}<eoe>\n【答案】<eoa>",
    ),  # an answer section with no answer: the explanation's box is not it
]


@pytest.mark.parametrize("rule", RULES)
def test_an_option_content_answers_its_letter(rule):
    def value(gold, response, prompt):
        scorer = MathEquivScorer(multiple_answers=rule)
        sample = Sample(response=response, ground_truth=gold, prompt=prompt)
        return (scorer.quick(sample) or scorer.score(sample)).value

    for gold, response in OPTION_CONTENT_EQUAL:
        assert value(gold, response, MC_PROMPT) == 1.0, response
    misses = OPTION_CONTENT_MISSES
    if rule == "last":
        misses = [m for m in misses if m[1] != "\\boxed{A} \\boxed{6}"]
    for gold, response in misses:
        assert value(gold, response, MC_PROMPT) == 0.0, response
    # without the prompt, or when two options share the content, a content is no letter
    assert value("B", "The answer is $6$.", None) == 0.0
    assert value("B", "The answer is $6$.", "Pick one.\nA. 6\nB. 6\nC. 7\n") == 0.0
    assert len(OPTION_CONTENT_MISSES) > len(OPTION_CONTENT_EQUAL)


@pytest.mark.parametrize("rule", ("final", "wrong"))
def test_beside_a_letter_a_value_naming_no_option_is_its_explanation(rule):
    prompt = "Find the charge.\nOptions:\nA. $97 \\mu C$\nB. $37 \\mu C$\nC. $77 \\mu C$\n"
    scorer = MathEquivScorer(multiple_answers=rule)

    def value(gold, response):
        sample = Sample(response=response, ground_truth=gold, prompt=prompt)
        return (scorer.quick(sample) or scorer.score(sample)).value

    assert value("B", "The total is 36.6. The closest answer is 37. The answer is (B).") == 1.0
    assert value("B", "The closest answer is 36.6. The answer is (B).") == 1.0
    # a value that is another option's content is a second answer
    assert value("B", "The answer is $97 \\mu C$. The answer is (B).") == 0.0
    assert value("B", "The answer is 97. The answer is (B).") == 0.0
    assert value("B", "The answer is (A). The answer is (B).") == 0.0
    assert value("A", "The closest answer is 37. The answer is (B).") == 0.0


def test_a_chain_of_three_relations_is_no_interval_and_does_not_raise():
    for rule in RULES:
        assert _value("1 < x < 2", "\\boxed{1 < x < 2 < 3}", rule) == 0.0
        assert _value("0 < a < b < c", "\\boxed{0 < a < b < c}", rule) == 1.0


@pytest.mark.parametrize("rule", ("final", "wrong"))
def test_answer_phrases_restating_the_prompts_examples_are_set_aside(rule):
    prompt = (
        "Q: 2+2? Options: A. 3 B. 4\nA: Let's think. The answer is (B).\n\n"
        "Q: 3+3? Options: A. 6 B. 7\nA: Let's think. The answer is (A).\n\n"
        "Q: the charge? Options: A. 5 B. 6 C. 7 D. 8\nA: Let's think."
    )
    scorer = MathEquivScorer(multiple_answers=rule)

    def value(gold, response):
        sample = Sample(response=response, ground_truth=gold, prompt=prompt)
        return (scorer.quick(sample) or scorer.score(sample)).value

    # the examples' answers, restated after the model's own, are not answers to this question
    assert value("C", "So 7. The answer is (C).\n\nThe answer is (B).\nThe answer is (A).") == 1.0
    # ... and never earn the reward for the letter they restate
    assert value("B", "So 7. The answer is (C).\n\nThe answer is (B).") == 0.0
    assert value("A", "So 7. The answer is (C).\n\nThe answer is (A).") == 0.0
    # an answer that happens to be an example's letter still counts when it is the only one
    assert value("B", "So 6. The answer is (B).") == 1.0
    assert value("D", "The answer is (B).\nThe answer is (A).") == 0.0


# structured answers (issue 21, class 4): (gold, response, prompt)
STRUCTURED_EQUAL = [
    ("16", "Therefore, \\( \\boxed{|r-s| = 16} \\).", "Find $|r-s|$."),
    ("4027", "**Final Answer:** \\(x + y = 4027\\).", "Compute $x+y$."),
    ("5,-2", "**Final Answer:** The values are \\(x = 5\\) and \\(x = -2\\).", None),
    ("1,2,3", "\\boxed{(1, 2, 3)}", None),
    ("7", "**Answer:** Verna received \\$7.00 in change.", None),
]
STRUCTURED_MISSES = [
    ("4", "\\boxed{x^2 = 16}", "If $x^2 = 16$, find $x$."),  # the equation's other side is no answer
    ("16", "\\boxed{x^2 = 16}", "Find $x$."),  # x^2 is not what is asked
    ("16", "\\boxed{|r-s| = 15}", "Find $|r-s|$."),
    ("1,2,3", "\\boxed{(1, 3, 2)}", None),  # a tuple is ordered
    ("1,2", "\\boxed{[1, 2]}", None),  # an interval is no list
    ("1,2,3", "\\boxed{(1, 2)}", None),
    ("7", "**Answer:** Verna received \\$7.00 or \\$8 in change.", None),
    ("7", "**Answer:** Verna received about \\$7 in change.", None),
    ("x + y = 4027", "\\boxed{4027}", "Compute $x+y$."),  # an equation gold is compared as an equation
]


@pytest.mark.parametrize("rule", RULES)
def test_structured_answers(rule):
    scorer = MathEquivScorer(multiple_answers=rule)

    def value(gold, response, prompt):
        sample = Sample(response=response, ground_truth=gold, prompt=prompt)
        return (scorer.quick(sample) or scorer.score(sample)).value

    assert [r for g, r, p in STRUCTURED_EQUAL if value(g, r, p) != 1.0] == []
    assert [r for g, r, p in STRUCTURED_MISSES if value(g, r, p) != 0.0] == []
    assert len(STRUCTURED_MISSES) > len(STRUCTURED_EQUAL)
