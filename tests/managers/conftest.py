import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture(scope="session")
def tokenizer():
    from tests._rollouts import shared_tokenizer

    return shared_tokenizer()
