"""A memo of ANTLR's parsing decisions for ``latex2sympy2_extended``'s grammar, shared across inputs.

Most of the symbolic stage's time goes to parsing LaTeX: the grammar is ambiguous enough that its ANTLR
parser (pure Python) spends tens to hundreds of milliseconds per answer in *prediction* (choosing among a
rule's alternatives by simulating the ATN over the tokens ahead), and often needs full-context (LL)
prediction, which ANTLR does not cache at all. This module caches each prediction's result, keyed by what
the result is a function of, so a later answer that reaches the same decision in the same situation
reuses it: the sympy object is the same, only sooner (``x^{2}+y^{2}`` teaches the parser most of what
``(x-3)^{2}+y^{2}`` needs).

Why a cached result is the result ANTLR would compute (so no verdict can change):

* ``adaptivePredict`` reads the token *types* from the current position onward, one at a time, and stops
  when the alternative is decided; it never reads token text or looks back. Its other inputs are the
  decision, the prediction mode, the parser's precedence level (the grammar's only predicates are
  precedence predicates, ``precpred``, which compare with the top of the parser's precedence stack), and,
  for a full-context prediction only, the outer rule contexts (the chain of invoking ATN states).
* So the result is a function of (mode, decision, precedence, [context chain], the token types it read).
  Each result is stored in a trie over the token types read, under that key; a lookup walks the trie with
  the next tokens and returns a stored result only when the whole window it was computed from matches.
  Reading the same tokens in the same situation, ANTLR would make the same moves and stop at the same
  token with the same answer. A prediction that reads further than any stored window is computed.
* Whether a prediction needed the outer context is known after it ran (ANTLR reports "attempting full
  context"); one that did not is stored without the context (SLL simulation ignores it), one that did is
  stored with it. Predictions that raise (no viable alternative) are never stored.

Numerals of ASCII digits are built as ``sympy.Integer`` directly rather than through sympy's string parser
(:func:`_integers_directly`; the same object). Only parsers built here use the memo and that shortcut:
``latex2sympy``, and therefore Math-Verify, parse as before.
The memo is per process and bounded (:data:`MAX_NODES` trie nodes, then it starts over).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_NODES", "clear", "parse", "stats"]

#: trie nodes kept before the memo is emptied (each is a small dict; ~10-20 MB at this size)
MAX_NODES = 200_000
_RESULT = -1000  # the trie key under which a stored alternative sits (token types are >= -1)
_memo: dict[tuple[Any, ...], dict[int, Any]] = {}
_counts = {"hits": 0, "misses": 0, "nodes": 0}
_classes: tuple[Any, Any, Any, Any] | None = None


def stats() -> dict[str, int]:
    """Hits and misses of the memo since the process started, and its current size in trie nodes."""
    return dict(_counts)


def clear() -> None:
    """Empty the memo (the next predictions are computed by ANTLR again)."""
    _memo.clear()
    _counts["nodes"] = 0


def _walk(node: dict[int, Any] | None, stream: Any) -> int | None:
    k = 1
    while node is not None:
        alt = node.get(_RESULT)
        if alt is not None:
            return int(alt)
        node = node.get(stream.LT(k).type)
        k += 1
    return None


def _chain(ctx: Any) -> tuple[int, ...]:
    out = []
    while ctx is not None:
        out.append(ctx.invokingState)
        ctx = ctx.parentCtx
    return tuple(out)


def _build_classes() -> tuple[Any, Any, Any, Any]:
    from antlr4 import CommonTokenStream
    from antlr4.atn.ParserATNSimulator import ParserATNSimulator
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import PSLexer, PSParser

    class TrackingStream(CommonTokenStream):  # type: ignore[misc]
        """A token stream that remembers the furthest token handed out (how far a prediction read)."""

        furthest = -1

        def LT(self, k: int) -> Any:
            token = super().LT(k)
            if token is not None and token.tokenIndex > self.furthest:
                self.furthest = token.tokenIndex
            return token

    class MemoSimulator(ParserATNSimulator):  # type: ignore[misc]
        """ANTLR's prediction, with its results remembered (see the module docstring)."""

        used_full_context = False

        def reportAttemptingFullContext(self, *args: Any) -> None:
            self.used_full_context = True
            super().reportAttemptingFullContext(*args)

        def adaptivePredict(self, stream: Any, decision: int, outer: Any) -> int:
            precedences = self.parser._precedenceStack
            free = (self.predictionMode, decision, precedences[-1] if precedences else None)
            alt = _walk(_memo.get(free), stream)
            if alt is None and self.predictionMode != PredictionMode.SLL:
                alt = _walk(_memo.get((*free, _chain(outer))), stream)
            if alt is not None:
                _counts["hits"] += 1
                return alt
            _counts["misses"] += 1
            stream.furthest = -1
            self.used_full_context = False
            alt = int(super().adaptivePredict(stream, decision, outer))  # raises on no viable alternative
            _store((*free, _chain(outer)) if self.used_full_context else free, stream, alt)
            return alt

    return TrackingStream, MemoSimulator, PSLexer, PSParser


