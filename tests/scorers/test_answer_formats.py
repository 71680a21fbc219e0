"""The final-answer rule on the output conventions of model families it was not built on.

Each row is a response shaped the way a family writes its answers (reasoning models with a thinking
block, Llama-3, Mistral / Gemma, GPT-4-style chat models, multiple choice), with its gold and the verdict
the documented rule (docs/math-verifier.md, "The final-answer rule") gives. The responses are written
for these tests, after how these families format answers; none is copied from a data set.
"""

from __future__ import annotations

import pytest

from rewardloop.scorers._equiv_extract import extract_answers
from rewardloop.scorers.math_equiv import MathEquivScorer
from rewardloop.types import Sample, Status


def _score(gold, response, prompt=None, **options):
    scorer = MathEquivScorer(**options)
    sample = Sample(response=response, ground_truth=gold, prompt=prompt)
    quick = scorer.quick(sample)
    return quick if quick is not None else scorer.score(sample)


def _case(name, gold, response, reward):
    return pytest.param(gold, response, reward, id=name)


# a DeepSeek-R1 / QwQ style thinking block: boxed intermediate values and abandoned candidates inside
THINK = (
    "<think>\nOkay, so I need the diagonal of a 3 by 4 rectangle. The area would be "
    "$3 \\times 4 = \\boxed{12}$, but that is not what is asked. Wait, the diagonal: by Pythagoras "
    "$d^2 = 3^2 + 4^2 = 9 + 16 = 25$, so $d = 5$. Let me double-check: $5^2 = 25$. Yes.\n</think>\n\n"
)
# a thinking block that tries (and boxes) many candidates before settling
THINK_MANY = (
    "<think>\n"
    + " ".join(
        f"Maybe the diagonal is $\\boxed{{{k}}}$? Then $d^2$ would be {k * k}, which is not 25."
        for k in (1, 2, 3, 4, 6, 7)
    )
    + " So $d = 5$.\n</think>\n\n"
)

REASONING = [
    _case(
        "r1-think-then-display-box",
        "5",
        THINK + "The diagonal satisfies $d^2 = 3^2 + 4^2 = 25$, so\n\n\\[\n\\boxed{5}\n\\]",
        1.0,
    ),
    _case(
        "r1-summary-boxes-the-answer-twice",
        "5",
        THINK + "The diagonal is $\\boxed{5}$.\n\n**Final Answer**\n\\[\n\\boxed{5}\n\\]",
        1.0,
    ),
    _case(
        "r1-many-boxed-candidates-inside-thinking",
        "5",
        THINK_MANY + "By the Pythagorean theorem the diagonal is $\\boxed{5}$.",
        1.0,
    ),
    _case(
        "r1-think-opened-by-the-chat-template",  # the response starts inside the thinking
        "5",
        "Okay, $d^2 = 25$, maybe $\\boxed{4}$? No: $4^2 = 16$.\n</think>\n\nThe answer is $\\boxed{5}$.",
        1.0,
    ),
    _case("qwq-final-answer-heading-display-box", "5", "**Final Answer**\n\\[\n\\boxed{5}\n\\]", 1.0),
    _case(
        "r1-summary-with-an-intermediate-box",
        "4",
        THINK
        + "1. Total apples: $3 \\times 4 = \\boxed{12}$.\n2. Shared among three friends: $12 / 3 = 4$.\n\n"
        "**Final Answer**\n\\[\n\\boxed{4}\n\\]",
        1.0,
    ),
    _case(
        "sky-t1-thought-and-solution-markers",
        "5",
        "<|begin_of_thought|>\nMaybe $\\boxed{4}$? The diagonal is longer than either side.\n"
        "<|end_of_thought|>\n\n<|begin_of_solution|>\nThe diagonal is $\\boxed{5}$.\n<|end_of_solution|>",
        1.0,
    ),
    _case("r1-answer-tag-after-thinking", "5", "<think>\nd = 5\n</think>\n<answer>5</answer>", 1.0),
    _case("r1-box-inside-answer-tag", "5", "<think>\nd = 5\n</think>\n<answer>$\\boxed{5}$</answer>", 1.0),
    _case(
        "r1-answer-tag-holding-a-sentence",
        "5",
        "<think>\nd = 5\n</think>\n<answer>\nThe diagonal is $5$.\n</answer>",
        1.0,
    ),
    _case(
        "r1-answer-tag-holding-a-phrase",
        "5",
        "<think>\nd = 5\n</think>\n<answer>The answer is 5</answer>",
        1.0,
    ),
    _case(
        "grpo-reasoning-tag-with-a-boxed-candidate",  # the answer tag after the last box is the answer
        "5",
        "<reasoning>\nMaybe $\\boxed{4}$? No: the diagonal is longer than a side.\n</reasoning>\n<answer>5</answer>",
        1.0,
    ),
    _case(
        "magistral-think-brackets",
        "5",
        "[THINK]Maybe $\\boxed{4}$? No: the diagonal is longer than a side.[/THINK]The diagonal is $\\boxed{5}$.",
        1.0,
    ),
    _case("magistral-truncated", "5", "[THINK]So the diagonal is $\\boxed{5}$. Let me check that by", 0.0),
    _case(
        "sky-t1-truncated", "5", "<|begin_of_thought|>\nSo the diagonal is $\\boxed{5}$. Let me check", 0.0
    ),
    _case("r1-phrase-without-box-after-thinking", "5", THINK + "The answer is 5.", 1.0),
    # the thinking is not the answer: a response that ends while thinking has not answered
    _case(
        "truncated-inside-thinking",
        "5",
        "<think>\nWe need the diagonal. $d^2 = 9 + 16 = 25$, so $d = \\boxed{5}$. Let me double-check this by",
        0.0,
    ),
    _case("thinking-then-no-answer", "5", THINK + "I could not finish this problem.", 0.0),
    _case("thinking-then-nothing", "5", "<think>\nSo the diagonal is $\\boxed{5}$.\n</think>\n\n", 0.0),
    _case(  # thinking ends at the first closing tag: a stray later </think> hides nothing, so 2 and 4 are two
        # different final answers (a policy could otherwise hide wrong answers behind fake closing tags)
        "boxes-between-closing-tags",
        "4",
        "\\boxed{3}</think>\\boxed{2}</think>\\boxed{4}",
        0.0,
    ),
]

