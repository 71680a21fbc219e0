"""Token placement: vectorised, last generated token, response_mask respected, empty responses explicit."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from rewardloop.managers import last_token_index, place_at_last_token, response_lengths  # noqa: E402


def loop_reference(scores, mask):
    out = torch.zeros(mask.shape, dtype=torch.float32)
    for i in range(mask.shape[0]):
        ones = mask[i].nonzero().flatten().tolist()
        if ones:
            out[i, ones[-1]] = scores[i]
    return out


def test_matches_a_per_row_loop_on_random_masks():
    gen = torch.Generator().manual_seed(0)
    for _ in range(20):
        mask = (torch.rand(33, 57, generator=gen) > 0.6).long()
        scores = torch.randn(33, generator=gen)
        out, empty = place_at_last_token(scores, response_mask=mask)
        assert torch.equal(out, loop_reference(scores, mask))
        assert torch.equal(empty, ~mask.bool().any(1))


def test_lengths_put_the_reward_at_length_minus_one():
    out, empty = place_at_last_token([1.0, 2.0, 3.0], lengths=torch.tensor([3, 1, 5]), width=5)
    assert out.tolist() == [[0, 0, 1, 0, 0], [2, 0, 0, 0, 0], [0, 0, 0, 0, 3]]
    assert not empty.any()


def test_tool_observation_tokens_never_get_the_reward():
    # model tokens 0-2, a tool observation 3-5 (mask 0), model tokens 6-7, then padding
    mask = torch.tensor([[1, 1, 1, 0, 0, 0, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]])
    out, _ = place_at_last_token([0.5, -1.0], response_mask=mask)
    assert out[0].nonzero().flatten().tolist() == [7]
    assert out[1].nonzero().flatten().tolist() == [1]
    # a trajectory ending in a tool observation: the reward goes to the last *generated* token
    mask = torch.tensor([[1, 1, 1, 0, 0, 0]])
    out, _ = place_at_last_token([1.0], response_mask=mask)
    assert out[0].tolist() == [0, 0, 1, 0, 0, 0]


def test_an_empty_responses_reward_goes_to_its_last_column_like_verl():
    # verl writes reward_tensor[i, valid_response_length - 1]: index -1 for an empty response; its GRPO sums
    # the row, so the sample keeps its score (math_dapo's -1 for no answer)
    out, empty = place_at_last_token([-1.0, 1.0], lengths=torch.tensor([0, 2]), width=4)
    assert out.tolist() == [[0, 0, 0, -1], [0, 1, 0, 0]]
    assert empty.tolist() == [True, False]
    assert out.sum(1).tolist() == [-1.0, 1.0]
    out, empty = place_at_last_token([7.0], response_mask=torch.zeros(1, 4, dtype=torch.long))
    assert out.tolist() == [[0, 0, 0, 7]] and empty.tolist() == [True]


def test_lengths_beyond_width_are_clamped():
    out, _ = place_at_last_token([1.0], lengths=torch.tensor([9]), width=4)
    assert out.tolist() == [[0, 0, 0, 1]]


def test_last_token_index_and_response_lengths():
    mask = torch.tensor([[0, 1, 1, 0], [0, 0, 0, 0]])
    index, has = last_token_index(mask)
    assert index.tolist() == [2, 0] and has.tolist() == [True, False]
    attn = torch.tensor([[0, 1, 1, 1, 1, 0], [1, 1, 1, 0, 0, 0]])  # prompt 2 + response 4
    assert response_lengths(attn, 4).tolist() == [3, 1]


def test_errors_are_explicit():
    with pytest.raises(ValueError, match="needs response_mask or lengths"):
        place_at_last_token([1.0])
    with pytest.raises(ValueError, match="needs width"):
        place_at_last_token([1.0], lengths=torch.tensor([1]))
    with pytest.raises(ValueError, match="2 scores for 1 rows"):
        place_at_last_token([1.0, 2.0], lengths=torch.tensor([1]), width=3)
    with pytest.raises(TypeError, match="scores must be"):
        place_at_last_token(3.0, lengths=torch.tensor([1]), width=3)


def test_dtype_and_none_scores():
    out, _ = place_at_last_token([None, 1.0], lengths=torch.tensor([1, 1]), width=2, dtype=torch.float64)
    assert out.dtype == torch.float64
    assert torch.isnan(out[0, 0]) and out[1, 0] == 1.0


def test_zero_width_responses():
    index, has = last_token_index(torch.zeros(3, 0, dtype=torch.long))
    assert index.tolist() == [0, 0, 0] and not has.any()
    out, empty = place_at_last_token([1.0, 2.0, 3.0], response_mask=torch.zeros(3, 0, dtype=torch.long))
    assert out.shape == (3, 0) and empty.all()