def _store(key: tuple[Any, ...], stream: Any, alt: int) -> None:
    """Remember ``alt`` for the token types from the current one to the furthest the prediction read."""
    if _counts["nodes"] >= MAX_NODES:
        clear()
    stop = stream.furthest
    node = _memo.get(key)
    if node is None:
        node = _memo[key] = {}
        _counts["nodes"] += 1
    k = 1
    while True:
        token = stream.LT(k)
        child = node.get(token.type)
        if child is None:
            child = node[token.type] = {}
            _counts["nodes"] += 1
        node = child
        if token.tokenIndex >= stop or token.type == -1:  # -1: EOF, the last token there is
            break
        k += 1
    node[_RESULT] = alt


def _parser(latex: str, mode: Any, listener: Any) -> Any:
    global _classes
    if _classes is None:
        _classes = _build_classes()
    tracking, simulator, lexer_class, parser_class = _classes
    from antlr4 import InputStream

    lexer = lexer_class(InputStream(latex))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener(latex))
    parser = parser_class(tracking(lexer))
    parser._interp = simulator(parser, parser.atn, parser.decisionsToDFA, parser.sharedContextCache)
    parser._interp.predictionMode = mode
    parser.removeErrorListeners()
    parser.addErrorListener(listener(latex))
    return parser


_DIGITS = re.compile(r"[0-9]+")


def _integers_directly(parse_number: Callable[[str], Any]) -> Callable[[str], Any]:
    """latex2sympy's ``parse_number`` (``sympy.Number(text)`` after dropping commas and leading zeros), with
    a numeral of ASCII digits built as ``sympy.Integer`` directly: ``sympy.Number("12")`` reaches the same
    ``Integer(12)`` through ``sympify`` and sympy's string parser (a tokenizer and an ``eval``), which was
    a fifth of a warm parse. Anything else (decimals, other digits) goes to latex2sympy's own."""
    import sympy

    def parse_integer_first(text: str) -> Any:
        digits = text.replace(",", "")
        if _DIGITS.fullmatch(digits):
            return sympy.Integer(int(digits))
        return parse_number(text)

    return parse_integer_first


def parse(text: str) -> Any:
    """``latex2sympy(text)`` with the default configuration, parsed with ANTLR's two-stage strategy (SLL
    prediction first, full LL on a syntax error, each on a fresh converter) and the prediction memo.

    Raises whatever ``latex2sympy`` raises on text it cannot parse or convert.
    """
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import (
        ConversionConfig,
        NormalizationConfig,
        _Latex2Sympy,
        normalize_latex,
    )

    latex = normalize_latex(text, NormalizationConfig())
    listener = _Latex2Sympy.MathErrorListener
    for mode in (PredictionMode.SLL, PredictionMode.LL):
        converter = _Latex2Sympy(None, None, False, config=ConversionConfig())
        converter.create_parser = lambda s, m=mode: _parser(s, m, listener)  # this converter only
        converter.parse_number = _integers_directly(converter.parse_number)
        try:
            return converter.parse(latex)
        except Exception:
            if mode == PredictionMode.LL:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