FAMILIES = [
    _case(
        "llama3-final-answer-is",
        "5",
        "## Step 1: Apply the Pythagorean theorem\n$d^2 = 3^2 + 4^2 = 25$.\n\n## Step 2: Take the root\n"
        "$d = 5$.\n\nTherefore, the final answer is: $\\boxed{5}$. I hope it is correct.",
        1.0,
    ),
    _case("mistral-bold-answer-colon", "5", "The diagonal is 5.\n\n**Answer:** 5", 1.0),
    _case("gemma-bold-final-answer-math", "5", "The diagonal is $5$.\n\n**Final answer:** $5$", 1.0),
    _case("bold-label-colon-outside", "5", "The diagonal is 5.\n\n**Answer**: 5", 1.0),
    _case("bold-final-answer-colon-outside", "5", "So $d = 5$.\n\n**Final Answer**: $5$", 1.0),
    _case("bold-final-answer-inline", "5", "The diagonal is **5**.\n\n**Final Answer: 5**", 1.0),
    _case("gpt4-answer-line", "5", "So d = 5.\n\nAnswer: 5", 1.0),
    _case("gpt4-answer-upper", "5", "So d = 5.\n\nANSWER: 5", 1.0),
    _case("gsm8k-hashes", "5", "So d = 5.\n#### 5", 1.0),
    _case("minerva-final-answer", "5", "Final Answer: The final answer is $5$. I hope it is correct.", 1.0),
    _case("gpt4o-bold-answer-box", "5", "**Answer:** \\( \\boxed{5} \\)", 1.0),
    _case("claude-the-answer-is-bold", "5", "The answer is **5**.", 1.0),
    _case("heading-final-answer-display", "5", "### Final Answer\n\\[ 5 \\]", 1.0),
    _case("bold-heading-final-answer-display", "5", "**Final Answer**\n\\[\n5\n\\]", 1.0),
    _case("heading-final-answer-inline-math", "5", "**Final Answer**\n\n$5$", 1.0),
    _case("heading-final-answer-sentence", "5", "### Final Answer\nThe diagonal is $5$.", 1.0),
    _case("heading-answer-next-line", "5", "The diagonal follows from Pythagoras.\n\n**Answer**\n\n5", 1.0),
    _case("answer-then-a-negated-answer", "5", "The answer is 5. Note that the answer is not 7.", 1.0),
    _case("box-then-sign-off", "5", "Final answer: $\\boxed{5}$\n\nLet me know if you need more help!", 1.0),
    _case(
        "box-then-verification",
        "5",
        "The answer is $\\boxed{5}$.\n\nVerification: $3^2 + 4^2 = 25 = 5^2$.",
        1.0,
    ),
    _case(
        "box-then-prose-answer-line",  # a sentence after the box restates it; it is not a second answer
        "5",
        "So $d = \\boxed{5}$.\n\nAnswer: The diagonal has length 5.",
        1.0,
    ),
    _case(
        "box-then-approximation",
        "\\frac{1}{3}",
        "The probability is $\\boxed{\\frac{1}{3}}$.\n\n**Final Answer:** approximately 0.333",
        1.0,
    ),
    _case("box-then-same-answer-in-words", "5", "\\boxed{5}\n\n**Answer:** 5 units", 1.0),
    _case("box-then-phrase-with-a-remark", "5", "\\boxed{5}\n\nThe answer is: 5 (the diagonal)", 1.0),
    _case("phrase-with-a-remark", "12", "Answer: 12 (in cm)", 1.0),
    _case("phrase-with-an-alternative-in-parentheses", "5", "The answer is 5 (or 6).", 0.0),
    _case("phrase-with-a-reason", "5", "The answer is 5, which is the only prime that works.", 1.0),
    _case("phrase-with-a-reason-in-math", "5", "The answer is $5$, since $3^2 + 4^2 = 5^2$.", 1.0),
    _case("phrase-with-an-adverb", "5", "The answer is clearly 5.", 1.0),
    _case("phrase-with-a-second-value", "5", "The answer is 3, as well as 5.", 0.0),
    _case(  # the rule's known cost: the last box decides, even a box in a side note
        "box-in-a-note-after-the-answer",
        "5",
        "\\boxed{5}\n\n**Note:** If the sides were 6 and 8, the diagonal would be $\\boxed{10}$.",
        0.0,
    ),
    _case("chinese-final-answer-box", "5", "最终答案是 $\\boxed{5}$。", 1.0),
    # multiple choice
    _case("choice-the-answer-is-letter", "B", "Only option B fits both equations. The answer is (B).", 1.0),
    _case("choice-box-text-letter", "B", "\\boxed{\\text{(B)}}", 1.0),
    _case("choice-box-letter", "B", "\\boxed{B}", 1.0),
    _case("choice-box-letter-gold-in-parens", "(B)", "\\boxed{B}", 1.0),
    _case("choice-box-letter-and-value", "B", "\\boxed{\\textbf{(B)}\\ 12}", 1.0),
    _case("choice-bold-answer", "B", "**Answer: (B)**", 1.0),
    _case("choice-with-reason", "B", "The answer is (B) because it is the only even option.", 1.0),
    _case("choice-wrong-letter", "B", "The answer is (C).", 0.0),
    _case("choice-correct-option-is", "B", "Checking each choice, the correct option is (B).", 1.0),
    _case("choice-best-choice", "B", "**Best choice: B**", 1.0),
]

