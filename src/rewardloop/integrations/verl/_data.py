"""Reading verl batches (``DataProto`` or :class:`~rewardloop.managers.RolloutBatch`) into samples, and
writing rewards back as verl expects them (token-level tensor, extra-info columns).

Duck-typed: any object with ``.batch`` (tensors: ``responses (b, R)``, ``attention_mask (b, P + R)``, optional
``response_mask (b, R)``, optional ``rm_scores``), ``.non_tensor_batch`` (object arrays: ``data_source``,
``reward_model``, ``extra_info``, ``__num_turns__``, ``reward_scores``, ``tool_extra_fields``, ``raw_prompt``,
``uid``) and ``.meta_info`` works. A malformed row becomes an ``invalid_input`` score naming the field; the
other rows are scored.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ...managers import response_lengths
from ...scorers import Scorer
from ...types import Sample, Score, ScoreBatch, Status

__all__ = [
    "BASE_EXTRA_KEYS",
    "ExtraInfoSchema",
    "ReadBatch",
    "extra_info_columns",
    "has_rm_scores",
    "read_batch",
    "reward_tensor",
    "rewards_of",
    "scorer_metric_types",
]

logger = logging.getLogger(__name__)

#: non-tensor keys whose values verl adds to ``extra_info`` before calling the scorer
_EXTRAS = (("__num_turns__", "num_turns"), ("reward_scores", "rollout_reward_scores"))


@dataclass
class ReadBatch:
    """Samples of a batch in row order; ``failures`` holds rows that could not be read (by row index)."""

    samples: list[Sample]
    lengths: list[int]
    failures: dict[int, Score] = field(default_factory=dict)


def _tensor(data: Any, key: str) -> Any:
    batch = getattr(data, "batch", None)
    if batch is None:
        return None
    # TensorDict refuses ``key in td``; both it and dict support ``.keys()``
    return batch[key] if key in batch.keys() else None  # noqa: SIM118


def has_rm_scores(data: Any) -> bool:
    """True when the batch already carries ``rm_scores`` (then it is the reward: verl's short-circuit)."""
    return _tensor(data, "rm_scores") is not None


def read_batch(
    data: Any,
    tokenizer: Any,
    *,
    reward_fn_key: str = "data_source",
    strip_eos: bool = False,
) -> ReadBatch:
    """Decode every response in one batched call and build one :class:`Sample` per row.

    The response text is ``responses[i, :length_i]`` decoded with ``skip_special_tokens=True``, where
    ``length_i`` counts the response part of ``attention_mask`` (verl's rule; in multi-turn rollouts it
    includes tool observations, as in verl). ``extra_info`` is copied, never mutated, and gets verl's extras.
    """
    responses = _tensor(data, "responses")
    mask = _tensor(data, "attention_mask")
    if responses is None or mask is None:
        raise KeyError("the batch needs tensors 'responses' (b, R) and 'attention_mask' (b, P + R)")
    width = responses.shape[-1]
    lengths_t = _lengths(data, mask, width)
    lengths = lengths_t.tolist()
    texts = _decode_valid(tokenizer, responses, lengths_t, lengths)
    eos = getattr(tokenizer, "eos_token", None) if strip_eos else None
    samples, failures = [], {}
    columns = _Columns(data.non_tensor_batch, reward_fn_key)
    for i, text in enumerate(texts):
        if eos and text.endswith(eos):
            text = text[: -len(eos)]
        try:
            samples.append(columns.sample(i, text))
        except (KeyError, TypeError) as exc:
            samples.append(Sample(response=text, ground_truth=None, task=None))
            failures[i] = Score.failure(Status.INVALID_INPUT, f"row {i}: {exc.args[0] if exc.args else exc}")
    return ReadBatch(samples, [int(n) for n in lengths], failures)


def _lengths(data: Any, mask: Any, width: int) -> Any:
    """Each row's response length: verl's ``attention_mask`` rule, or the exact ``response_len`` column.

    verl's agent loop sends a multi-output trajectory as rows right-padded with ``pad_sequence``: there the
    mask's last ``R`` columns mix prompt and padding whenever prompts differ in length, so it also sends
    ``response_len`` (the true length of each output), which wins when present.
    """
    lengths_t = response_lengths(mask, width)
    column = getattr(data, "non_tensor_batch", {}).get("response_len")
    if column is None or len(column) != len(lengths_t):
        return lengths_t
    import torch

    try:
        exact = torch.as_tensor([int(n) for n in column], device=lengths_t.device)
    except (TypeError, ValueError):
        return lengths_t
    return exact.clamp(min=0, max=width).to(lengths_t.dtype)


def _numpy_view(responses: Any) -> Any:
    """The (CPU) ids as a numpy array, or None without numpy or for a dtype numpy lacks."""
    try:
        return responses.detach().cpu().numpy()
    except (RuntimeError, TypeError, ImportError):
        return None


def _id_rows(array: Any, lengths: list[int], start: int, stop: int) -> list[list[int]]:
    """Rows ``start:stop``, each cut to its length: one small ``tolist`` per row of the numpy view, 3.5x faster
    than a boolean-mask gather plus one big ``tolist`` (``bench/managers_vs_verl.py``)."""
    return [array[i, : int(lengths[i])].tolist() for i in range(start, stop)]


def _valid_ids_torch(responses: Any, lengths_t: Any, lengths: list[int]) -> list[list[int]]:
    """Each row's first ``length`` ids, without numpy: a boolean-mask gather and one ``tolist``."""
    import torch

    width = responses.shape[-1]
    keep = torch.arange(width, device=responses.device).unsqueeze(0) < lengths_t.unsqueeze(1)
    flat = responses[keep].tolist()
    rows, start = [], 0
    for n in lengths:
        rows.append(flat[start : start + int(n)])
        start += int(n)
    return rows


_PIPELINE_ROWS = 128  # rows per decode call when list conversion and decoding overlap


def _decode_valid(tokenizer: Any, responses: Any, lengths_t: Any, lengths: list[int]) -> list[str]:
    """The valid ids of every row, decoded (:func:`decode_rows`).

    With an exact Rust decoder the work is pipelined: while the Rust ``decode_batch`` of one chunk of rows runs
    in a helper thread (it releases the GIL), this thread turns the next chunk's ids into lists, so converting
    costs almost nothing next to decoding (``bench/managers_vs_verl.py``). Texts are identical either way.
    """
    array = _numpy_view(responses)
    if array is None:
        return decode_rows(tokenizer, _valid_ids_torch(responses, lengths_t, lengths))
    backend = _exact_backend(tokenizer)
    if backend is None or len(lengths) < 2 * _PIPELINE_ROWS:
        return decode_rows(tokenizer, _id_rows(array, lengths, 0, len(lengths)))
    from concurrent.futures import ThreadPoolExecutor

    futures = []
    with ThreadPoolExecutor(1, thread_name_prefix="rewardloop-decode") as pool:
        for start in range(0, len(lengths), _PIPELINE_ROWS):
            ids = _id_rows(array, lengths, start, min(len(lengths), start + _PIPELINE_ROWS))
            futures.append(pool.submit(backend.decode_batch, ids, skip_special_tokens=True))
        return [text for future in futures for text in future.result()]


def _exact_backend(tokenizer: Any) -> Any:
    """The Rust tokenizer when its ``decode_batch`` gives exactly transformers' ``batch_decode``, else None."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    decode_impl = getattr(type(tokenizer), "_decode", None)
    exact = (
        backend is not None
        and getattr(decode_impl, "__module__", "") in _FAST_DECODE_MODULES
        and not getattr(tokenizer, "clean_up_tokenization_spaces", False)
    )
    return backend if exact else None


_FAST_DECODE_MODULES = ("transformers.tokenization_utils_fast", "transformers.tokenization_utils_tokenizers")


def decode_rows(tokenizer: Any, rows: list[list[int]]) -> list[str]:
    """``tokenizer.batch_decode(rows, skip_special_tokens=True)``, done in one Rust call when that is exact
    (a tokenizer with only ``decode``, all verl requires, is called row by row).

    For a fast tokenizer whose ``_decode`` is transformers' own and that does no space clean-up, the result is
    exactly the backend's ``decode_batch``; transformers would otherwise re-check every id in Python and
    decode row by row (most of a batch's reward time for cheap scorers).
    """
    backend = _exact_backend(tokenizer)
    if backend is not None:
        return list(backend.decode_batch(rows, skip_special_tokens=True))
    batch_decode = getattr(tokenizer, "batch_decode", None)
    if batch_decode is None:  # verl itself only calls decode(ids, skip_special_tokens=True) per row
        return [tokenizer.decode(row, skip_special_tokens=True) for row in rows]
    return list(batch_decode(rows, skip_special_tokens=True))


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    return type(value) is dict or isinstance(value, Mapping)  # the exact-type test first: abc checks are slow


class _Columns:
    """The non-tensor columns a sample is built from, looked up once per batch."""

    def __init__(self, non_tensor: Mapping[str, Any], reward_fn_key: str) -> None:
        self.keys = sorted(non_tensor)
        self.reward_fn_key = reward_fn_key
        self.sources = non_tensor.get(reward_fn_key)
        self.reward_model = non_tensor.get("reward_model")
        self.extra_info = non_tensor.get("extra_info")
        self.extras = [(name, non_tensor[key]) for key, name in _EXTRAS if non_tensor.get(key) is not None]
        self.tool_fields = non_tensor.get("tool_extra_fields")
        self.uid = non_tensor.get("uid")
        self.prompt = non_tensor.get("raw_prompt")

    def sample(self, i: int, text: str) -> Sample:
        if self.sources is None:
            raise KeyError(f"non_tensor_batch has no {self.reward_fn_key!r} column (keys: {self.keys})")
        data_source = self.sources[i]
        if not isinstance(data_source, str):
            raise TypeError(f"{self.reward_fn_key} must be a string, got {type(data_source).__name__}")
        reward_model = None if self.reward_model is None else self.reward_model[i]
        if not _is_mapping(reward_model) or "ground_truth" not in reward_model:
            raise KeyError(f"reward_model must be a dict with 'ground_truth', got {reward_model!r:.80}")
        extra = None if self.extra_info is None else self.extra_info[i]
        if extra is not None and not _is_mapping(extra):
            raise TypeError(f"extra_info must be a dict or None, got {type(extra).__name__}")
        metadata = dict(extra or {})  # our own dict: the batch's is never mutated
        for name, column in self.extras:
            if column[i] is not None:
                metadata[name] = column[i]
        tool_fields = None if self.tool_fields is None else self.tool_fields[i]
        if tool_fields is not None and _is_mapping(tool_fields):
            metadata.update(tool_fields)
        uid = None if self.uid is None else self.uid[i]
        return Sample(
            response=text,
            ground_truth=reward_model["ground_truth"],
            task=data_source,
            prompt=None if self.prompt is None else self.prompt[i],
            metadata=metadata,
            uid=None if uid is None else str(uid),
        )


#: the keys every sample of every manager carries, with their types
BASE_EXTRA_KEYS: dict[str, type] = {
    "score": float,
    "acc": float,
    "reward_status": str,
    "timeout": bool,
    "error": str,
}
_MAX_LEARNED_KEYS = 64
_MAX_ERROR_CHARS = 500


def _kind(value: Any) -> type:
    if isinstance(value, bool) or type(value).__name__ == "bool_":  # numpy bools too
        return bool
    if isinstance(value, str):
        return str
    if isinstance(value, int | float) or (hasattr(value, "__float__") and getattr(value, "ndim", 0) == 0):
        return float
    return object


class ExtraInfoSchema:
    """One manager's fixed ``reward_extra_info`` keys, each with a type (DESIGN §3, contract 5).

    verl builds its extra-info columns from the *first* sample's keys (``np.array([info[k] for info in
    infos])``), so every sample of a manager carries the same keys with type-stable values, whatever its
    scorer returned and however it failed:

    * always: ``score`` (the reward, float), ``acc`` (the scorer's ``acc`` as a float, else the reward),
      ``reward_status`` (``ok`` or the failure), ``timeout`` (bool) and ``error`` (the failure message,
      ``""`` when ok);
    * the metric keys of every scorer the manager can route to (``metric_types``), and the shaper's;
    * ``declared`` keys (``reward.extra_info_keys``, GDPO's ``algorithm.gdpo_reward_keys``);
    * in a batch call (classic ``__call__``, ``run_batch``, ``compute_rm_score``), keys a scorer returned that
      were not declared (a custom function's dict keys) are learned and carried by every row of that batch and
      of later batches (at most 64). One sample at a time (``run_single``, verl's streaming reward loop) they
      are left out with a warning: samples scored by different workers cannot agree on keys no one declared.

    A sample without a value for a key gets a filler of the key's type: numbers get ``fill_number`` (the
    failure reward, ``on_error``: GDPO and verl's metric reductions read these columns as float32, where
    NaN or None would poison them), bools ``False``, strings ``""``, anything else ``None``.
    """

    def __init__(self, declared: Mapping[str, type] | None = None, fill_number: float = 0.0) -> None:
        self.kinds: dict[str, type] = dict(BASE_EXTRA_KEYS)
        for key, kind in (declared or {}).items():
            self.kinds.setdefault(str(key), kind)
        self.fill_number = float(fill_number)
        self._warned = False
        self._told: set[str] = set()

    def _fill(self, kind: type) -> Any:
        return {float: self.fill_number, bool: False, str: ""}.get(kind)

    def _coerce(self, kind: type, value: Any) -> Any:
        if value is None:
            return self._fill(kind)
        if kind is float:
            try:
                return float(value)
            except (TypeError, ValueError):
                return self._fill(kind)
        if kind is bool:
            return bool(value) if _kind(value) in (bool, float) else False
        if kind is str:
            return value if isinstance(value, str) else str(value)
        return value

    def learn(self, metrics: Mapping[str, Any]) -> None:
        """Add the keys of ``metrics`` this schema has not seen (typed by their first non-None value)."""
        for key, value in metrics.items():
            if key in self.kinds or value is None:
                continue
            if len(self.kinds) - len(BASE_EXTRA_KEYS) >= _MAX_LEARNED_KEYS:
                if not self._warned:
                    self._warned = True
                    logger.warning(
                        "reward_extra_info: more than %d keys; %r and later new keys dropped",
                        _MAX_LEARNED_KEYS,
                        key,
                    )
                continue
            self.kinds[str(key)] = _kind(value)

    def table(
        self, batch: ScoreBatch, rewards: Sequence[float], *, learn: bool = True
    ) -> list[dict[str, Any]]:
        """Every sample's ``reward_extra_info``: every key of the schema, in schema order.

        ``learn``: keys new in this batch join the schema first, so they reach all of its rows. Without it
        (one trajectory at a time) metrics the schema does not have are left out, named in a warning once.
        """
        columns = batch.metrics
        if learn:
            for key, column in columns.items():
                if key not in self.kinds:
                    self.learn({key: next((v for v in column if v is not None), None)})
        else:
            self._warn_undeclared([k for k in columns if k not in self.kinds])
        extra = [
            (key, kind, columns.get(key), self._fill(kind))
            for key, kind in self.kinds.items()
            if key not in BASE_EXTRA_KEYS
        ]
        acc_column = columns.get("acc")
        out = []
        for i, (status, reward) in enumerate(zip(batch.statuses, rewards, strict=True)):
            ok = status is Status.OK
            reward = float(reward)
            acc = acc_column[i] if ok and acc_column is not None else None
            row: dict[str, Any] = {
                "score": reward,
                "acc": reward if acc is None else self._coerce(float, acc),
                "reward_status": status.value,
                "timeout": status is Status.TIMEOUT,
                "error": "" if ok else str(batch.infos[i].get("error") or status.value)[:_MAX_ERROR_CHARS],
            }
            for key, kind, col, fill in extra:
                value = None if col is None else col[i]
                row[key] = fill if value is None else self._coerce(kind, value)
            out.append(row)
        return out

    def row(self, score: Score, reward: float) -> dict[str, Any]:
        """One sample's ``reward_extra_info`` (declared and already learned keys only)."""
        return self.table(ScoreBatch.from_scores([score]), [reward], learn=False)[0]

    def _warn_undeclared(self, keys: list[str]) -> None:
        undeclared = [k for k in keys if k not in self._told]
        if not undeclared:
            return
        self._told.update(undeclared)
        logger.warning(
            "reward_extra_info keys %s are not declared, so they are left out of samples scored one at a "
            "time (streaming): samples would otherwise differ in keys, and verl's trainer builds its columns "
            "from the first sample's keys (KeyError). Declare them in reward.extra_info_keys "
            "(GDPO's algorithm.gdpo_reward_keys are declared automatically).",
            sorted(undeclared),
        )


def scorer_metric_types(scorer: Scorer) -> dict[str, type]:
    """The metric keys a scorer declares, with types (``metric_types``, else ``metric_keys`` as floats)."""
    declared = dict(getattr(scorer, "metric_types", None) or {})
    for key in getattr(scorer, "metric_keys", ()) or ():
        declared.setdefault(key, float)
    return declared


def extra_info_columns(
    results: Sequence[Mapping[str, Any]], rewards: Sequence[float]
) -> dict[str, list[Any]]:
    """Columns over the union of keys. Missing ``score`` / ``acc`` are filled with the sample's reward (that is
    what they mean for a scalar scorer); any other missing key is filled with None."""
    keys: dict[str, None] = {}
    for result in results:
        keys.update(dict.fromkeys(result))
    columns: dict[str, list[Any]] = {}
    for key in keys:
        if key in ("score", "acc"):
            columns[key] = [r.get(key, reward) for r, reward in zip(results, rewards, strict=True)]
        else:
            columns[key] = [r.get(key) for r in results]
    return columns


def reward_tensor(data: Any, rewards: Sequence[float], lengths: Sequence[int]) -> Any:
    """``(b, R)`` float32 rewards at each row's last generated token (``response_mask`` when present)."""
    import torch

    from ...managers import place_at_last_token

    responses = _tensor(data, "responses")
    response_mask = _tensor(data, "response_mask")
    if response_mask is not None:
        out, empty = place_at_last_token(list(rewards), response_mask=response_mask)
    else:
        lengths_t = torch.as_tensor(list(lengths), device=responses.device)
        out, empty = place_at_last_token(list(rewards), lengths=lengths_t, width=responses.shape[-1])
    n_empty = int(empty.sum())
    if n_empty:
        logger.warning(
            "%d response(s) without any generated token: reward written to the row's last column (as verl)",
            n_empty,
        )
    return out


def rewards_of(batch: ScoreBatch, on_error: float) -> list[float]:
    """The reward of each sample: its value when ok, else ``on_error`` (a number: the trainer needs one)."""
    return [float(on_error) if r is None else float(r) for r in batch.rewards(on_error)]
