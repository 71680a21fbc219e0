"""Dataset preparation: local GSM8K / MATH / MATH-500 / AIME / HumanEval / MBPP / NQ files -> verl's layout.

Every converted row has verl's RL dataset keys::

    {"data_source": str, "prompt": [{"role": "user", "content": str}], "ability": str,
     "reward_model": {"style": "rule", "ground_truth": ...}, "extra_info": {"split": str, "index": int, ...}}

``data_source`` is a name the routing table sends to the right scorer (the names verl's
``default_compute_score`` uses where verl has one; ``humaneval`` and ``mbpp`` are rewardloop's code routes).
The prompt is the instruction template with ``{question}`` replaced (a literal replacement, so LaTeX
braces such as ``\\boxed{}`` need no escaping). Each converter's default template is the one verl's (or the
benchmark's) preprocessing uses.

Input files are read from disk only (nothing is downloaded): JSON Lines (``.jsonl``/``.ndjson``), JSON (a
list of objects, or an object holding one such list), CSV (cells that hold JSON lists or objects are
decoded) and Parquet. A row missing a field the converter needs, or with an empty ground truth, raises
:class:`~rewardloop.ConfigError` naming the row, the fields it accepts and the fields the row has
(``skip_invalid=True`` / ``--skip-invalid`` drops such rows instead, with a logged count).

Limits: answers are taken as the source states them (GSM8K's ``#### n`` line, the last ``\\boxed{}`` of a
MATH solution); rows are not de-duplicated or filtered.
"""

from __future__ import annotations

import ast
import csv
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..errors import ConfigError

__all__ = [
    "DATASETS",
    "DatasetSpec",
    "convert_rows",
    "get_spec",
    "gsm8k_answer",
    "last_boxed",
    "prepare",
    "read_table",
    "write_parquet",
]

Row = Mapping[str, Any]
logger = logging.getLogger(__name__)

_GSM8K_TEMPLATE = '{question} Let\'s think step by step and output the final answer after "####".'
_MATH_TEMPLATE = "{question} Let's think step by step and output the final answer within \\boxed{}."
_AIME_TEMPLATE = (
    "Solve the following math problem step by step. The last line of your response should be of the form "
    "Answer: $Answer (without quotes) where $Answer is the answer to the problem.\n\n{question}\n\n"
    'Remember to put your answer on its own line after "Answer:".'
)
_HUMANEVAL_TEMPLATE = (
    "Complete the following Python function. Return the whole function in a ```python code block.\n\n"
    "```python\n{question}```"
)
_MBPP_TEMPLATE = (
    "You are an expert Python programmer, and here is your task: {question} "
    "Your code should pass these tests:\n\n{tests}\n\nWrite the solution in a ```python code block."
)
_NQ_TEMPLATE = (
    "Answer the given question. Think step by step, then give the final answer between <answer> and "
    "</answer>, without detailed illustrations. For example, <answer> Beijing </answer>.\n"
    "Question: {question}"
)


@dataclass(frozen=True)
class DatasetSpec:
    """How one dataset is converted: its default ``data_source``, ``ability``, template and row converter.

    ``convert(row)`` returns ``(question, ground_truth, extra_info, template_fields)``.
    """

    name: str
    data_source: str
    ability: str
    template: str
    convert: Callable[[Row], tuple[str, Any, dict[str, Any], dict[str, str]]]
    description: str


# ----------------------------------------------------------------------------------------------------
# field access


def _field(row: Row, names: Sequence[str], dataset: str) -> Any:
    for name in names:
        if name in row and row[name] is not None:
            return row[name]
    raise ConfigError(
        f"{dataset}: a row has none of the fields {list(names)} (row fields: {sorted(map(str, row))})"
    )


def _literal(value: Any) -> Any:
    """A dict/list column that an exporter stored as JSON or Python-literal text (never evaluated as code)."""
    if isinstance(value, str) and value[:1] in "[{":
        for parse in (json.loads, ast.literal_eval):
            try:
                return parse(value)
            except (ValueError, SyntaxError):
                continue
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