DECORATED = [
    _case("units-in-box", "5", "\\boxed{5\\text{ cm}}", 1.0),
    _case("words-in-box", "12", "\\boxed{12 \\text{ square units}}", 1.0),
    _case("equation-in-box", "3", "\\boxed{x = 3}", 1.0),
    _case("dollars-in-box", "18.90", "She pays $\\boxed{\\$18.90}$.", 1.0),
    _case("degrees-in-box", "90", "\\boxed{90^\\circ}", 1.0),
    _case("degrees-braced-in-box", "90", "\\boxed{90^{\\circ}}", 1.0),
    _case("dfrac-in-box", "\\frac{3}{4}", "\\boxed{\\dfrac{3}{4}}", 1.0),
    _case("box-in-display-brackets", "5", "Hence\n\\[\n\\boxed{5}\n\\]", 1.0),
    _case("box-in-double-dollars", "5", "Therefore:\n\n$$\n\\boxed{5}\n$$", 1.0),
    _case("period-inside-box", "5", "\\boxed{5.}", 1.0),
    _case("fbox", "5", "\\fbox{5}", 1.0),
    _case("double-braces", "5", "\\boxed{{5}}", 1.0),
    _case("space-before-brace", "5", "\\boxed {5}", 1.0),
    _case("bold-in-box", "5", "\\boxed{\\textbf{5}}", 1.0),
    _case("box-in-inline-parens-then-units", "5", "The diagonal is \\(\\boxed{5}\\) units.", 1.0),
    _case(
        "bold-final-answer-after-intermediate-box",
        "4",
        "The total is $\\boxed{12}$ apples. Split among three friends, each gets $12 / 3 = 4$ apples.\n\n"
        "**Final answer: 4**",
        1.0,
    ),
    _case(
        "bold-value-after-intermediate-box",
        "4",
        "The total is $\\boxed{12}$ apples. Split among three friends, each gets $12 / 3 = 4$ apples.\n\n"
        "So the answer is **4**.",
        1.0,
    ),
    _case(
        "intermediate-box-then-so",  # "so" derives the next box from this one: an intermediate result
        "4",
        "The total is $\\boxed{12}$, so each friend gets $\\boxed{4}$.",
        1.0,
    ),
    _case(  # a label after "so" introduces the next part of a multi-part answer, not a derived value
        "two-part-answer-joined-by-so",
        "2, 3",
        "Thus $a = \\boxed{2}$, so $b = \\boxed{3}$.",
        1.0,
    ),
    _case("two-part-answer-is-no-single-value", "3", "Thus $a = \\boxed{2}$, so $b = \\boxed{3}$.", 0.0),
]

