import itertools
import json

import pytest

_index = itertools.count()


def row(gt, response, source="my_math", **extra):
    return {
        "data_source": source,
        "reward_model": {"style": "rule", "ground_truth": gt},
        "extra_info": {"index": next(_index), "level": extra.pop("level", "1")},
        "response": response,
        **extra,
    }


# (ground truth, response, human label): all settled by math_equiv.quick (no worker process needed)
ROWS = [
    row("1000", "The answer is \\boxed{1,000}.", label=True),
    row("\\frac{1}{2}", "\\boxed{0.5}", label=True, level="2"),
    row("(1,2)", "\\boxed{(2,1)}", label=False),
    row("3", "\\boxed{3}", label=True),
    row("3", "\\boxed{2} or \\boxed{3}", label=False, level="2"),
    row("7", "\\boxed{8}", label=False),
    row("13", "\\boxed{\\text{13}}", label=True),
    row("5", "no answer at all", label=False, level="3"),
]


@pytest.fixture
def rollouts(tmp_path):
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path