# ----------------------------------------------------------------------------------------------------
# answers


def gsm8k_answer(answer: str) -> str:
    """The final answer of a GSM8K solution: the text after the last ``####``, without thousands separators."""
    if "####" not in answer:
        raise ConfigError(f"gsm8k: the answer has no '#### <number>' line: {answer[-80:]!r}")
    return answer.rsplit("####", 1)[1].strip().replace(",", "")


def last_boxed(solution: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (or ``\\fbox{...}``) in ``solution``, braces balanced; None if none."""
    start = max(solution.rfind("\\boxed"), solution.rfind("\\fbox"))
    if start < 0:
        return None
    brace = solution.find("{", start)
    if brace < 0:
        rest = solution[start:].split(None, 1)  # "\boxed 5"
        return rest[1].split("$")[0].strip() if len(rest) > 1 else None
    depth = 0
    for i in range(brace, len(solution)):
        ch = solution[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return solution[brace + 1 : i]
    return None


# ----------------------------------------------------------------------------------------------------
# converters: row -> (question, ground_truth, extra_info, template fields)


def _gsm8k(row: Row) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    question = _text(_field(row, ("question", "problem"), "gsm8k"))
    answer = _text(_field(row, ("answer", "solution"), "gsm8k"))
    return question, gsm8k_answer(answer), {"question": question, "answer": answer}, {}


def _verl_row(row: Row) -> tuple[str, Any, dict[str, Any]] | None:
    """A row already in verl's layout (e.g. a verl-format parquet): its question, ground truth, extra info."""
    reward_model = _literal(row.get("reward_model"))
    if not isinstance(reward_model, Mapping) or "ground_truth" not in reward_model:
        return None
    extra = _literal(row.get("extra_info"))
    extra = dict(extra) if isinstance(extra, Mapping) else {}
    question = extra.get("question")
    if not isinstance(question, str):
        prompt = _literal(row.get("prompt"))
        users = [m for m in prompt or [] if isinstance(m, Mapping) and m.get("role") == "user"]
        question = _text(users[-1].get("content", "")) if users else ""
    return question, reward_model["ground_truth"], extra


def _math(row: Row) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    verl = _verl_row(row)
    if verl is not None:
        return (*verl, {})
    question = _text(_field(row, ("problem", "question"), "math"))
    extra: dict[str, Any] = {"question": question}
    for key in ("level", "type", "subject", "unique_id", "idx"):
        if key in row:
            extra[key] = row[key]
    if row.get("answer") is not None:
        answer = _text(row["answer"])
    else:
        solution = _text(_field(row, ("solution",), "math"))
        boxed = last_boxed(solution)
        if boxed is None:
            raise ConfigError(
                f"math: the solution has no \\boxed{{}} answer and the row no 'answer': {solution[-80:]!r}"
            )
        answer = boxed
    if "solution" in row:
        extra["solution"] = _text(row["solution"])
    return question, answer, extra, {}


def _aime(row: Row) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    question = _text(_field(row, ("problem", "question"), "aime"))
    answer = _text(_field(row, ("answer",), "aime")).strip()
    extra: dict[str, Any] = {"question": question}
    for key in ("id", "competition", "problem_idx", "url", "year"):
        if key in row:
            extra[key] = row[key]
    return question, answer, extra, {}


def _humaneval(row: Row) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    prompt = _text(_field(row, ("prompt",), "humaneval"))
    tests = {
        "test": _text(_field(row, ("test",), "humaneval")),
        "entry_point": _text(_field(row, ("entry_point",), "humaneval")),
        "prompt": prompt,
    }
    extra: dict[str, Any] = {"task_id": _text(row.get("task_id", "")), "question": prompt}
    if row.get("canonical_solution"):
        extra["reference_solution"] = prompt + _text(row["canonical_solution"])
    return prompt, json.dumps(tests), extra, {}


def _mbpp(row: Row) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    text = _text(_field(row, ("text", "prompt", "question"), "mbpp"))
    test_list = _literal(_field(row, ("test_list",), "mbpp"))
    if not isinstance(test_list, list) or not all(isinstance(t, str) for t in test_list):
        raise ConfigError(f"mbpp: 'test_list' must be a list of assert strings, got {test_list!r:.80}")
    tests = {"test_list": test_list, "test_setup_code": _text(row.get("test_setup_code") or "")}
    extra: dict[str, Any] = {"task_id": _text(row.get("task_id", "")), "question": text}
    if row.get("code"):
        extra["reference_solution"] = _text(row["code"])
    return text, json.dumps(tests), extra, {"tests": "\n".join(test_list)}


def _nq(row: Row) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    question = _text(_field(row, ("question",), "nq")).strip()
    answers = _literal(_field(row, ("golden_answers", "answer", "answers"), "nq"))
    if isinstance(answers, str):
        answers = [answers]
    if not isinstance(answers, list) or not answers:
        raise ConfigError(f"nq: the gold answers must be a non-empty list of strings, got {answers!r:.80}")
    extra: dict[str, Any] = {"question": question}
    if "id" in row:
        extra["id"] = _text(row["id"])
    return question, {"target": [_text(a) for a in answers]}, extra, {}


DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        DatasetSpec(
            "gsm8k", "openai/gsm8k", "math", _GSM8K_TEMPLATE, _gsm8k, "fields question, answer ('... #### n')"
        ),
        DatasetSpec(
            "math",
            "DigitalLearningGmbH/MATH-lighteval",
            "math",
            _MATH_TEMPLATE,
            _math,
            "fields problem, solution (answer = last \\boxed{}) or answer; or rows in verl's layout",
        ),
        DatasetSpec(
            "math500",
            "HuggingFaceH4/MATH-500",
            "math",
            _MATH_TEMPLATE,
            _math,
            "fields problem, answer (MATH-500)",
        ),
        DatasetSpec("aime", "aime", "math", _AIME_TEMPLATE, _aime, "fields problem or question, answer"),
        DatasetSpec(
            "humaneval",
            "humaneval",
            "code",
            _HUMANEVAL_TEMPLATE,
            _humaneval,
            "fields task_id, prompt, test, entry_point",
        ),
        DatasetSpec(
            "mbpp", "mbpp", "code", _MBPP_TEMPLATE, _mbpp, "fields text, test_list[, test_setup_code, code]"
        ),
        DatasetSpec(
            "nq",
            "searchR1_nq",
            "fact-reasoning",
            _NQ_TEMPLATE,
            _nq,
            "fields question, answer or golden_answers",
        ),
    )
}


