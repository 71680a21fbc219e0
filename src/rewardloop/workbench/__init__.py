"""The reward-function workbench: prepare datasets in verl's layout and check a dataset + reward function.

* :func:`prepare` / :func:`convert_rows` -- local GSM8K, MATH, MATH-500, AIME, HumanEval, MBPP and NQ files
  (JSONL, JSON, CSV, Parquet) to verl's parquet layout with configurable instruction templates.
* :func:`check_dataset` -- the reward-function checklist (routing, ground-truth location, reference answer,
  stable penalties, return shape, determinism, speed) as a report; ``rewardloop check`` prints it.

Nothing here is imported by ``import rewardloop``; names resolve on first attribute access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "DATASETS",
    "CheckReport",
    "CheckResult",
    "DatasetSpec",
    "check_dataset",
    "convert_rows",
    "get_spec",
    "prepare",
    "read_table",
    "reference_responses",
]

_LAZY = {
    "DATASETS": "._prepare",
    "DatasetSpec": "._prepare",
    "convert_rows": "._prepare",
    "prepare": "._prepare",
    "get_spec": "._prepare",
    "read_table": "._prepare",
    "CheckReport": "._check",
    "CheckResult": "._check",
    "check_dataset": "._check",
    "reference_responses": "._check",
}

if TYPE_CHECKING:
    from ._check import CheckReport, CheckResult, check_dataset, reference_responses
    from ._prepare import DATASETS, DatasetSpec, convert_rows, get_spec, prepare, read_table


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rewardloop.workbench' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
