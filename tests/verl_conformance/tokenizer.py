"""A small Qwen-like tokenizer, built locally, for verl's tests that load ``~/models/Qwen/Qwen2.5-0.5B-Instruct``.

Byte-level BPE (any text round-trips, as with Qwen2.5's), Qwen's special tokens (``<|endoftext|>`` as pad,
``<|im_start|>``, ``<|im_end|>`` as EOS) and a ChatML chat template. Nothing is downloaded.

``python -m tests.verl_conformance.tokenizer HOME`` writes it to ``HOME/models/Qwen/Qwen2.5-0.5B-Instruct``;
the conformance driver runs verl's suite with ``HOME`` pointing at a temporary directory, never the real one.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["QWEN_SUBPATH", "build_qwen_like_tokenizer"]

QWEN_SUBPATH = Path("models") / "Qwen" / "Qwen2.5-0.5B-Instruct"
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_CORPUS = [
    "correct answer right answer wrong answer the answer is 42",
    "Let x = 3, then 2x + 1 = 7. Therefore \\boxed{7}. #### 18",
    "<|im_start|>user\nWhat is 2 + 2?<|im_end|>\n<|im_start|>assistant\n4<|im_end|>",
] * 20


def build_qwen_like_tokenizer(home: Path) -> Path:
    """Write the tokenizer under ``home / QWEN_SUBPATH`` and return that directory."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE(unk_token=None))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=512, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    core.train_from_iterator(_CORPUS, trainer)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<|endoftext|>", eos_token="<|im_end|>", model_max_length=32768
    )
    tok.chat_template = CHAT_TEMPLATE
    path = Path(home) / QWEN_SUBPATH
    path.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(path)
    return path


if __name__ == "__main__":
    print(build_qwen_like_tokenizer(Path(sys.argv[1])))
