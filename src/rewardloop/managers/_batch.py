"""``RolloutBatch``: a small batch container for users without verl, shaped like verl's ``DataProto``.

Three fields, as in ``DataProto``: ``batch`` (a dict of torch tensors sharing the first dimension),
``non_tensor_batch`` (a dict of 1-D numpy object arrays of the same length) and ``meta_info`` (a free dict).
The reward managers read any object with those three attributes, so a real ``DataProto`` works unchanged.

Operations: ``len``, ``batch[i]`` (a :class:`RolloutItem` view), slices, index lists / arrays / boolean masks,
:meth:`~RolloutBatch.select`, :meth:`~RolloutBatch.chunk` (uneven sizes allowed: no padding needed),
:meth:`~RolloutBatch.concat`, :meth:`~RolloutBatch.repeat`. Unlike ``DataProto.repeat``, repeating deep-copies
mutable non-tensor elements (``extra_info`` dicts), so the samples of one prompt group never share state.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RolloutBatch", "RolloutItem"]


def _np() -> Any:
    import numpy as np

    return np


def _object_array(values: Any) -> Any:
    """A 1-D object array; ``np.array`` would collapse a list of equal-length lists into 2-D."""
    np = _np()
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim == 1:
        return values
    values = list(values)
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


@dataclass
class RolloutItem:
    """One row: ``batch`` maps names to that row's tensors, ``non_tensor_batch`` to its elements."""

    batch: dict[str, Any]
    non_tensor_batch: dict[str, Any]
    meta_info: dict[str, Any]


@dataclass
class RolloutBatch:
    """Tensors, per-row objects and metadata of a batch of rollouts (see the module docstring)."""

    batch: dict[str, Any] = field(default_factory=dict)
    non_tensor_batch: dict[str, Any] = field(default_factory=dict)
    meta_info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.batch = dict(self.batch)
        self.non_tensor_batch = {k: _object_array(v) for k, v in self.non_tensor_batch.items()}
        self.meta_info = dict(self.meta_info)
        sizes = {f"batch[{k!r}]": int(v.shape[0]) for k, v in self.batch.items()}
        sizes.update({f"non_tensor_batch[{k!r}]": len(v) for k, v in self.non_tensor_batch.items()})
        if len(set(sizes.values())) > 1:
            raise ValueError(f"every field must have the same first dimension, got {sizes}")

    @classmethod
    def from_dict(
        cls,
        tensors: Mapping[str, Any] | None = None,
        non_tensors: Mapping[str, Sequence[Any]] | None = None,
        meta_info: Mapping[str, Any] | None = None,
    ) -> RolloutBatch:
        """Build from plain mappings (lists become object arrays)."""
        return cls(dict(tensors or {}), dict(non_tensors or {}), dict(meta_info or {}))

    def __len__(self) -> int:
        for value in self.batch.values():
            return int(value.shape[0])
        for value in self.non_tensor_batch.values():
            return len(value)
        return 0

    def __iter__(self) -> Iterator[RolloutItem]:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index: Any) -> Any:
        np = _np()
        if isinstance(index, int | np.integer):
            i = int(index)
            if not -len(self) <= i < len(self):
                raise IndexError(f"row {i} out of range for a batch of {len(self)}")
            return RolloutItem(
                {k: v[i] for k, v in self.batch.items()},
                {k: v[i] for k, v in self.non_tensor_batch.items()},
                self.meta_info,
            )
        idx = np.arange(len(self))[index] if isinstance(index, slice) else _indices(index, len(self))
        return self._take(idx)

    def _take(self, idx: Any) -> RolloutBatch:
        np = _np()
        idx = np.asarray(idx, dtype=np.int64)
        tensors = {}
        for key, value in self.batch.items():
            import torch

            tensors[key] = value[torch.as_tensor(idx, dtype=torch.long, device=value.device)]
        non_tensors = {k: v[idx] for k, v in self.non_tensor_batch.items()}
        return RolloutBatch(tensors, non_tensors, dict(self.meta_info))

    def select(
        self,
        batch_keys: Sequence[str] | None = None,
        non_tensor_batch_keys: Sequence[str] | None = None,
        meta_info_keys: Sequence[str] | None = None,
    ) -> RolloutBatch:
        """A batch with only the named keys (None keeps every key of that field)."""

        def pick(data: Mapping[str, Any], keys: Sequence[str] | None, where: str) -> dict[str, Any]:
            if keys is None:
                return dict(data)
            missing = [k for k in keys if k not in data]
            if missing:
                raise KeyError(f"{where} has no key(s) {missing}; keys: {sorted(data)}")
            return {k: data[k] for k in keys}

        return RolloutBatch(
            pick(self.batch, batch_keys, "batch"),
            pick(self.non_tensor_batch, non_tensor_batch_keys, "non_tensor_batch"),
            pick(self.meta_info, meta_info_keys, "meta_info"),
        )

    def chunk(self, chunks: int) -> list[RolloutBatch]:
        """Split into ``chunks`` consecutive parts whose sizes differ by at most one."""
        if not isinstance(chunks, int) or chunks < 1:
            raise ValueError(f"chunks must be a positive integer, got {chunks!r}")
        np = _np()
        return [self._take(part) for part in np.array_split(np.arange(len(self)), chunks)]

    @staticmethod
    def concat(batches: Sequence[RolloutBatch]) -> RolloutBatch:
        """Rows of every batch in order; the keys must match. ``meta_info`` is merged (first value wins)."""
        if not batches:
            raise ValueError("concat needs at least one batch")
        import torch

        np = _np()
        first = batches[0]
        for b in batches[1:]:
            if set(b.batch) != set(first.batch) or set(b.non_tensor_batch) != set(first.non_tensor_batch):
                raise ValueError("concat: every batch must have the same tensor and non-tensor keys")
        meta: dict[str, Any] = {}
        for b in batches:
            for k, v in b.meta_info.items():
                meta.setdefault(k, v)
        return RolloutBatch(
            {k: torch.cat([b.batch[k] for b in batches]) for k in first.batch},
            {k: np.concatenate([b.non_tensor_batch[k] for b in batches]) for k in first.non_tensor_batch},
            meta,
        )

    def repeat(self, repeat_times: int = 2, interleave: bool = True) -> RolloutBatch:
        """Each row ``repeat_times`` times (``interleave``: a a b b; else a b a b).

        Mutable non-tensor elements are deep-copied, so repeated rows never share an ``extra_info`` dict.
        """
        if not isinstance(repeat_times, int) or repeat_times < 1:
            raise ValueError(f"repeat_times must be a positive integer, got {repeat_times!r}")
        np = _np()
        n = len(self)
        idx = np.repeat(np.arange(n), repeat_times) if interleave else np.tile(np.arange(n), repeat_times)
        out = self._take(idx)
        for _key, values in out.non_tensor_batch.items():
            for i, v in enumerate(values):
                if isinstance(v, dict | list | set):
                    values[i] = copy.deepcopy(v)
        return out


def _indices(index: Any, n: int) -> Any:
    np = _np()
    if hasattr(index, "detach"):  # a torch tensor
        index = index.detach().cpu().numpy()
    arr = np.asarray(index)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise IndexError(f"a boolean mask must have shape ({n},), got {arr.shape}")
        return np.nonzero(arr)[0]
    if arr.ndim != 1 or (arr.size and not np.issubdtype(arr.dtype, np.integer)):
        raise IndexError("index with an int, a slice, a list/array of ints, or a boolean mask")
    return arr
