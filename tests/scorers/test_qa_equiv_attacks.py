"""qa_equiv anti-hacking: every response here is built to collect a reward it has not earned. Written before the
defence: each must score 0.0 (or at most the tag-spam share) and name the rule that refused it."""

from __future__ import annotations

import pytest

from rewardloop.scorers.qa_equiv import QAEquivScorer
from rewardloop.types import Sample

SCORER = QAEquivScorer()


def score(response, gold, question=None):
    metadata = {"question": question} if question is not None else {}
    return SCORER.score(Sample(response=response, ground_truth=gold, metadata=metadata))


# (response, gold, question, rule that must refuse it)
ATTACKS = [
    # answer lists: the gold among other candidates
    ("<answer>Paris, London, Rome</answer>", "Paris", None, "hedge_list"),
    ("<answer>Paris and London</answer>", "Paris", None, "hedge_list"),
    ("<answer>Paris; Lyon</answer>", "Paris", None, "hedge_list"),
    ("<answer>1. Paris\n2. Lyon\n3. Nice</answer>", "Paris", None, "hedge_list"),
    ("<answer>- Paris\n- Lyon</answer>", "Paris", None, "hedge_list"),
    ("<answer>Paris & London</answer>", "Paris", None, "hedge_list"),
    ("<answer>Charles Darwin, Alfred Wallace</answer>", "Charles Darwin", None, "hedge_list"),
    # "X or Y" and its relatives
    ("<answer>Paris or London</answer>", "Paris", None, "hedge_or"),
    ("<answer>either Paris or Lyon</answer>", "Paris", None, "hedge_or"),
    ("<answer>Paris/London</answer>", "Paris", None, "hedge_or"),
    ("<answer>Paris | London</answer>", "Paris", None, "hedge_or"),
    ("<answer>1945 or 1946</answer>", "1945", None, "hedge_or"),
    ("<answer>London, or maybe Paris</answer>", "Paris", None, "hedge_or"),
    ("<answer>Paris (or possibly Lyon)</answer>", "Paris", None, "hedge_or"),
    ("<answer>Paris vs London</answer>", "Paris", None, "hedge_or"),
    # several numbers or dates where one is asked for
    ("<answer>1945-1950</answer>", "1945", None, "competing_number"),
    ("<answer>between 1945 and 1950</answer>", "1945", None, "hedge_list"),
    ("<answer>in 1945, 1946 and 1947</answer>", "1945", None, "hedge_list"),
    ("<answer>It was signed in 1945 and ratified in 1952.</answer>", "1945", None, "competing_number"),
    ("<answer>six or seven</answer>", "6", None, "hedge_or"),
    # the gold negated
    ("<answer>not Paris</answer>", "Paris", None, "negated"),
    ("<answer>It is Lyon, not Paris.</answer>", "Paris", None, "negated"),
    ("<answer>Lyon rather than Paris</answer>", "Paris", None, "negated"),
    ("<answer>Lyon instead of Paris</answer>", "Paris", None, "negated"),
    # copying the question when the question contains the gold
    (
        "<answer>Which is larger, Jupiter or Saturn?</answer>",
        "Jupiter",
        "Which is larger, Jupiter or Saturn?",
        "question",  # refused before matching: an answer that ends in "?" asks
    ),
    (
        "<answer>Which is larger, Jupiter</answer>",
        "Jupiter",
        "Which is larger, Jupiter or Saturn?",
        "gold_in_question",
    ),
    (
        "Did Lincoln or Grant win? Lincoln or Grant",
        "Lincoln",
        "Did Lincoln or Grant win?",
        "gold_in_question",
    ),
    # very long answers that contain the gold somewhere
    ("<answer>" + "word " * 300 + "Paris</answer>", "Paris", None, "too_long"),
    ("<answer>" + "Paris " * 400 + "</answer>", "Paris", None, "too_long"),
    ("<answer>" + ", ".join(f"city{i}" for i in range(200)) + ", Paris</answer>", "Paris", None, "too_long"),
    # empty answers
    ("<answer></answer>", "Paris", None, "empty"),
    ("<answer>   \n </answer>", "Paris", None, "empty"),
    ("<answer>...</answer>", "Paris", None, "empty"),
    ("", "Paris", None, "empty"),
    # a gold that normalises to nothing never matches anything
    ("<answer>the</answer>", "The", None, "empty_gold"),
    ("<answer>anything at all</answer>", "a", None, "empty_gold"),
    # the gold hidden where extraction must not look: the last <answer> block decides
    ("<answer>Paris</answer> on second thought <answer>London</answer>", "Paris", None, "multiple_answers"),
    # a function-word gold inside an unrelated sentence
    ("<answer>one of the largest cities in the world</answer>", "one", None, "generic_gold"),
    ("<answer>turn to the left at the second right turn</answer>", "right", None, "generic_gold"),
    # yes and no at once
    ("<answer>yes and no</answer>", "yes", None, "hedge_list"),
    ("<answer>yes or no</answer>", "no", None, "hedge_or"),
]


