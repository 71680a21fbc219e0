"""Builds a tiny random reward model / causal LM and its tokenizer locally (no downloads)."""

from __future__ import annotations

from pathlib import Path

SPECIALS = ["<pad>", "<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>", "<|system|>", "<|end|>"]
WORDS = [
    "the",
    "a",
    "an",
    "is",
    "are",
    "was",
    "what",
    "how",
    "many",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "plus",
    "minus",
    "times",
    "answer",
    "question",
    "so",
    "equals",
    "yes",
    "no",
    "correct",
    "incorrect",
    "good",
    "bad",
    "score",
    "rating",
    "because",
    "therefore",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    ".",
    ",",
    "?",
    "!",
    ":",
    "=",
    "+",
    "-",
    "x",
    "y",
    "z",
    "hello",
    "world",
    "please",
    "explain",
    "step",
    "final",
    "boxed",
    "{",
    "}",
    "\\",
]

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} <|end|> {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)


def build_tokenizer(path: Path):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate(SPECIALS + sorted(set(WORDS)))}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.add_special_tokens(SPECIALS)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        model_max_length=512,
    )
    tok.chat_template = CHAT_TEMPLATE
    tok.save_pretrained(path)
    return tok


def build_model(path: Path, kind: str = "classify", seed: int = 0) -> Path:
    """A 2-layer, 32-wide Llama with random weights: a one-label classifier or a causal LM."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, LlamaForSequenceClassification

    path.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(path)
    torch.manual_seed(seed)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        num_labels=1,
    )
    model = LlamaForSequenceClassification(cfg) if kind == "classify" else LlamaForCausalLM(cfg)
    model.save_pretrained(path)
    return path
