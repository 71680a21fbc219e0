"""Tiny locally built models (built once per session) for the reward-model tests."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
pytest.importorskip("starlette")


@pytest.fixture(scope="session")
def rm_path(tmp_path_factory):
    from ._tiny import build_model

    return build_model(tmp_path_factory.mktemp("tiny-rm"), "classify")


@pytest.fixture(scope="session")
def lm_path(tmp_path_factory):
    from ._tiny import build_model

    return build_model(tmp_path_factory.mktemp("tiny-lm"), "generate")