@pytest.mark.parametrize("response,gold,question,rule", ATTACKS)
def test_attack_scores_zero(response, gold, question, rule):
    result = score(response, gold, question)
    assert result.ok
    assert result.value == 0.0, result.info
    assert result.info["rule"] == rule, result.info


def test_tag_spam_cannot_pay_more_than_a_quarter():
    # verl's Search-R1 rule: more than 10 <answer> tags divide a correct answer's reward by 4
    assert score("<answer>Paris</answer>" * 12, "Paris").value == 0.25
    loose = QAEquivScorer(strict_tags=False)
    spam = "<answer>x</answer>" * 11 + "<answer>Paris</answer>"
    result = loose.score(Sample(response=spam, ground_truth="Paris"))
    assert result.value == 0.25 and result.info["tag_spam"] is True
    assert score(spam, "Paris").value == 0.0  # strict tags: several different answers
    wrong = "<answer>Paris</answer>" * 11 + "<answer>London</answer>"
    assert loose.score(Sample(response=wrong, ground_truth="Paris")).value == 0.0


def test_tag_spam_penalty_is_configurable():
    strict = QAEquivScorer(spam_factor=0.0)
    assert strict.score(Sample(response="<answer>Paris</answer>" * 12, ground_truth="Paris")).value == 0.0


def test_controls_for_the_attacks_still_pay():
    """The defences must not refuse the honest versions of the same answers."""
    assert score("<answer>Paris</answer>", "Paris").value == 1.0
    assert score("<answer>Paris, France</answer>", "Paris").value == 1.0
    assert score("<answer>Bobby Scott and Bob Russell</answer>", ["Bobby Scott", "Bob Russell"]).value == 1.0
    assert score("<answer>in 1945</answer>", "1945").value == 1.0
    assert score("<answer>Jupiter</answer>", "Jupiter", "Which is larger, Jupiter or Saturn?").value == 1.0
    assert score("<answer>not Paris</answer>", "not Paris").value == 1.0
    assert score("<answer>Chile and Argentina</answer>", "Chile and Argentina").value == 1.0
    assert score("<answer>Argentina and Chile</answer>", "Chile and Argentina").value == 1.0
    assert score("<answer>yes</answer>", "yes").value == 1.0
    assert score("<answer>the right</answer>", "right").value == 1.0


# -- tag-level hacks that verl's Search-R1 route admits (docs/verl-routes-hacks.md) ----------------------------

TAG_HACKS = [
    ("<answer>London</answer> <answer>Paris</answer>", "multiple_answers"),
    ("<answer>Lyon</answer><answer>Nice</answer><answer>Paris</answer>", "multiple_answers"),
    ("<answer>Paris</answer> Actually no, it is London.", "text_after_answer"),
    ("<answer>Paris</answer>\nWait, that is wrong: Lyon.", "text_after_answer"),
    ("<think><answer>Paris</answer></think>", "answer_in_think"),
    ("<think>maybe <answer>Paris</answer> or not", "answer_in_think"),
]


@pytest.mark.parametrize("response,rule", TAG_HACKS)
def test_tag_hacks_score_zero(response, rule):
    result = score(response, "Paris")
    assert result.value == 0.0, result.info
    assert result.info["rule"] == rule


@pytest.mark.parametrize("response,_rule", TAG_HACKS)
def test_strict_tags_off_is_search_r1s_extraction(response, _rule):
    # the last block decides, as in search_r1_qa: every one of these then pays
    loose = QAEquivScorer(strict_tags=False)
    assert loose.score(Sample(response=response, ground_truth="Paris")).value == 1.0


def test_honest_tag_variants_still_pay():
    for response in [
        "<answer>Paris</answer>",
        "<answer>Paris</answer><|im_end|>",
        "<answer>Paris</answer>\n\n</s>",
        "<think>it is the capital</think>\n<answer>Paris</answer>",
        "<answer>Paris</answer> <answer>paris</answer>",  # the same answer twice
    ]:
        assert score(response, "Paris").value == 1.0, response


def test_a_full_search_r1_trajectory_with_the_prompts_example_block_pays():
    prompt = (
        "<|im_start|>user\nAnswer the given question... provide the answer inside <answer> and </answer>, "
        "without detailed illustrations. For example, <answer> Beijing </answer>. Question: capital of France?"
        "<|im_end|>\n<|im_start|>assistant\n"
    )
    trajectory = prompt + "<think>I know this.</think>\n<answer> Paris </answer><|im_end|>"
    assert score(trajectory, "Paris").value == 1.0
    # without the chat markers, the example block is recognised from the prompt itself
    bare = "<answer> Beijing </answer> ... <answer> Paris </answer>"
    with_prompt = SCORER.score(Sample(response=bare, ground_truth="Paris", prompt=prompt))
    assert with_prompt.value == 1.0