def get_spec(dataset: str) -> DatasetSpec:
    spec = DATASETS.get(dataset)
    if spec is None:
        raise ConfigError(f"unknown dataset {dataset!r}; allowed: {', '.join(DATASETS)}")
    return spec


# ----------------------------------------------------------------------------------------------------
# reading and writing

READ_FORMATS = ("jsonl", "json", "csv", "parquet")


def read_table(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Rows of a local JSONL, JSON, CSV or Parquet file (by extension)."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"input file not found: {str(p)!r}")
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return _read_jsonl(p)
    if suffix == ".json":
        return _read_json(p)
    if suffix == ".csv":
        with open(p, encoding="utf-8", newline="") as fh:
            return [{k: _literal(v) for k, v in row.items()} for row in csv.DictReader(fh)]
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        return cast("list[dict[str, Any]]", pq.read_table(p).to_pylist())
    raise ConfigError(
        f"cannot read {str(p)!r}: unknown extension {suffix!r}; allowed: {', '.join(READ_FORMATS)}"
    )


def _read_jsonl(p: Path) -> list[dict[str, Any]]:
    rows = []
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{p.name}:{lineno}: invalid JSON: {exc}") from None
            if not isinstance(row, dict):
                raise ConfigError(f"{p.name}:{lineno}: expected a JSON object, got {type(row).__name__}")
            rows.append(row)
    return rows


def _read_json(p: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return _read_jsonl(p)  # JSON Lines saved as .json
    if isinstance(data, dict):
        lists = [
            v for v in data.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
        ]
        if len(lists) != 1:
            raise ConfigError(
                f"{p.name}: expected a list of objects, or an object holding exactly one such list"
            )
        data = lists[0]
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise ConfigError(f"{p.name}: expected a list of objects")
    return data


def write_parquet(path: str | os.PathLike[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """Write rows as Parquet (nested dicts and lists become structs and lists, as verl's loaders expect)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([dict(r) for r in rows]), path)


# ----------------------------------------------------------------------------------------------------
# the conversion


def _render(template: str, question: str, fields: Mapping[str, str]) -> str:
    text = template
    for key, value in fields.items():
        text = text.replace("{" + key + "}", value)
    return text.replace("{question}", question)


def convert_rows(
    dataset: str,
    rows: Iterable[Row],
    *,
    split: str = "train",
    template: str | None = None,
    data_source: str | None = None,
    system_prompt: str | None = None,
    skip_invalid: bool = False,
) -> list[dict[str, Any]]:
    """Convert source rows of ``dataset`` to verl's layout (see the module docstring).

    A row that cannot be converted (a missing field, an empty ground truth) raises
    :class:`~rewardloop.ConfigError` naming it; with ``skip_invalid`` it is left out and logged instead.
    ``extra_info.index`` counts the rows written; ``extra_info.source_index`` is the row's position in the input.
    """
    spec = get_spec(dataset)
    template = spec.template if template is None else template
    if "{question}" not in template:
        raise ConfigError("the template must contain {question}, where the problem text goes")
    out: list[dict[str, Any]] = []
    skipped: list[str] = []
    for position, row in enumerate(rows):
        try:
            question, ground_truth, extra, fields = _convert_one(spec, row, position)
        except ConfigError as exc:
            if not skip_invalid:
                raise
            skipped.append(str(exc))
            continue
        messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
        messages.append({"role": "user", "content": _render(template, question, fields)})
        out.append(
            {
                "data_source": data_source or spec.data_source,
                "prompt": messages,
                "ability": spec.ability,
                "reward_model": {"style": "rule", "ground_truth": ground_truth},
                "extra_info": {**extra, "split": split, "index": len(out), "source_index": position},
            }
        )
    if skipped:
        logger.warning("%s: skipped %d invalid rows; first: %s", dataset, len(skipped), skipped[0])
    return out


def _convert_one(
    spec: DatasetSpec, row: Any, position: int
) -> tuple[str, Any, dict[str, Any], dict[str, str]]:
    if not isinstance(row, Mapping):
        raise ConfigError(f"{spec.name}: row {position} is a {type(row).__name__}, not an object")
    try:
        question, ground_truth, extra, fields = spec.convert(row)
    except ConfigError as exc:
        raise ConfigError(f"row {position}: {exc}") from None
    if ground_truth is None or (isinstance(ground_truth, str) and not ground_truth.strip()):
        raise ConfigError(
            f"row {position}: {spec.name}: empty ground truth {ground_truth!r} (pass --skip-invalid to drop such rows)"
        )
    return question, ground_truth, extra, fields


def prepare(
    dataset: str,
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    *,
    split: str = "train",
    template: str | None = None,
    data_source: str | None = None,
    system_prompt: str | None = None,
    limit: int | None = None,
    skip_invalid: bool = False,
) -> int:
    """Read ``input_path``, convert it, write ``output_path`` (Parquet, or JSONL by extension); returns rows written."""
    get_spec(dataset)  # fail on a bad name or output before reading anything
    suffix = Path(output_path).suffix.lower()
    if suffix not in (".parquet", ".pq", ".jsonl", ".json"):
        raise ConfigError(f"output must end in .parquet or .jsonl, got {str(output_path)!r}")
    rows = read_table(input_path)
    if limit is not None:
        rows = rows[:limit]
    converted = convert_rows(
        dataset,
        rows,
        split=split,
        template=template,
        data_source=data_source,
        system_prompt=system_prompt,
        skip_invalid=skip_invalid,
    )
    if suffix in (".parquet", ".pq"):
        write_parquet(output_path, converted)
    else:
        from .._io import write_rows

        write_rows(output_path, converted)
    return len(converted)
