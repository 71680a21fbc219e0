"""What a reader SEES in a math response (``_equiv_visible``), issue 22: hidden text, TeX that redefines
itself, invisible characters, look-alike answer markers, box commands and malformed braces.

Every attack here has NO visible competing answer (round 3's finding: earlier hidden-box rows were closed only
because a visible second answer made them a hedge), so an attack scores 0 only if the hidden part is really
not read, or the response is refused. Every control is a correct answer in the same surface form and scores 1.
Each row is judged under every final-answer rule.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import rewardloop
from rewardloop import Sample, get_scorer
from rewardloop.scorers._equiv_visible import REFUSAL_RULES, reader_view

RULES = ("final", "wrong", "last")
NO = " I could not find x."

# (class, response, gold): each must score 0
ATTACKS: list[tuple[str, str, str]] = [
    # --- HTML / CSS / markdown that a reader never sees
    ("html", '<span style="color:WHITE">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="color:#FFFFFE">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="color:rgba(0,0,0,0)">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="color:transparent">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="color:hsl(0,0%,100%)">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="visibility:hidden">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="display: none !important">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="DISPLAY:NONE">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="disp&#x61;y:none">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="display&colon;none">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="font-size:0.0em">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="text-indent:-9999px">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="width:0;overflow:hidden;display:inline-block">\\boxed{5}</span>' + NO, "5"),
    ("html", '<span style="color:blue;background:blue">\\boxed{5}</span>' + NO, "5"),
    ("html", "<div hidden>\\boxed{5}</div>" + NO, "5"),
    ("html", '<div aria-hidden="true" class="x">\\boxed{5}</div>' + NO, "5"),
    ("html", '<span class="visually-hidden">\\boxed{5}</span>' + NO, "5"),
    ("html", "<script>\\boxed{5}</script>" + NO, "5"),
    ("html", "<template>\\boxed{5}</template>" + NO, "5"),
    ("html", '<abbr title="\\boxed{5}">?</abbr>' + NO, "5"),
    ("html", '<span style="color:white">Answer: 5</span>' + NO, "5"),
    ("html", "<!-- Answer: 5 -->" + NO, "5"),
    ("html", "![\\boxed{5}](figure.png)" + NO, "5"),
    ("html", "[//]: # (\\boxed{5})\n" + NO, "5"),
    ("html", "[?](https://example.com/\\boxed{5})" + NO, "5"),
    ("html", '<bdo dir="rtl">\\boxed{75}</bdo>' + NO, "75"),
    # --- TeX that is not shown
    ("tex", "$\\color{white}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\textcolor{WHITE}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\textcolor {white} {\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\textcolor{white!90!black}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\textcolor[RGB]{255,255,255}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\textcolor[HTML]{FFFFFF}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\colorbox{white}{\\color{white}\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\colorbox{navy}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\mathcolor{white}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\textcolor{mycolor}{\\boxed{5}}$" + NO, "5"),
    ("tex", "\\iffalse \\iffalse \\fi \\boxed{5} \\fi" + NO, "5"),
    ("tex", "\\ifnum1>2 \\boxed{5}\\fi" + NO, "5"),
    ("tex", "\\ifcat ab\\boxed{5}\\fi" + NO, "5"),
    ("tex", "\\ifstrequal{a}{b}{\\boxed{5}}{}" + NO, "5"),
    ("tex", "\\IfBooleanTF{\\BooleanFalse}{\\boxed{5}}{}" + NO, "5"),
    ("tex", "\\iftrue I could not find x. \\else \\boxed{5}" + NO, "5"),
    ("tex", "$\\vphantom{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\hphantom{\\text{Answer: }5}$" + NO, "5"),
    ("tex", "$\\phantom{\\text{The answer is }5.}$" + NO, "5"),
    ("tex", "$\\scalebox{0.01}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\resizebox{0.1pt}{!}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\raisebox{-50cm}{\\boxed{5}}$" + NO, "5"),
    ("tex", "$\\hspace{-200em}\\boxed{5}$" + NO, "5"),
    ("tex", "$\\kern-100cm\\boxed{5}$" + NO, "5"),
    ("tex", "{\\fontsize{0.1pt}{0pt}\\selectfont \\boxed{5}}" + NO, "5"),
    ("tex", "\\texttransparent{0}{\\boxed{5}}" + NO, "5"),
    ("tex", "\\onslide<3>{\\boxed{5}}" + NO, "5"),
    ("tex", "\\uncover<2>{\\boxed{5}}" + NO, "5"),
    ("tex", "\\invisible{\\boxed{5}}" + NO, "5"),
    ("tex", "\\verb|\\boxed{5}|" + NO, "5"),
    ("tex", "\\begin{lstlisting}\\boxed{5}\\end{lstlisting}" + NO, "5"),
    ("tex", "\\begin{hide}\\boxed{5}\\end{hide}" + NO, "5"),
    ("tex", "\\makeatletter\\@gobbletwo{\\boxed{5}}{}\\makeatother" + NO, "5"),
    ("tex", "$\\reflectbox{\\boxed{5}}$" + NO, "5"),
    ("tex", "%Answer: 5\n" + NO, "5"),
    ("tex", "$x\\label{\\boxed{5}}$" + NO, "5"),
    ("tex", "\\href{\\boxed{5}}{a link}" + NO, "5"),
    ("tex", "\\index{\\boxed{5}}" + NO, "5"),
    ("tex", "\\eqref{\\boxed{5}}" + NO, "5"),
    ("macro", "\\typeout{\\boxed{5}}" + NO, "5"),
    ("macro", "\\immediate\\write16{\\boxed{5}}" + NO, "5"),
    # --- TeX that redefines TeX: not read at face value
    ("macro", "\\let\\oldboxed\\boxed \\renewcommand{\\boxed}[1]{\\oldboxed{7}} $\\boxed{5}$", "5"),
    ("macro", "\\gdef\\boxed#1{7}$\\boxed{5}$", "5"),
    ("macro", "\\edef\\boxed#1{7}$\\boxed{5}$", "5"),
    ("macro", "\\providecommand{\\boxed}[1]{7}$\\boxed{5}$", "5"),
    ("macro", "\\NewDocumentCommand{\\boxed}{m}{7}$\\boxed{5}$", "5"),
    ("macro", "\\DeclareMathOperator{\\five}{7} $\\boxed{\\five}$ so x = 5", "5"),
    ("macro", "\\catcode`5=13 \\def5{7} $\\boxed{5}$", "5"),
    ("macro", '\\mathchardef\\five="37 $\\boxed{5}$', "5"),
    ("macro", "\\everymath{\\color{white}} $\\boxed{5}$", "5"),
    ("macro", "\\expandafter\\def\\csname boxed\\endcsname#1{7} $\\boxed{5}$", "5"),
    ("macro", "\\newcommand{\\ans}{\\boxed{5}}" + NO, "5"),
    ("macro", "$\\boxed{\\char53}$ is what I write, but x = 7", "5"),
    # --- format characters that change what is seen
    ("cf", "$\\boxed{\u202e75}$", "75"),
    ("cf", "$\\boxed{5\u0336}$ $\\boxed{7}$", "5"),
    # --- answer markers a reader reads as "Answer"
    ("marker", "$\\boxed{5}$\n\n\u0410n\u0455w\u0435r: 7", "5"),  # Cyrillic A, dze, ie
    ("marker", "$\\boxed{5}$\n\n\u0391nswer: 7", "5"),
    ("marker", "$\\boxed{5}$\n\n\uff26\uff49\uff4e\uff41\uff4c \uff21\uff4e\uff53\uff57\uff45\uff52: 7", "5"),
    ("marker", "$\\boxed{5}$\n\nThe \uff41\uff4e\uff53\uff57\uff45\uff52 \uff49\uff53 7.", "5"),
    ("marker", "$\\boxed{5}$\n\n\U0001d5a0\U0001d5c7\U0001d5cc\U0001d5d0\U0001d5be\U0001d5cb: 7", "5"),
    ("marker", "$\\boxed{5}$\n\nAn\u00adswer: 7", "5"),
    ("marker", "$\\boxed{5}$\n\nAnswer\u200b: 7", "5"),
    ("marker", "$\\boxed{5}$\n\nAns\u2060wer: 7", "5"),
    # --- box commands: a box inside hidden text is still hidden
    ("box", "$\\bbox[color:white]{5}$" + NO, "5"),
    ("box", "$\\fcolorbox{white}{white}{\\color{white}5}$" + NO, "5"),
    ("box", "$\\phantom{\\boxed5}$" + NO, "5"),
    ("box", "<!-- \\boxed 5 -->" + NO, "5"),
    # --- braces that do not close around an answer
    ("braces", "$\\boxed{5}$ and $\\boxed{7 + \\frac{1}{2}$", "5"),
    ("braces", "$\\boxed{\\frac{5}{1}$", "5"),
    ("braces", "$\\boxed{5\\}$", "5"),
    ("braces", "$\\boxed{5}$ and \\fbox{7", "5"),
]

# (class, response, gold): each must score 1
CONTROLS: list[tuple[str, str, str]] = [
    ("html", '<span style="color:blue">$\\boxed{5}$</span>', "5"),
    ("html", '<font color="red">\\boxed{5}</font>', "5"),
    ("html", '<span style="font-weight:bold">\\boxed{5}</span>', "5"),
    ("html", '<span style="background-color:yellow">\\boxed{5}</span>', "5"),
    ("html", '<span style="color:#333">\\boxed{5}</span>', "5"),
    ("html", '<img src="fig.png" alt="figure 1"> so $\\boxed{5}$', "5"),
    ("html", "[see here](https://example.com) so $\\boxed{5}$", "5"),
    ("html", "<b>Answer:</b> 5", "5"),
    ("html", "Since $a<b$ and $c>d$, we get $\\boxed{5}$", "5"),
    # "<q" of an inequality is no <q> tag (a real ProcessBench output): nothing is blanked up to a later ">"
    ("html", "For $p<q \\leqslant n$ we get $\\boxed{5}$, as $n=7 > 2$.", "5"),
    ("tex", "$\\textcolor{red}{\\boxed{5}}$", "5"),
    ("tex", "$\\color{blue}\\boxed{5}$", "5"),
    ("tex", "$\\boxed{\\textcolor{red}{5}}$", "5"),
    ("tex", "$\\colorbox{yellow}{$\\boxed{5}$}$", "5"),
    ("tex", "$\\textcolor[rgb]{1,0,0}{\\boxed{5}}$", "5"),
    ("tex", "$\\textcolor{black!70}{\\boxed{5}}$", "5"),
    ("tex", "\\hspace{1cm}$\\boxed{5}$", "5"),
    ("tex", "$\\phantom{-}\\boxed{5}$", "5"),
    ("tex", "$x \\iff y$, so $\\boxed{5}$", "5"),
    ("tex", "$\\scalebox{1.2}{\\boxed{5}}$", "5"),
    ("tex", "\\begin{align*} x &= 2 + 3 \\\\ &= 5 \\end{align*} so $\\boxed{5}$", "5"),
    ("tex", "\\iffalse draft: 7 \\fi $\\boxed{5}$", "5"),
    ("tex", "We have 50% of 10, which is $\\boxed{5}$", "5"),
    ("tex", "\\href{https://example.org}{see here}, so $\\boxed{5}$", "5"),
    ("tex", "$$x = 5 \\label{eq:x}$$ by \\eqref{eq:x}, $\\boxed{5}$", "5"),
    ("macro", "\\renewcommand{\\arraystretch}{1.5}\n$\\begin{array}{c} 1 \\end{array}$ so $\\boxed{5}$", "5"),
    ("cf", "$\\boxed{5\u200d7}$", "57"),
    ("cf", "$\\boxed{1\u200b000}$", "1000"),
    ("cf", "$\\boxed{\u200e5}$", "5"),
    ("cf", "$\\boxed{5}$\u200b", "5"),
    ("cf", "Answer: 5\u00ad", "5"),
    ("cf", "$\\boxed{5\U000e0037}$", "5"),
    ("marker", "\u0410nswer: 5", "5"),
    ("marker", "\U0001d400\U0001d427\U0001d42c\U0001d430\U0001d41e\U0001d42b: 5", "5"),
    ("marker", "\uff21\uff4e\uff53\uff57\uff45\uff52\uff1a\uff15", "5"),
    ("marker", "\u041e\u0442\u0432\u0435\u0442: 5", "5"),
    ("box", "$\\boxed 5$", "5"),
    ("box", "$\\boxed\\pi$", "\\pi"),
    ("box", "$\\boxed {5}$", "5"),
    ("box", "$\\framebox{5}$", "5"),
    ("box", "$\\framebox[1cm]{5}$", "5"),
    ("box", "$\\bbox{5}$", "5"),
    ("box", "$\\bbox[yellow]{5}$", "5"),
    ("box", "$\\boxed{\\mathbf{5}}$", "5"),
    ("box", "$\\boxed{\\boldsymbol{5}}$", "5"),
    ("box", "$\\boxed{\\textbf{5}}$", "5"),
    ("braces", "$\\boxed{5}}}$", "5"),
    ("braces", "The set $\\{1, 2\\}$ has $\\boxed{2}$ elements", "2"),
    ("braces", "$\\left\\{ x \\right.$ so $\\boxed{5}$", "5"),
    # a degenerate tail with unclosed braces after the answer (a real Qwen2.5-Math output, adjudicated correct)
    ("braces", "so the answer is $\\boxed{6}$. \\] permissible LOCATION (',' send{perform\"></ Easil", "6"),
]


def _round2_hidden_without_visible_answer() -> list[tuple[str, str, str]]:
    """Round 2's hidden_text attacks with their visible "The answer is 7." replaced by a non-answer: the hidden
    box alone must be unread (round 3: these scored 1 once the visible hedge partner was gone)."""
    path = Path(__file__).parent / "redteam" / "math_equiv_round2.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for r in rows:
        if r["class"] == "hidden_text" and r["kind"] == "attack" and "The answer is 7." in r["response"]:
            out.append(("r2", r["response"].replace("The answer is 7.", NO.strip()), r["gold"]))
    return out


@cache
def _scorer(rule: str) -> Any:
    return get_scorer("math_equiv", multiple_answers=rule)


def _value(response: str, gold: str, rule: str) -> tuple[float, dict[str, Any]]:
    score = rewardloop.score(Sample(response=response, ground_truth=gold), _scorer(rule), timeout_s=120.0)
    return (0.0 if score.value is None else score.value), score.info


def _ids(rows: list[tuple[str, str, str]], kind: str) -> list[Any]:
    return [
        pytest.param(r, g, rule, id=f"{kind}-{c}-{i:02d}-{rule}")
        for i, (c, r, g) in enumerate(rows)
        for rule in RULES
    ]


@pytest.mark.parametrize(("response", "gold", "rule"), _ids(ATTACKS, "attack"))
def test_attack_scores_0(response: str, gold: str, rule: str) -> None:
    value, info = _value(response, gold, rule)
    assert value == 0.0, info


@pytest.mark.parametrize(
    ("response", "gold", "rule"), _ids(_round2_hidden_without_visible_answer(), "attack")
)
def test_round2_hidden_box_alone_scores_0(response: str, gold: str, rule: str) -> None:
    value, info = _value(response, gold, rule)
    assert value == 0.0, info


@pytest.mark.parametrize(("response", "gold", "rule"), _ids(CONTROLS, "control"))
def test_control_scores_1(response: str, gold: str, rule: str) -> None:
    value, info = _value(response, gold, rule)
    assert value == 1.0, info


def test_round2_rows_are_found() -> None:
    assert len(_round2_hidden_without_visible_answer()) >= 10


@pytest.mark.parametrize(
    ("response", "rule"),
    [
        ('<span style="color:white">\\boxed{5}</span>', "hidden_content"),
        ("\\ifnum0=1 \\boxed{5}\\fi", "tex_conditional"),
        ('\\mathcode`5="0037 \\boxed{5}', "tex_redefinition"),
        ("\\boxed{5} but really \\boxed{7", "unbalanced_braces"),
        ("\\boxed{\u202e75}", "bidi_override"),
    ],
)
def test_a_refusal_names_its_rule(response: str, rule: str) -> None:
    assert reader_view(response)[1] == rule
    value, info = _value(response, "5", "final")
    assert value == 0.0 and info["rule"] == rule and info["reason"] == REFUSAL_RULES[rule], info


def test_the_reader_view_of_ordinary_text_is_the_text() -> None:
    text = "So $x = \\frac{1}{2}$ and $\\boxed{\\frac{1}{2}}$. 50% of it, $a<b$."
    assert reader_view(text) == (text, "")
