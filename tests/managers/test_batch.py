"""RolloutBatch: DataProto-shaped container operations."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from rewardloop.managers import RolloutBatch, RolloutItem  # noqa: E402


def batch(n=5):
    return RolloutBatch.from_dict(
        {"responses": torch.arange(n * 3).reshape(n, 3)},
        {"data_source": [f"s{i}" for i in range(n)], "extra_info": [{"i": i, "tags": [i]} for i in range(n)]},
        {"step": 1},
    )


def test_len_index_slice_select():
    b = batch()
    assert len(b) == 5 and len(RolloutBatch()) == 0
    item = b[1]
    assert isinstance(item, RolloutItem) and item.non_tensor_batch["data_source"] == "s1"
    assert item.batch["responses"].tolist() == [3, 4, 5]
    assert b[-1].non_tensor_batch["data_source"] == "s4"
    part = b[1:3]
    assert len(part) == 2 and list(part.non_tensor_batch["data_source"]) == ["s1", "s2"]
    assert list(b[[4, 0]].non_tensor_batch["data_source"]) == ["s4", "s0"]
    assert list(b[np.array([True, False, False, False, True])].non_tensor_batch["data_source"]) == [
        "s0",
        "s4",
    ]
    assert list(b[torch.tensor([2])].non_tensor_batch["data_source"]) == ["s2"]
    sel = b.select(batch_keys=[], non_tensor_batch_keys=["data_source"])
    assert set(sel.batch) == set() and set(sel.non_tensor_batch) == {"data_source"}
    with pytest.raises(KeyError, match="has no key"):
        b.select(batch_keys=["nope"])
    with pytest.raises(IndexError):
        b[5]
    with pytest.raises(IndexError, match="boolean mask"):
        b[np.array([True])]


def test_iteration_goes_through_rows():
    assert [row.non_tensor_batch["data_source"] for row in batch(3)] == ["s0", "s1", "s2"]


def test_chunk_allows_uneven_sizes_and_concat_restores():
    b = batch(5)
    parts = b.chunk(2)
    assert [len(p) for p in parts] == [3, 2]
    joined = RolloutBatch.concat(parts)
    assert torch.equal(joined.batch["responses"], b.batch["responses"])
    assert list(joined.non_tensor_batch["data_source"]) == list(b.non_tensor_batch["data_source"])
    assert joined.meta_info == {"step": 1}
    with pytest.raises(ValueError, match="positive integer"):
        b.chunk(0)
    with pytest.raises(ValueError, match="same tensor and non-tensor keys"):
        RolloutBatch.concat([b, b.select(non_tensor_batch_keys=["data_source"])])


def test_repeat_interleave_and_tile_never_share_extra_info():
    b = batch(2)
    r = b.repeat(3, interleave=True)
    assert list(r.non_tensor_batch["data_source"]) == ["s0", "s0", "s0", "s1", "s1", "s1"]
    r.non_tensor_batch["extra_info"][0]["i"] = 99
    r.non_tensor_batch["extra_info"][0]["tags"].append(7)
    assert r.non_tensor_batch["extra_info"][1] == {"i": 0, "tags": [0]}
    assert b.non_tensor_batch["extra_info"][0] == {"i": 0, "tags": [0]}
    t = b.repeat(2, interleave=False)
    assert list(t.non_tensor_batch["data_source"]) == ["s0", "s1", "s0", "s1"]


def test_equal_length_lists_stay_one_object_per_row():
    b = RolloutBatch.from_dict(
        None, {"raw_prompt": [[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]]}
    )
    assert b.non_tensor_batch["raw_prompt"].shape == (2,)
    assert b[1].non_tensor_batch["raw_prompt"] == [{"role": "user", "content": "b"}]


def test_mismatched_lengths_are_rejected():
    with pytest.raises(ValueError, match="same first dimension"):
        RolloutBatch.from_dict({"responses": torch.zeros(2, 3)}, {"data_source": ["a"]})
