"""De-duplication keys and the bounded LRU result cache of the Runner.

A key identifies "the same work": the scorer (its class and options) plus the sample's task, response,
ground truth, metadata and prompt (not ``uid``, which differs per rollout). Ground truths and metadata
are often unhashable (dicts, lists, numpy arrays), so keys are built from a canonical text encoding:

* str / int / float / bool / None / bytes keep their type (``1``, ``1.0``, ``True`` and ``"1"`` differ);
* mappings are sorted by their encoded keys, sets by their encoded items; lists and tuples differ;
* arrays (anything with ``dtype``, ``shape`` and ``tobytes``) are encoded as dtype, shape and a digest
  of their bytes; object arrays by their elements;
* other objects by type and ``repr``.

Values that cannot be encoded faithfully give *no* key (the sample is scored on its own): cycles,
nesting deeper than 64, a failing ``repr``, and a default ``repr`` (``<Foo object at 0x...>``), whose
address may be reused by another object once this one dies. Scorer options that are not plain data
(a client, a function) are encoded by identity; the cache entry keeps its scorer alive, so that identity
cannot be reused while the entry exists.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping, Set
from typing import Any

from ..types import Sample, Score

__all__ = ["LRUCache", "canonical", "sample_key", "scorer_fingerprint", "scorer_identity"]

_MAX_DEPTH = 64


class Unkeyable(Exception):
    """The value cannot be encoded faithfully; the sample gets no key."""


def canonical(obj: Any, *, by_identity: bool = False) -> str:
    """A deterministic text encoding of ``obj`` (raises :class:`Unkeyable`).

    ``by_identity=True`` encodes objects that are not plain data by identity instead of ``repr`` (for
    scorer options, where the object is kept alive by the cache entry).
    """
    parts: list[str] = []
    _encode(obj, parts, set(), 0, by_identity)
    return "".join(parts)


def _encode(obj: Any, out: list[str], active: set[int], depth: int, by_identity: bool) -> None:
    cls = type(obj)
    if cls is str:  # the common cases first, by exact type (subclasses take the general path below)
        out.append(f"s{len(obj)}:")
        out.append(obj)
    elif cls is dict or cls is list or cls is tuple:
        _encode_container(obj, out, active, depth, by_identity)
    elif depth > _MAX_DEPTH:
        raise Unkeyable("nested too deeply")
    elif obj is None or obj is True or obj is False:
        out.append(f"{obj};")
    elif isinstance(obj, str):
        out.append(f"s{len(obj)}:")
        out.append(str(obj))
    elif isinstance(obj, int):
        out.append(f"i{int.__repr__(obj)};")
    elif isinstance(obj, float):
        out.append(f"f{float.__repr__(obj)};")  # numpy float64 is a float; its repr differs
    elif isinstance(obj, bytes | bytearray):
        out.append(f"b{len(obj)}:{bytes(obj).hex()}")
    elif isinstance(obj, Mapping | list | tuple | Set):
        _encode_container(obj, out, active, depth, by_identity)
    elif _is_array(obj):
        _encode_array(obj, out, active, depth, by_identity)
    elif by_identity:
        _encode_opaque(obj, out)
    else:
        text = _repr(obj)
        if " at 0x" in text:
            raise Unkeyable(f"{type(obj).__name__} has no value-based repr")
        out.append(f"r{_type_path(obj)}{len(text)}:{text}")


def _encode_container(obj: Any, out: list[str], active: set[int], depth: int, by_identity: bool) -> None:
    if depth > _MAX_DEPTH:
        raise Unkeyable("nested too deeply")
    if id(obj) in active:
        raise Unkeyable("cyclic value")
    active.add(id(obj))
    try:
        if isinstance(obj, Mapping):
            _encode_mapping(obj, out, active, depth, by_identity)
        elif isinstance(obj, Set):
            texts = sorted(canonical_part(v, active, depth, by_identity) for v in obj)
            out.append(f"<{len(texts)}:{''.join(texts)}>")
        else:
            out.append(f"{'[' if isinstance(obj, list) else '('}{len(obj)}:")
            for item in obj:
                _encode(item, out, active, depth + 1, by_identity)
            out.append("]")
    finally:
        active.discard(id(obj))


def _encode_mapping(
    obj: Mapping[Any, Any], out: list[str], active: set[int], depth: int, by_identity: bool
) -> None:
    out.append(f"{{{len(obj)}:")
    if all(type(k) is str for k in obj):  # sort plain string keys directly; same order on every call
        for k in sorted(obj):
            out.append(f"s{len(k)}:")
            out.append(k)
            _encode(obj[k], out, active, depth + 1, by_identity)
    else:
        items = sorted((canonical_part(k, active, depth, by_identity), v) for k, v in obj.items())
        for key_text, value in items:
            out.append("~")  # marks encoded (non-str) keys, so they never collide with the path above
            out.append(key_text)
            _encode(value, out, active, depth + 1, by_identity)
    out.append("}")


def canonical_part(obj: Any, active: set[int], depth: int, by_identity: bool) -> str:
    parts: list[str] = []
    _encode(obj, parts, active, depth + 1, by_identity)
    return "".join(parts)


def _is_array(obj: Any) -> bool:
    return hasattr(obj, "dtype") and hasattr(obj, "shape") and hasattr(obj, "tobytes")


def _encode_array(obj: Any, out: list[str], active: set[int], depth: int, by_identity: bool) -> None:
    try:
        dtype, shape = str(obj.dtype), tuple(obj.shape)
        if getattr(obj.dtype, "kind", "") == "O":  # object arrays hold pointers: encode the elements
            out.append(f"nd{dtype}{shape}")
            _encode(obj.tolist(), out, active, depth + 1, by_identity)
            return
        digest = hashlib.blake2b(obj.tobytes(), digest_size=16).hexdigest()
    except Unkeyable:
        raise
    except Exception as exc:  # a tensor on a device, a lazy array ...
        raise Unkeyable(f"cannot encode {type(obj).__name__}: {exc!r}") from None
    out.append(f"nd{_type_path(obj)}{dtype}{shape}{digest};")


def _encode_opaque(obj: Any, out: list[str]) -> None:
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    module = getattr(obj, "__module__", None) or type(obj).__module__
    out.append(f"o{module}.{name}@{id(obj):x};")


def _type_path(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _repr(obj: Any) -> str:
    try:
        return repr(obj)
    except Exception as exc:
        raise Unkeyable(f"repr of {type(obj).__name__} failed") from exc


def scorer_fingerprint(scorer: Any) -> str | None:
    """The scorer's class and options as text, or None when it must not be de-duplicated or cached.

    None when the scorer declares ``deterministic = False`` or its options cannot be encoded.
    """
    if not getattr(scorer, "deterministic", True):
        return None
    try:
        options = canonical(getattr(scorer, "__dict__", {}), by_identity=True)
    except Unkeyable:
        return None
    return f"{_type_path(scorer)}|{options}"


def scorer_identity(scorer: Any) -> str:
    """Which scorer this is, for gathering a group's members: equal scorers (same class and options, the
    identity de-duplication and the cache use) are one scorer, so members scored by equal but distinct
    instances (a per-sample scorer list, a scorer built per request) still meet; a scorer without a
    fingerprint (non-deterministic, or options that cannot be encoded) is itself."""
    fingerprint = scorer_fingerprint(scorer)
    return f"id:{id(scorer)}" if fingerprint is None else fingerprint


def sample_key(fingerprint: str, sample: Sample) -> str | None:
    """The de-duplication / cache key of ``sample`` scored by the scorer with ``fingerprint``.

    None when a field cannot be encoded faithfully (the sample is then scored on its own).
    """
    try:
        text = canonical((sample.task, sample.response, sample.ground_truth, sample.metadata, sample.prompt))
    except Unkeyable:
        return None
    h = hashlib.blake2b(digest_size=20)
    h.update(fingerprint.encode("utf-8", "surrogatepass"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class LRUCache:
    """A bounded, thread-safe map from keys to :class:`Score`, least recently used out first.

    Each entry keeps a reference to the scorer that produced it (see the module docstring).
    """

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._data: OrderedDict[str, tuple[Any, Score]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Score | None:
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return entry[1]

    def put(self, key: str, score: Score, scorer: Any = None) -> None:
        with self._lock:
            self._data[key] = (scorer, score)
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data
