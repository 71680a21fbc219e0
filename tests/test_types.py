import math
import pickle

import pytest

from rewardloop import Sample, Score, ScoreBatch, Status


def test_sample_is_frozen_and_copies_metadata():
    meta = {"index": 1, "nested": {"a": [1]}}
    s = Sample(response="r", ground_truth="1", task="t", metadata=meta)
    meta["index"] = 2
    assert s.metadata["index"] == 1
    with pytest.raises(AttributeError):
        s.response = "x"  # type: ignore[misc]
    own = s.metadata_copy()
    own["nested"]["a"].append(2)
    assert s.metadata["nested"]["a"] == [1]


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["a"]])
def test_sample_rejects_non_str_response(bad):
    with pytest.raises(TypeError, match="response must be str"):
        Sample(response=bad)


def test_sample_rejects_non_mapping_metadata():
    with pytest.raises(TypeError, match="metadata must be a mapping"):
        Sample(response="", metadata=[1, 2])  # type: ignore[arg-type]


def test_score_roundtrips_pickle():
    s = Score(1, metrics={"acc": True}, info={"pred": "2"})
    assert pickle.loads(pickle.dumps(s)) == s
    assert s.value == 1.0 and isinstance(s.value, float)


def test_score_ok_needs_value_and_failure_needs_failure_status():
    with pytest.raises(ValueError):
        Score(None)
    with pytest.raises(ValueError):
        Score.failure(Status.OK, "x")
    f = Score.failure("timeout", "too slow", limit=1)
    assert f.status is Status.TIMEOUT and f.info == {"error": "too slow", "limit": 1}
    assert f.reward() == 0.0 and f.reward(None) is None


def test_score_batch_union_of_metric_keys():
    batch = ScoreBatch.from_scores(
        [
            Score(1.0, metrics={"acc": True, "pred": "1"}),
            Score(0.0),  # a scorer that reports nothing extra
            Score.failure(Status.TIMEOUT, "slow"),
            Score(-1.0, metrics={"overlong": 3}),
        ]
    )
    assert set(batch.metrics) == {"acc", "pred", "overlong"}
    assert batch.metrics["acc"] == (True, None, None, None)
    assert batch.metrics["overlong"] == (None, None, None, 3)
    assert batch.rewards() == [1.0, 0.0, 0.0, -1.0]
    assert batch.rewards(on_error=None)[2] is None
    assert batch.status_counts()["timeout"] == 1 and batch.status_counts()["ok"] == 3
    assert batch.num_failed == 1
    assert batch.mean() == 0.0
    assert batch[0].metrics == {"acc": True, "pred": "1"}
    assert [s.status for s in batch] == list(batch.statuses)
    assert pickle.loads(pickle.dumps(batch)) == batch


def test_empty_batch():
    batch = ScoreBatch.from_scores([])
    assert len(batch) == 0 and math.isnan(batch.mean()) and batch.metrics == {}


def test_a_dict_result_can_report_its_own_failure():
    from rewardloop.scorers._base import coerce_score

    failed = coerce_score({"score": 0.0, "status": "infra_error", "error": "judge down", "n": 1}, source="fn")
    assert failed.status is Status.INFRA_ERROR and failed.info["error"] == "judge down"
    assert failed.metrics == {"n": 1}
    assert coerce_score({"score": 1.0, "status": "ok"}).ok  # "ok" (or an unknown word) is just a metric
    assert coerce_score({"score": 1.0, "status": "great"}).metrics == {"status": "great"}