# must score 0.0 under the default rule and under the strict one
ADVERSARIAL = [
    _case("every-option-boxed", "B", "\\boxed{A}\\boxed{B}\\boxed{C}", 0.0),
    _case("every-option-boxed-with-commas", "B", "The answer: $\\boxed{A}$, $\\boxed{B}$, $\\boxed{C}$", 0.0),
    _case("phrase-or", "4", "the answer is 3 or 4", 0.0),
    _case("letters-or", "B", "The answer is B or C.", 0.0),
    _case("box-of-several-values", "4", "\\boxed{3, 4, 5}", 0.0),
    _case("box-of-two-letters", "B", "\\boxed{B, C}", 0.0),
    _case(
        "think-then-two-boxes", "5", "<think>\nthe diagonal is 5\n</think>\n\n\\boxed{3}\n\n\\boxed{5}", 0.0
    ),
    _case(
        "think-then-two-boxes-with-and",
        "5",
        "<think>\nSo the answer is $\\boxed{5}$.\n</think>\n\nThe answer is $\\boxed{3}$ and $\\boxed{5}$.",
        0.0,
    ),
    _case(
        "gold-only-inside-thinking",
        "5",
        "<think>\nSo the diagonal is $\\boxed{5}$. Hmm, but maybe the question wants the perimeter.\n</think>\n\n"
        "The perimeter is $2(3 + 4) = \\boxed{14}$.",
        0.0,
    ),
    _case(
        "gold-inside-thinking-wrong-box-right-after", "5", "<think>\nd = \\boxed{5}\n</think>\\boxed{14}", 0.0
    ),
    _case("gold-inside-thinking-no-answer", "5", "<think>\n$\\boxed{5}$\n</think>\n\nNot sure.", 0.0),
    _case("fifty-boxes", "4", "".join(f"\\boxed{{{k}}}" for k in range(50)), 0.0),
    _case(
        "fifty-boxes-after-thinking",
        "4",
        "<think>\nsome thoughts\n</think>\n\n" + " then ".join(f"$\\boxed{{{k}}}$" for k in range(50)),
        0.0,
    ),
    _case("placeholder-word-box", "4", "\\boxed{\\text{answer}}", 0.0),
    _case(
        "two-answer-tags-after-reasoning",
        "5",
        "<reasoning>\nd = \\boxed{5}\n</reasoning>\n<answer>3</answer><answer>5</answer>",
        0.0,
    ),
    _case("answer-tag-sentence-with-or", "5", "<answer>The answer is 3 or 5</answer>", 0.0),
    _case("boxed-tag-then-another-tag", "4", "<answer>\\boxed{3}</answer> <answer>4</answer>", 0.0),
    _case(
        "two-boxes-in-a-tag-after-reasoning",
        "4",
        "<reasoning>x</reasoning>\\boxed{2}<answer>\\boxed{3}\\boxed{4}</answer>",
        0.0,
    ),
    _case("answer-tag-negated", "5", "<answer>It is not 5</answer>", 0.0),
    _case("hedge-with-maybe-then-so", "4", "It could be $\\boxed{3}$, so maybe $\\boxed{4}$.", 0.0),
    _case("box-then-different-phrase", "4", "The answer is $\\boxed{4}$.\n\nThe answer is 3.", 0.0),
]


@pytest.mark.parametrize(("gold", "response", "reward"), REASONING + FAMILIES + DECORATED + ADVERSARIAL)
def test_final_answer_on_model_output_formats(gold, response, reward):
    score = _score(gold, response)
    assert score.status is Status.OK
    assert score.value == reward, score.info


@pytest.mark.parametrize(("gold", "response", "reward"), ADVERSARIAL)
def test_adversarial_formats_score_zero_under_the_strict_rule(gold, response, reward):
    assert _score(gold, response, multiple_answers="wrong").value == 0.0


PROMPT = "Find the number of divisors of 12. Put your final answer as \\boxed{n}."


@pytest.mark.parametrize(
    ("response", "reward"),
    [
        ("\\boxed{n}", 0.0),  # the template copied back is no answer
        ("So $n = 6$. \\boxed{n}", 0.0),
        ("The divisors are 1, 2, 3, 4, 6, 12. Format: \\boxed{n}, so \\boxed{6}", 1.0),
        ("\\boxed{6}", 1.0),
    ],
)
def test_a_box_copied_from_the_prompt_template_is_no_answer(response, reward):
    assert _score("6", response, prompt=PROMPT).value == reward
    assert _score("6", response, prompt=[{"role": "user", "content": PROMPT}]).value == reward


def test_thinking_is_never_graded_under_any_rule():
    response = "<think>\n$\\boxed{5}$\n</think>\n\nThe perimeter is $\\boxed{14}$."
    for rule in ("final", "wrong", "last"):
        assert _score("5", response, multiple_answers=rule).value == 0.0
        assert _score("14", response, multiple_answers=rule).value == 1.0
    assert _score("5", "<think>\n$\\boxed{5}$", multiple_answers="last").value == 0.0


def test_extraction_reports_what_it_set_aside():
    found = extract_answers(THINK + "So $\\boxed{5}$.")
    assert found.answers == ("5",) and found.thinking
    unfinished = extract_answers("<think>\nso \\boxed{5} and then")
    assert unfinished.answers == () and unfinished.method == "none" and unfinished.thinking
    plain = extract_answers("so \\boxed{5}")
    assert plain.answers == ("5",) and not plain.thinking
    score = _score("5", "<think>\nso \\boxed{5} and then")
    assert score.info["stage"] == "no_answer" and "thinking" in score.info["reason"]


def test_thinking_and_answer_tags_in_adversarial_numbers_stay_linear():
    # thousands of tags: each is found by one scan from the end, never by pairing tags
    response = (
        "<think>\\boxed{1}</think>" * 5000 + "\\boxed{4}" + "<think>" * 3 + "</think>" * 3 + "\\boxed{4}"
    )
    # (a thinking block reopened after an answer takes it back: no answer, and found in linear time)
    assert _score("4", response).value == 0.0
    assert _score("4", "<think>\\boxed{1}</think>" * 5000 + "\\boxed{4}").value == 1.0
    # thousands of unclosed answer tags: one forward pass (a lazy regex would rescan to the end per tag)
    assert _score("4", "\\boxed{4}" + "<answer>" * 10000).value == 1.0
    assert extract_answers("<answer>" * 10000 + "</answer>").answers == ("<answer>" * 9999,)


# the rows of the final-answer table in docs/math-verifier.md added with these formats: (gold, response,
# reward under "final", "wrong", "last")
RULE_TABLE = [
    ("4", "The total is $\\boxed{12}$, so each friend gets $\\boxed{4}$.", (1.0, 0.0, 1.0)),
    ("4", "It could be $\\boxed{3}$, so maybe $\\boxed{4}$.", (0.0, 0.0, 1.0)),
    ("5", THINK_MANY + "By the Pythagorean theorem the diagonal is $\\boxed{5}$.", (1.0, 1.0, 1.0)),
    ("5", "<think>\nSo $\\boxed{5}$.\n</think>\n\nThe perimeter is $\\boxed{14}$.", (0.0, 0.0, 0.0)),
    ("5", "<think>\nso $d = \\boxed{5}$. Let me double-check by", (0.0, 0.0, 0.0)),
]


@pytest.mark.parametrize(("gold", "response", "rewards"), RULE_TABLE)
def test_the_documented_table_under_each_rule(gold, response, rewards):
    got = tuple(_score(gold, response, multiple_answers=rule).value for rule in ("final", "wrong", "last"))
    assert got == rewards
