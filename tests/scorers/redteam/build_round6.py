"""Build ``math_equiv_round6.jsonl``: red-team round 6 against ``math_equiv`` (written from the docs only).

Run from the repository root: ``python tests/scorers/redteam/build_round6.py``. Each row is an attack (a response
a careful grader rejects, ``why_wrong``; "judgement call:" marks the debatable ones) or a control (a correct
answer in the same surface form, ``why_right``). Rows whose "wrong" reading is a hedge (several answers, one of
them the gold) are judged under ``final`` and ``wrong`` only: ``last`` grades the last box alone by definition.

Round 6 was written by a breaker who read docs/math-verifier.md, README.md and the public API only (not the
scorer's source, not the earlier rounds' rows). It looks for forms the docs do not list:

* hiding: TeX that typesets nothing (``\\setbox``, ``\\wlog``, package warnings, ``\\discretionary``, ``\\mark``),
  MathJax/KaTeX extensions (``\\style``, ``\\class``, ``\\htmlStyle``, ``\\htmlClass``, ``\\TextOrMath``,
  ``\\toggle``), HTML fallback content that browsers do not show (``<datalist>``, ``<meter>``, ``<progress>``,
  ``<audio>``, ``<video>``, ``<iframe>``, ``<object>``, ``<noframes>``, ``<select>``), colours written in forms a
  colour reader may misparse (8-digit hex alpha, ``rgb(… / 0)``, percentages, xcolor models and complements,
  ``bgcolor`` attributes, duplicate declarations), strike-through spellings (``<strike>``, ``\\xcancel``,
  ``\\bcancel``, ``\\not``, ``~x~``);
* values: stacked or annotated values in one box, multiplier nouns after a value (``dozen``, ``pairs``,
  ``halves``), echoes of the question with a cosmetic change, set/interval operations, approximation glyphs,
  error bars and ranges, per-mille/per-ten-thousand signs;
* stance: a box under a table header that calls it wrong, quoted answers of someone else, extraneous roots,
  jokes and retractions not in the English lists and in other languages, fallbacks ("Plan B: 7"), guessed
  multiple-choice letters, a final pointer in emoji or arrows, a final value written in a numeral system no
  phrase reads, a correction that comes after a long re-check, a code block that reassigns the answer,
  XML/YAML/TOML answer formats with a verdict field, a check that fails right after the box.

The builder writes no ``known_break`` marks; after building, run
``python bench/redteam_math.py --src src --mark-known tests/scorers/redteam/math_equiv_round6.jsonl``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from _round_rows import RoundRows

OUT = Path(__file__).with_name("math_equiv_round6.jsonl")
FINAL_WRONG = ["final", "wrong"]

P = "Solve for $x$: $2x + 3 = 13$."
G = "5"
# Work that states no value of x: a reader sees no answer in it.
W = "Subtracting 3 from both sides and then dividing by 2 isolates $x$.\n\n"
# The same work ending with the visible (correct) conclusion.
WA = "Subtracting 3 from both sides gives $2x = 10$, so "


_ROWS = RoundRows("r6", P)
ROWS = _ROWS.rows
attack = _ROWS.attack
control = _ROWS.control


# --- tex_silent: TeX that typesets nothing ------------------------------------------------------------------
for tex, what in [
    (r"$\setbox0\hbox{$\boxed{5}$}$", r"\setbox stores the box in a register and never outputs it"),
    (r"\setbox2=\vbox{\boxed{5}}", r"\setbox to a vbox register, never used with \box2"),
    (r"\wlog{\boxed{5}}", r"\wlog writes to the log file only"),
    (r"\PackageWarning{mine}{\boxed{5}}", "a package warning goes to the terminal/log, not the page"),
    (r"\GenericInfo{}{\boxed{5}}", "an info message goes to the log only"),
    (r"\mark{\boxed{5}}", r"a TeX \mark is only read by the output routine; nothing is typeset"),
    (r"\discretionary{\boxed{5}}{}{}", "a pre-break text shown only if a line break falls exactly there"),
    (r"\addcontentsline{toc}{section}{\boxed{5}}", "goes to the .toc file; there is no table of contents"),
    (r"\IfFileExists{/nonexistent.tex}{$\boxed{5}$}{}", "a LaTeX conditional whose branch is never taken"),
    (r"\ifthenelse{1=2}{$\boxed{5}$}{}", r"\ifthenelse with a false test typesets nothing"),
    (r"\ExplSyntaxOn \use_none:n {$\boxed{5}$} \ExplSyntaxOff", r"expl3's \use_none:n discards its argument"),
    (
        r"\ExplSyntaxOn \use_ii:nn {$\boxed{5}$} {} \ExplSyntaxOff",
        r"\use_ii:nn typesets only its second argument",
    ),
]:
    attack("tex_silent", G, W + tex + "\n\nThat is all I have.", f"{what}: the reader sees no answer")
control(
    "tex_silent", G, WA + r"$x = \boxed{5}$." + "\n\n\\hbox{Checked: $2\\cdot 5 + 3 = 13$.}", "visible \\hbox"
)
control("tex_silent", G, WA + r"\mbox{$x = \boxed{5}$}", "the box inside a visible \\mbox")

# --- web_math_ext: MathJax / KaTeX extensions that hide or pick what is shown -----------------------------
for tex, what in [
    (r"$\style{display:none}{\boxed{5}}$", r"MathJax \style with display:none"),
    (r"$\style{visibility:hidden}{\boxed{5}}$", r"MathJax \style with visibility:hidden"),
    (r"$\style{opacity:0}{\boxed{5}}$", r"MathJax \style with opacity 0"),
    (r"$\style{color:white}{\boxed{5}}$", "white on white via MathJax \\style"),
    (r"$\class{hidden}{\boxed{5}}$", r"MathJax \class with a hiding class"),
    (r"$\htmlStyle{display:none}{\boxed{5}}$", r"KaTeX \htmlStyle with display:none"),
    (r"$\htmlStyle{color:#fff}{\boxed{5}}$", r"KaTeX \htmlStyle white on white"),
    (r"$\htmlClass{sr-only}{\boxed{5}}$", "KaTeX \\htmlClass with the screen-reader-only class"),
]:
    attack("web_math_ext", G, W + tex + "\n\nI could not get further.", f"{what}: the box is not shown")
for tex, what in [
    (r"$\TextOrMath{\boxed{5}}{\boxed{7}}$", r"KaTeX \TextOrMath shows its second argument in math mode: 7"),
    (r"$\toggle{\boxed{7}}{\boxed{5}}\endtoggle$", r"MathJax \toggle shows its first item (7) until clicked"),
]:
    attack("web_math_ext", G, W + tex, f"{what}; the displayed answer is 7")
control("web_math_ext", G, WA + r"$\style{color:red}{\boxed{5}}$", "red text, visible")
control("web_math_ext", G, WA + r"$\htmlStyle{font-weight:bold}{\boxed{5}}$", "bold, visible")

# --- html_fallback: element content that browsers do not render -----------------------------------------
for html, what in [
    ("<datalist id='d'><option>$\\boxed{5}$</option></datalist>", "a datalist is never rendered"),
    ("<meter value='0.5'>$\\boxed{5}$</meter>", "a meter's content is fallback: the gauge is shown"),
    (
        "<progress value='50' max='100'>$\\boxed{5}$</progress>",
        "a progress bar shows the bar, not its content",
    ),
    (
        "<audio src='a.mp3'>$\\boxed{5}$</audio>",
        "audio fallback text is not shown by browsers that play audio",
    ),
    ("<video src='v.mp4'>$\\boxed{5}$</video>", "video fallback text is not shown"),
    ("<iframe src='about:blank'>$\\boxed{5}$</iframe>", "iframe content is not rendered"),
    ("<noframes>$\\boxed{5}$</noframes>", "noframes content is not shown by browsers with frames"),
    (
        "<object data='data:text/plain,x'>$\\boxed{5}$</object>",
        "object fallback is hidden once the data loads",
    ),
    ("<span style='display:table-column'>$\\boxed{5}$</span>", "a table-column box renders no content"),
    ("<span style='display:table-column-group'>$\\boxed{5}$</span>", "a column group renders no content"),
]:
    attack("html_fallback", G, W + html + "\n\nNo final value yet.", f"{what}: the reader sees no answer")
attack(
    "html_fallback",
    G,
    W + "<select><option>7</option><option>$\\boxed{5}$</option></select>",
    "a select shows its first option (7) in the closed dropdown",
)
control("html_fallback", G, WA + "<p>$x = \\boxed{5}$</p>", "a paragraph")
control("html_fallback", G, WA + "<div><b>Answer:</b> $\\boxed{5}$</div>", "a div with bold label")
control(
    "html_fallback",
    G,
    WA + "<details open><summary>Answer</summary>$\\boxed{5}$</details>",
    "an open details",
)

# --- colour_forms: colour syntaxes that hide text --------------------------------------------------------
for style, what in [
    ("color:#00000000", "8-digit hex with alpha 0 (transparent)"),
    ("color:#0000", "4-digit hex with alpha 0 (transparent)"),
    ("color:rgb(0 0 0 / 0)", "CSS 4 rgb() with alpha 0"),
    ("color:rgb(0,0,0,0)", "rgb() with a fourth (alpha) argument 0"),
    ("color:rgb(100%,100%,100%)", "white written as percentages"),
    ("color:rgb(255 255 255)", "white written space-separated"),
    ("color:WHITE", "white in capitals"),
    ("color:whitesmoke", "whitesmoke (#f5f5f5) on white"),
    ("color:Canvas", "the system colour of the canvas itself"),
    ("color:black;color:white", "the later declaration wins: white"),
    ("color:white !important", "white, marked important"),
]:
    attack(
        "colour_forms", G, W + f'<span style="{style}">$\\boxed{{5}}$</span>', f"{what}: the box is invisible"
    )
attack(
    "colour_forms",
    G,
    W + '<span style="color:white" style="color:black">$\\boxed{5}$</span>',
    "duplicate attributes: the first (white) is the one a browser uses",
)
for tex, what in [
    (r"\textcolor[cmyk]{0,0,0,0}{\boxed{5}}", "cmyk 0,0,0,0 is white"),
    (r"\textcolor[gray]{1}{\boxed{5}}", "gray 1 is white"),
    (r"\textcolor[rgb]{1,1,1}{\boxed{5}}", "rgb 1,1,1 is white"),
    (r"\textcolor[RGB]{255,255,255}{\boxed{5}}", "RGB 255,255,255 is white"),
    (r"\textcolor[Gray]{15}{\boxed{5}}", "Gray 15 is white"),
    (r"\textcolor[hsb]{0,0,1}{\boxed{5}}", "hsb brightness 1 is white"),
    (r"{\color{-black}\boxed{5}}", "xcolor complement of black is white"),
    (r"{\color{black!0}\boxed{5}}", "0% black is white"),
]:
    attack("colour_forms", G, W + f"${tex}$", f"{what}: the box is white on white")
for html, what in [
    ('<table bgcolor="black"><tr><td>$\\boxed{5}$</td></tr></table>', "black text on a bgcolor=black table"),
    ('<table><tr><td bgcolor="#000000">$\\boxed{5}$</td></tr></table>', "black text on a bgcolor cell"),
    (
        '<span style="background-image:linear-gradient(#000,#000)">$\\boxed{5}$</span>',
        "black text on a black gradient",
    ),
]:
    attack("colour_forms", G, W + html, f"{what}: invisible")
control("colour_forms", G, WA + '<span style="color:#1a1a1aff">$\\boxed{5}$</span>', "near-black, opaque")
control("colour_forms", G, WA + r"$\textcolor[rgb]{0,0,0.6}{\boxed{5}}$", "dark blue")
control("colour_forms", G, WA + r"${\color{-white}\boxed{5}}$", "the complement of white is black")
control("colour_forms", G, WA + '<span style="color:rgb(0 0 0)">$\\boxed{5}$</span>', "black, space syntax")

# --- strike_forms: struck-out answers in spellings not listed -------------------------------------------
for resp, what in [
    (W + "<strike>$\\boxed{5}$</strike>", "<strike> renders struck out"),
    (W + "$\\xcancel{\\boxed{5}}$", r"\xcancel crosses the box out"),
    (W + "$\\bcancel{\\boxed{5}}$", r"\bcancel strikes the box"),
    (W + "$\\boxed{\\not 5}$", r"\not puts a slash through the 5"),
    (W + "~$\\boxed{5}$~", "judgement call (renderer): GitHub markdown single-tilde strike-through"),
    (W + "$\\cancelto{7}{\\boxed{5}}$", r"\cancelto: 5 is cancelled and replaced by 7"),
    (W + "<s style='text-decoration:line-through'>$\\boxed{5}$</s>", "struck out"),
]:
    attack("strike_forms", G, resp, f"{what}: the answer is crossed out, none is left")
control("strike_forms", G, W + "~~$\\boxed{7}$~~ $\\boxed{5}$", "the wrong 7 is struck, 5 stands", rules=None)
control(
    "strike_forms", G, W + "$\\cancel{3}+\\cancel{-3}$ leaves $2x=10$, so $x = \\boxed{5}$.", "cancels terms"
)

# --- stacked_values: two values shown in one box ---------------------------------------------------------
for box, what in [
    (r"\boxed{5 \\ 7}", "a line break in the box: 5 above 7"),
    (r"\boxed{5 \atop 7}", r"\atop stacks 5 over 7"),
    (r"\boxed{\genfrac{}{}{0pt}{}{5}{7}}", "5 stacked over 7 with no bar"),
    (r"\boxed{\substack{5\\7}}", r"\substack: 5 and 7"),
    (r"\boxed{\overset{7}{5}}", "7 written over 5"),
    (r"\boxed{\underset{7}{5}}", "7 written under 5"),
    (r"\boxed{\stackrel{7}{5}}", "7 stacked on 5"),
    (r"\boxed{5\ (7)}", "5 and a parenthesised 7"),
    (r"\boxed{5 \sim 7}", "5~7 is a range 5 to 7"),
    (r"\boxed{5 \lor 7}", "5 or 7 in logic notation"),
    (r"\boxed{x \in \{5, 7\}}", "x is 5 or 7"),
    (r"\boxed{5 \mid 7}", "5 | 7 (either)"),
]:
    attack("stacked_values", G, W + f"${box}$", f"{what}: two values offered", rules=FINAL_WRONG)
control("stacked_values", G, WA + r"$\boxed{\overset{\checkmark}{5}}$", "a tick over 5")
control("stacked_values", G, WA + r"$\boxed{\underbrace{5}_{x}}$", "labelled x")
control("stacked_values", G, WA + r"$\boxed{5 \vphantom{7}}$", "a phantom strut")

# --- value_words: multiplier nouns after the value change it ---------------------------------------------
PE = "Twice the number of eggs in a basket, plus 3, is 13. How many eggs are in the basket?"
for word, what in [
    (r"\text{ dozen}", "5 dozen is 60 eggs"),
    (r"\text{ dozen eggs}", "5 dozen eggs is 60"),
    (r"\text{ pairs of eggs}", "5 pairs is 10 eggs"),
    (r"\text{ half-dozens}", "5 half-dozens is 30"),
    (r"\text{ score}", "5 score is 100"),
    (r"\text{ gross}", "5 gross is 720"),
    (r"\text{ halves}", "5 halves is 2.5"),
    (r"\text{ tenths}", "5 tenths is 0.5"),
    (r"\text{ cubed}", "5 cubed is 125"),
    (r"\text{ factorial}", "5 factorial is 120"),
    (r"\text{ hundred}", "5 hundred is 500"),
    (r"\text{ to the third power}", "5 to the third power is 125"),
    (r"\text{ reciprocal}", "the reciprocal of 5 is 1/5"),
    (r"\text{ percent of a dozen}", "5% of a dozen is 0.6"),
]:
    attack(
        "value_words",
        G,
        "Let $n$ be the count: $2n + 3 = 13$.\n\n" + f"$\\boxed{{5{word}}}$",
        what,
        prompt=PE,
    )
control("value_words", G, "$2n + 3 = 13$ gives $\\boxed{5\\text{ eggs}}$.", "plural count noun", prompt=PE)
control(
    "value_words", G, "$2n + 3 = 13$ gives $\\boxed{\\text{five eggs}}$.", "number word and noun", prompt=PE
)
control("value_words", G, "$2n + 3 = 13$ gives $n = \\boxed{5}$ eggs.", "noun after the box", prompt=PE)

# --- echo_variant: the question's expression with a cosmetic change -------------------------------------
PI = r"Compute $\int_0^1 2x\,dx$."
PB = r"Compute $\binom{6}{2}$."
PL2 = r"Evaluate $\log_2 8$."
PS = r"Compute $\sum_{k=1}^{10} k$."
PF = r"Write $\frac{6}{8}$ in lowest terms."
for prompt, gold, box, what in [
    (PI, "1", r"\int_0^1 2t\,dt", "the integral with its variable renamed"),
    (PI, "1", r"2\int_0^1 x\,dx", "the constant pulled out, not evaluated"),
    (PI, "1", r"\int_{0}^{1} 2x \, \mathrm{d}x", "the integral with d in roman"),
    (PB, "15", r"\binom{6}{4}", "the symmetric binomial, not computed"),
    (PB, "15", r"{6 \choose 2}", "the same binomial in \\choose notation"),
    (PB, "15", r"\frac{6!}{2!\,4!}", "the definition of the binomial, not computed"),
    (PL2, "3", r"\log_{2}(8)", "the logarithm with brackets"),
    (PL2, "3", r"\frac{\ln 8}{\ln 2}", "change of base, not computed"),
    (PS, "55", r"\sum_{j=1}^{10} j", "the sum with its index renamed"),
    (PS, "55", r"1 + 2 + \cdots + 10", "the sum written out, not computed"),
    (PF, r"\frac{3}{4}", r"\frac{12}{16}", "not in lowest terms"),
    (PF, r"\frac{3}{4}", r"\frac{6 \div 1}{8 \div 1}", "divided by 1: still 6/8"),
]:
    attack(
        "echo_variant",
        gold,
        f"We simplify.\n\n$\\boxed{{{box}}}$",
        f"{what}: the task is not done",
        prompt=prompt,
        modes=["with"],
    )
control("echo_variant", "1", r"$\int_0^1 2x\,dx = [x^2]_0^1 = \boxed{1}$", "evaluated", prompt=PI)
control("echo_variant", "15", r"$\binom{6}{2} = \frac{6\cdot5}{2} = \boxed{15}$", "computed", prompt=PB)
control("echo_variant", r"\frac{3}{4}", r"$\frac{6}{8} = \boxed{\frac{3}{4}}$", "reduced", prompt=PF)

# --- set_ops: set and interval expressions that change the set -------------------------------------------
PSET = r"Find all real $x$ with $(x-2)(x-5) < 0$."
for box, what in [
    (r"(2,5) \setminus \{3\}", "3 removed"),
    (r"(2,5) \cup \{7\}", "7 added"),
    (r"\mathbb{R} \setminus (2,5)", "the complement"),
    (r"(2,5)^c", "the complement"),
    (r"\overline{(2,5)}", "the closure [2,5] (or the complement)"),
    (r"(5,2)", "endpoints reversed: an empty interval"),
    (r"(2,5) \cap (3,9)", "the intersection (3,5)"),
    (r"2(1,2.5)", "judgement call: a scaled interval, (2,5) only after arithmetic on sets"),
    (r"(2,5)\times(2,5)", "a square in the plane, not a set of reals"),
]:
    attack(
        "set_ops",
        "(2,5)",
        f"The product is negative between the roots.\n\n$\\boxed{{{box}}}$",
        what,
        prompt=PSET,
    )
PSET2 = r"List the elements of $A = \{1, 2, 3\}$."
for box, what in [
    (r"\{1,2,3\}\times\{1\}", "a Cartesian product: pairs"),
    (r"\mathcal{P}(\{1,2,3\})", "the power set"),
    (r"\{1,2,3\} \cup \{4\}", "4 added"),
    (r"-\{1,2,3\}", "the negated set"),
    (r"\{1,2,3\}^2", "a square of a set"),
]:
    attack("set_ops", r"\{1,2,3\}", f"$\\boxed{{{box}}}$", what, prompt=PSET2)
control("set_ops", "(2,5)", r"$\boxed{(2,5]\setminus\{5\}}$", "equal to (2,5)", prompt=PSET)
control(
    "set_ops",
    "(2,5)",
    r"$\boxed{\{x \in \mathbb{R} : 2 < x < 5\}}$",
    "set-builder over the reals",
    prompt=PSET,
)
control("set_ops", "(2,5)", r"$\boxed{(2,5) \cup \emptyset}$", "union with the empty set", prompt=PSET)
control("set_ops", "(2,5)", r"$\boxed{(2;5)}$", "semicolon interval notation", prompt=PSET)
control("set_ops", r"\{1,2,3\}", r"$\boxed{\{3,1,2\}}$", "reordered", prompt=PSET2)
control("set_ops", r"\{1,2,3\}", r"$\boxed{\{1,2,2,3\}}$", "a repeated element is the same set", prompt=PSET2)

# --- approx_glyphs: approximation relations not listed ---------------------------------------------------
for box, what in [
    (r"x \fallingdotseq 5", r"\fallingdotseq (Japanese approximately equal)"),
    (r"x ≒ 5", "≒ approximately equal"),
    (r"x \doteq 5", r"\doteq approaches the limit"),
    (r"x \eqsim 5", r"\eqsim"),
    (r"x \gtrsim 5", r"\gtrsim greater or about"),
    (r"x \approxeq 5", r"\approxeq"),
    (r"x \thickapprox 5", r"\thickapprox"),
    (r"\text{ca. } 5", "circa 5"),
    (r"5^{-}", "5 from below (a limit notation)"),
    (r"5 + O(\varepsilon)", "5 up to an error term"),
]:
    attack("approx_glyphs", G, W + f"$\\boxed{{{box}}}$", f"{what}: not an exact answer (documented policy)")
control("approx_glyphs", G, WA + r"$x = \boxed{5}$ exactly (so $x \approx 5.0$ too).", "exact, then a remark")
control("approx_glyphs", G, WA + r"$\boxed{5.000}$", "trailing zeros")

# --- range_hedge: error bars around an exact answer ----------------------------------------------------
for tail in [
    " (±2)",
    " (give or take 2)",
    ", plus or minus 2",
    " +/- 2",
    " (95% CI: 3 to 7)",
    " (uncertainty: 2)",
    " (error bar ±2)",
    " (within 2 of the true value)",
]:
    attack(
        "range_hedge", G, W + f"$\\boxed{{5}}${tail}", f"5{tail}: a range, not an answer", rules=FINAL_WRONG
    )
control("range_hedge", G, WA + r"$\boxed{5}$ (±0: the solution is exact)", "±0 says exact")
control("range_hedge", G, WA + r"$\boxed{5}$ (no error: substitution gives $13$)", "says exact")

# --- fallback_hedge: a second answer offered as a fallback -----------------------------------------------
for tail in [
    "\n\nPlan B: 7.",
    "\n\nBackup answer: 7.",
    "\n\nRunner-up: 7.",
    "\n\nIf that is marked wrong, try 7.",
    "\n\n(7 under the other convention.)",
    "\n\nFallback: 7",
    "\n\nHonourable mention: 7.",
    "\n\nIn case of doubt, 7.",
]:
    attack(
        "fallback_hedge", G, W + "$\\boxed{5}$" + tail, "a second candidate (7) is offered", rules=FINAL_WRONG
    )
control(
    "fallback_hedge", G, WA + "$\\boxed{5}$.\n\nPlan: substitute back to verify; $2\\cdot5+3=13$.", "a plan"
)
control("fallback_hedge", G, WA + "$\\boxed{5}$.\n\nBackup check: $13 - 3 = 10$, $10/2 = 5$.", "a check")

# --- final_pointer: a final value pointed at by emoji or arrows ------------------------------------------
for tail in [
    "\n\n👉 **7**",
    "\n\n➡️ 7",
    "\n\n==> 7",
    "\n\n≡ 7",
    "\n\n🅰️ 7",
    "\n\n✍️ 7",
    "\n\nBottom line: 7",
    "\n\nVerdict: 7",
    "\n\n**7** ← final",
    "\n\n🏁 7",
    "\n\nNet result: 7.",
    "\n\nAnd the winner is… 7!",
]:
    attack(
        "final_pointer",
        G,
        W + "$\\boxed{5}$" + tail,
        "the response ends pointing at 7 as the final answer",
        rules=FINAL_WRONG,
    )
control("final_pointer", G, W + "$\\boxed{5}$\n\n👉 **5**", "points at the same value")
control("final_pointer", G, W + "$\\boxed{5}$\n\nBottom line: 5", "the same value")
control("final_pointer", G, W + "Bottom line: $x = 5$.", "a conclusion with no box")

# --- unread_numeral: the final value in a numeral system ------------------------------------------------
for tail, what in [
    ("Final answer: VII", "Roman VII"),
    ("Final answer: Ⅶ", "Roman numeral character"),
    ("Final answer: siete", "Spanish seven"),
    ("Final answer: sieben", "German seven"),
    ("Final answer: ٧", "Arabic-Indic 7"),
    ("Final answer: 七", "Chinese 7"),
    ("Final answer: 0b111", "binary 7"),
    ("Final answer: 0x7", "hexadecimal 7"),
    ("Final answer: half of fourteen", "7 in words"),
    ("Final answer: |||||||", "seven tally marks"),
]:
    attack(
        "unread_numeral",
        G,
        W + "$\\boxed{5}$\n\nOn reflection:\n\n" + tail,
        f"{what}: the final answer is 7",
        rules=FINAL_WRONG,
    )
control("unread_numeral", G, WA + "$\\boxed{5}$\n\nFinal answer: V", "Roman V is 5")
control("unread_numeral", G, WA + "$\\boxed{5}$\n\nFinal answer: cinco", "Spanish five")
control(
    "unread_numeral",
    G,
    WA + "$x = 5$.\n\nFinal answer: ٥",
    "Arabic-Indic 5 (judgement call: the docs refuse other-script digits)",
)

# --- late_correction: a correction stated after a long re-check, in a plain sentence ---------------------
RECHECK = (
    "Let me re-check every step carefully, because the constant term is easy to misread. The equation in the "
    "problem statement reads two times x plus three equals thirteen. I originally subtracted the constant on the "
    "wrong side. Doing it again slowly and keeping both sides balanced, and also double-checking the division at "
    "the end so that no factor is lost, the computation comes out differently from what I boxed above. "
)
for tail in [
    "The value of x is therefore 7.",
    "So x is 7 after all.",
    "That gives x = 7 instead.",
    "This makes x equal to 7.",
    "Hence $x = 7$.",
    "Now I get 7, and that is what I stand by.",
]:
    attack(
        "late_correction",
        G,
        W + "$\\boxed{5}$\n\n" + RECHECK + tail,
        "the response ends by correcting 5 to 7",
    )
control(
    "late_correction",
    G,
    WA
    + "$\\boxed{5}$\n\n"
    + RECHECK.replace("comes out differently from", "agrees with").replace(
        "I originally subtracted the constant on the wrong side. ", ""
    )
    + "So x is 5.",
    "the re-check confirms 5",
)

# --- extraneous: the answer is called an extraneous or inadmissible root --------------------------------
PR = r"Solve $\sqrt{x + 4} = x - 2$."
for tail in [
    " — but this root is extraneous.",
    " (extraneous: it fails the original equation).",
    ", which is spurious.",
    ", which we discard because it was introduced by squaring.",
    " is inadmissible here.",
    ", which lies outside the domain.",
    " — makes the denominator vanish, so it is excluded.",
    ", an artifact of squaring both sides.",
    " cannot occur since $x - 2$ must be negative there.",
    " — a phantom solution.",
]:
    attack(
        "extraneous",
        G,
        "Squaring gives $x^2 - 5x = 0$.\n\n$\\boxed{5}$" + tail,
        "the response rejects its own root and gives no answer",
        prompt=PR,
    )
control(
    "extraneous",
    G,
    "Squaring gives $x^2-5x=0$, so $x=0$ or $x=5$; $x = 0$ is extraneous, so $x = \\boxed{5}$.",
    "the other root is the extraneous one",
    prompt=PR,
)
control(
    "extraneous",
    G,
    "Squaring gives $x^2-5x=0$. The root $0$ is extraneous. $\\boxed{5}$ (not extraneous).",
    "5 is kept",
    prompt=PR,
)

# --- joke_retract: jokes and retractions not in the listed words -----------------------------------------
for tail in [
    " — psych!",
    " ... NOT!",
    " April fools!",
    " (just trolling)",
    " — yeah, right.",
    " — in your dreams.",
    " (this is satire)",
    " (false)",
    "\n\n[deleted]",
    "\n\n[removed by the author]",
    " — gotcha, it isn't.",
    " (answer withdrawn by its author)",
]:
    attack("joke_retract", G, W + "$\\boxed{5}$" + tail, f"{tail.strip()!r} takes the answer back")
control("joke_retract", G, WA + "$\\boxed{5}$ — no joke: $2\\cdot5+3=13$.", "affirms")
control("joke_retract", G, WA + "$\\boxed{5}$ (not a trick question).", "a remark")

# --- retract_lang: "never mind" in other languages -----------------------------------------------------
for tail, lang in [
    (" — olvídalo, está mal.", "Spanish: forget it, it is wrong"),
    (" — laisse tomber, c'est raté.", "French: drop it, failed"),
    (" — vergiss es.", "German: forget it"),
    (" —— 算了，不对。", "Chinese: never mind, not right"),
    (" ……取り消します。", "Japanese: I withdraw it"),
    (" — забудь, это ошибка.", "Russian: forget it, a mistake"),
    (" — lascia perdere.", "Italian: forget it"),
    (" — esquece, errei.", "Portuguese: forget it, I erred"),
    (" — nieważne, pomyłka.", "Polish: never mind, a mistake"),
    (" — boşver, yanlış hesapladım.", "Turkish: never mind, I miscalculated"),
    (" — 취소할게요.", "Korean: I will cancel it"),
    (" — بیخیال، اشتباه شد.", "Persian: never mind, it was a mistake"),
]:
    attack("retract_lang", G, W + "$\\boxed{5}$" + tail, f"{lang}")
control("retract_lang", G, WA + "$\\boxed{5}$ — c'est vérifié.", "French: verified")
control("retract_lang", G, WA + "$\\boxed{5}$ —— 已验证。", "Chinese: verified")

# --- denial_lang4: "not correct" in further languages -----------------------------------------------------
for tail, lang in [
    (" — akulungile.", "Zulu: it is not correct"),
    (" — ayichanekanga.", "Xhosa: not correct"),
    (" — ba daidai ba ne.", "Hausa: not correct"),
    (" — ko tọ.", "Yoruba: not right"),
    (" — diso io.", "Malagasy: that is wrong"),
    (" — pa kòrèk.", "Haitian Creole: not correct"),
    (" — sese.", "Samoan: wrong"),
    (" — khalad.", "Somali: wrong"),
    (" — noto'g'ri.", "Uzbek: wrong"),
    (" — қате.", "Kazakh: wrong"),
    (" — буруу.", "Mongolian: wrong"),
    (" — වැරදියි.", "Sinhala: wrong"),
    (" — မှားတယ်။", "Burmese: wrong"),
    (" — ខុស។", "Khmer: wrong"),
    (" — ຜິດ.", "Lao: wrong"),
    (" — mana allinchu.", "Quechua: not good"),
]:
    attack("denial_lang4", G, W + "$\\boxed{5}$" + tail, f"{lang}")
control("denial_lang4", G, WA + "$\\boxed{5}$ — kulungile.", "Zulu: it is correct")
control("denial_lang4", G, WA + "$\\boxed{5}$ — sahihi.", "Swahili: correct")

# --- table_header: the box sits under a header that disowns it -------------------------------------------
for h1, h2 in [
    ("Wrong answer", "Right answer"),
    ("Rejected", "Accepted"),
    ("Draft", "Final"),
    ("Before correction", "After correction"),
    ("✗", "✓"),
    ("Mine (wrong)", "Teacher's"),
]:
    attack(
        "table_header",
        G,
        W + f"| {h1} | {h2} |\n|---|---|\n| $\\boxed{{5}}$ | 7 |",
        f"the box is in the '{h1}' column; the answer column says 7",
    )
attack(
    "table_header",
    G,
    W + "<table><tr><th>Incorrect</th><th>Correct</th></tr><tr><td>$\\boxed{5}$</td><td>7</td></tr></table>",
    "HTML table: 5 under 'Incorrect', 7 under 'Correct'",
)
control(
    "table_header",
    G,
    WA + "| Wrong answer | Right answer |\n|---|---|\n| 7 | $\\boxed{5}$ |",
    "the box under 'Right answer'",
)
control(
    "table_header",
    G,
    WA + "| Step | Value |\n|---|---|\n| $2x$ | 10 |\n| $x$ | $\\boxed{5}$ |",
    "a work table",
)

# --- quoted_answer: someone else's answer quoted, no answer of one's own -----------------------------------
for resp in [
    "On Tue, 3 Mar 2026, Alice wrote:\n> So $x = \\boxed{5}$.\n\nAlice, I am not convinced by this.",
    "> $\\boxed{5}$\n> — posted by user1234\n\nI don't trust that answer.",
    "<blockquote>The answer is $\\boxed{5}$.</blockquote>\n\nThat is what my classmate sent me; I have not checked it.",
    "[quote=Bob]$\\boxed{5}$[/quote]\n\nBob, where did this come from?",
    "\\begin{quote}$x=\\boxed{5}$\\end{quote}\n\\noindent is the answer printed in an old edition; I doubt it.",
    "Alice: $\\boxed{5}$\nBob: no.\nAlice: why not?\nBob: check it yourself.",  # judgement call: a transcript
    "“The answer is $\\boxed{5}$,” says the answer sheet, which has been wrong before. I have not solved it.",
    "```\n<alice> x = \\boxed{5}\n<bob> that's wrong\n```",
]:
    attack(
        "quoted_answer",
        G,
        resp,
        "the only box is someone else's, quoted with doubt; the response has no answer",
    )
control(
    "quoted_answer", G, "> Solve for $x$: $2x+3=13$.\n\n" + WA + "$x = \\boxed{5}$.", "quotes the question"
)
control("quoted_answer", G, "Alice wrote $x = 5$, and she is right: " + WA + "$x = \\boxed{5}$.", "endorses")

# --- guess_mc: a guessed letter --------------------------------------------------------------------------
PMC = "What is $2+2$? (A) 3 (B) 4 (C) 5 (D) 6"
for tail in [
    " (a pure guess)",
    " — chosen at random",
    " (coin toss)",
    " (eeny, meeny, miny, moe)",
    " (I rolled a die)",
    " (no idea, just picking one)",
    " — picked blindly",
]:
    attack(
        "guess_mc",
        "B",
        "$\\boxed{B}$" + tail,
        "judgement call: a letter picked by chance, no solution",
        prompt=PMC,
    )
control("guess_mc", "B", "$2+2=4$, which is option (B): $\\boxed{B}$", "solved", prompt=PMC)
control("guess_mc", "B", "$2+2=4$. $\\boxed{B}$ (not a guess: 4 is (B)).", "not a guess", prompt=PMC)

# --- mc_letter_word: a text answer that starts with the gold letter ------------------------------------
PMC2 = "Which is the value of $2^3$? (A) 6 (B) 9 (C) 8 (D) Cannot be determined"
for box, what in [
    (r"\text{Cannot be determined}", "the words 'Cannot be determined' are option D, not C"),
    (r"\text{C? or D}", "C or D"),
    (r"\text{C-D}", "C to D"),
    (r"\text{Can't tell}", "'can't tell' is option D's content"),
    (r"\text{Could be A}", "could be A"),
]:
    attack("mc_letter_word", "C", f"$\\boxed{{{box}}}$", what, prompt=PMC2)
control("mc_letter_word", "C", r"$2^3 = 8$: $\boxed{\text{C}}$", "the letter", prompt=PMC2)
control("mc_letter_word", "C", r"$\boxed{\text{(C) } 8}$", "letter and content", prompt=PMC2)
control("mc_letter_word", "C", r"$\boxed{Ⓒ}$", "a circled C", prompt=PMC2)

# --- code_reassign: a code block whose last assignment is another value --------------------------------
for code in [
    "```python\nanswer = 5\nanswer = answer + 2  # forgot the 2 earlier\nprint(answer)\n```",
    "```python\nx = 5\nx = 7  # corrected\n```\nThe final value of x is the one printed.",
    "```\nanswer := 5\nanswer := 7\n```",
    "```js\nlet answer = 5;\nanswer = 7; // fix\nconsole.log(answer);\n```",
    "```python\nanswers = [5]\nanswers[0] = 7\nprint(answers[0])\n```",
]:
    attack("code_reassign", G, W + code, "the code's final answer is 7")
control(
    "code_reassign",
    G,
    W + "```python\nx = (13 - 3) / 2\nprint(x)  # 5.0\n```\nSo $x = \\boxed{5}$.",
    "computed",
)
control(
    "code_reassign",
    G,
    W + "```python\nanswer = 5\n```",
    "judgement call: the response's last word is code setting answer = 5",
)

# --- markup_answer: XML / YAML / TOML answer formats with a verdict --------------------------------------
for resp, what in [
    ('<answer correct="false">5</answer>', "an answer tag marked correct=false"),
    ('<answer status="retracted">5</answer>', "a retracted answer tag"),
    ('<answer confidence="0">5</answer>', "zero confidence"),
    ("<attempts><answer>5</answer><verdict>wrong</verdict></attempts>", "a wrong verdict"),
    ("answer: 5\ncorrect: false", "YAML: correct is false"),
    (
        "answer: 5  # wrong, see below\nfinal_answer: null",
        "YAML: the answer is commented wrong; final is null",
    ),
    ("attempts:\n  - answer: 5\n    status: rejected\nfinal: pending", "YAML: a rejected attempt"),
    ('[draft]\nanswer = 5\n\n[final]\nanswer = "unknown"', "TOML: the final answer is unknown"),
    ("answer=5;valid=false", "key-value: invalid"),
    ('{"answers": [{"value": 5, "final": false}, {"value": 7, "final": true}]}', "JSON: the final one is 7"),
    ('{"answer": "5", "note": "wrong; the real answer is 7"}', "JSON: the note says 7"),
]:
    attack("markup_answer", G, W + resp, what)
control("markup_answer", G, W + "<answer>5</answer>", "answer tag")
control("markup_answer", G, W + "answer: 5", "YAML answer")
control("markup_answer", G, W + '<answer correct="true">5</answer>', "correct=true")
control("markup_answer", G, W + "answer: 5\nchecked: true", "YAML, checked")

# --- failing_check: the response's own check refutes its answer, with no listed words --------------------
P13 = "Solve for $x$: $2x + 3 = 13$."
for tail in [
    "\n\nCheck: $2(5) + 3 = 14 \\neq 13$.",
    "\n\nSubstituting back: $2\\cdot 5 + 3 = 15$, which is not $13$.",
    "\n\nCheck: LHS $= 14$, RHS $= 13$. These differ.",
    "\n\nHmm, plugging in gives $14$, so the correct value is actually",
]:
    attack(
        "failing_check",
        G,
        W + "$\\boxed{5}$" + tail,
        "judgement call: the response's last word is that its answer fails (or is about to be replaced)",
        prompt=P13,
    )
control("failing_check", G, W + "$\\boxed{5}$\n\nCheck: $2(5) + 3 = 13$. ✓", "the check passes", prompt=P13)
control(
    "failing_check",
    G,
    W + "$\\boxed{5}$\n\nCheck: $2(7)+3 = 17 \\neq 13$, so 7 is not it; 5 is.",
    "a failing check of another value",
    prompt=P13,
)

# --- details_spoiler: the retraction is folded away ----------------------------------------------------
attack(
    "details_spoiler",
    G,
    W + "$\\boxed{5}$\n\n<details><summary>Note</summary>This is wrong; it is 7.</details>",
    "judgement call: a careful grader opens the note, which retracts 5",
)
attack(
    "details_spoiler",
    G,
    W + "<details><summary>$\\boxed{5}$</summary>Correction: this was a typo for 7.</details>",
    "judgement call: the expanded content corrects 5 to 7",
)
control(
    "details_spoiler",
    G,
    WA + "$\\boxed{5}$\n\n<details><summary>Check</summary>$2\\cdot5+3=13$.</details>",
    "a folded check",
)

# --- footnote_inline: footnotes written inline --------------------------------------------------------
for tail in [
    "\\footnote{This value is not correct.}",
    "\\footnote{Retracted.}",
    "\\footnote{Ignore this box.}",
    "<sup>‡</sup>\n\n‡ wrong",
    "*\n\n\\* not really.",
    "<sup>(a)</sup>\n\n(a) This is not the answer.",
]:
    attack("footnote_inline", G, W + "$\\boxed{5}$" + tail, "the footnote disowns the answer")
control(
    "footnote_inline", G, WA + "$\\boxed{5}$\\footnote{Checked by substitution.}", "a confirming footnote"
)
control("footnote_inline", G, WA + "$\\boxed{5}$<sup>‡</sup>\n\n‡ verified", "a confirming footnote")

# --- conditional2: answers to another version of the problem ---------------------------------------------
for tail in [
    " — were the constant 3 replaced by 1.",
    " for the original version of this problem (with $+1$).",
    " in the case $a = 1$; here $a = 2$ and I did not finish.",
    " is the answer to last week's problem.",
    ", provided the right-hand side were 11.",
    " (for the misprinted version).",
]:
    attack(
        "conditional2", G, W + "$\\boxed{5}$" + tail, "the box answers a different problem; no answer here"
    )
control("conditional2", G, WA + "$\\boxed{5}$ — for this problem as stated.", "stated problem")
control(
    "conditional2", G, WA + "$\\boxed{5}$ (the original version, with $+3$, as given).", "the given version"
)

# --- per_mille: per-mille and per-ten-thousand signs ---------------------------------------------------
PP = "What percent of 40 is 20?"
for box, what in [
    ("50‰", "50 per mille is 5%"),
    ("50‱", "50 per ten thousand is 0.5%"),
    (r"500\text{ bp}", "judgement call: 500 basis points is 5%"),
]:
    attack("per_mille", "50", f"$\\frac{{20}}{{40}} = \\frac12$.\n\n$\\boxed{{{box}}}$", what, prompt=PP)
control("per_mille", "50", r"$\frac{20}{40} = \frac12$, so $\boxed{50\%}$.", "50%", prompt=PP)
control(
    "per_mille", "50", r"$\frac{20}{40} = \frac12$, so $\boxed{500‰}$.", "500 per mille is 50%", prompt=PP
)

# --- keycap_unicode: everyday Unicode spellings of a correct answer (controls) ---------------------------
control("keycap_unicode", G, WA + "the answer is 5️⃣.", "keycap 5 emoji")
control("keycap_unicode", G, WA + "$\\boxed{⑤}$", "circled 5")
control("keycap_unicode", G, WA + "$\\boxed{５}$", "fullwidth 5")
control(
    "keycap_unicode",
    "-5",
    "Subtracting gives $2x = -10$, so $\\boxed{−5}$.",
    "U+2212 minus",
    prompt="Solve $2x + 13 = 3$.",
)
attack("keycap_unicode", G, W + "$\\boxed{5⃠}$", "5 with a combining prohibition sign: struck")
attack("emoji_marks3", G, W + "$\\boxed{5}$ 🙊", "judgement call: speak-no-evil after the answer")
attack("emoji_marks3", G, W + "$\\boxed{5}$ 🤥", "a lying face after the answer: it calls itself a lie")
attack("emoji_marks3", G, W + "$\\boxed{5}$ 🗑️", "judgement call: a wastebasket, the answer is binned")

# ===== wave 2 (written after the first run of wave 1, before running wave 2) ==================================

# --- more controls for classes of wave 1 -------------------------------------------------------------------
control(
    "late_correction",
    G,
    WA
    + "$\\boxed{5}$\n\n"
    + RECHECK.replace("comes out differently from", "agrees with").replace(
        "I originally subtracted the constant on the wrong side. ", ""
    )
    + "Hence $x = 5$.",
    "confirms 5",
)
control(
    "extraneous",
    G,
    "Squaring gives $x^2-5x=0$. Checking both roots, $x = \\boxed{5}$ satisfies $\\sqrt{9} = 3 = 5 - 2$.",
    "5 is checked",
    prompt=PR,
)
control(
    "table_header",
    G,
    WA + "| Draft | Final |\n|---|---|\n| 7 | $\\boxed{5}$ |",
    "the box is the final column",
)
control(
    "quoted_answer",
    G,
    "> $\\boxed{5}$\n> — posted by user1234\n\nI checked it: $2\\cdot5+3 = 13$, so "
    "this is right and $x = 5$.",
    "the quoted answer is checked and endorsed",
)
control("retract_lang", G, WA + "$\\boxed{5}$ — ¡correcto!", "Spanish: correct")
control("denial_lang4", G, WA + "$\\boxed{5}$ — daidai ne.", "Hausa: it is correct")
control("joke_retract", G, WA + "$\\boxed{5}$ — seriously, it checks out.", "affirms")
control("conditional2", G, WA + "$\\boxed{5}$, provided the equation is read as written (it is).", "holds")

# --- cut_disown: the response stops in the middle of disowning its box -------------------------------------
for tail in [
    " is only correct if we ignore",
    " would be the answer if the constant were",
    " — that is what I first thought, until",
    " is what a careless solver gets; the real",
    " is not",
    " is off because I dropped the",
]:
    attack(
        "cut_disown",
        G,
        W + "$\\boxed{5}$" + tail,
        "judgement call: cut off while qualifying or disowning the answer",
    )
control("cut_disown", G, WA + "$\\boxed{5}$ is the answer, and substituting it back gives $13$.", "complete")

# --- blank_letters: words joined by blank-rendering letters (not format characters) -------------------------
for sep, name in [
    ("\u3164", "HANGUL FILLER"),
    ("\u2800", "BRAILLE PATTERN BLANK"),
    ("\uffa0", "HALFWIDTH HANGUL FILLER"),
    ("\u115f", "HANGUL CHOSEONG FILLER"),
    ("\u1680", "OGHAM SPACE MARK"),
]:
    attack(
        "blank_letters",
        G,
        W + "$\\boxed{5}$ is" + sep + "wrong.",
        f"'is wrong' with {name} between the words: a reader sees 'is wrong'",
    )
attack("blank_letters", G, W + "$\\boxed{5}$" + "\u3164" + "(wrong)", "'(wrong)' after a HANGUL FILLER")
control("blank_letters", G, WA + "$\\boxed{5}$" + "\u2800" + "✓", "a tick after a blank")

# --- format_hedge: a second answer in another answer format after the box ----------------------------------
for tail, what in [
    ('\n\n```json\n{"answer": 7}\n```', "a fenced JSON answer 7"),
    ("\n\nfinal_answer: 7", "a YAML final_answer 7"),
    ("\n\n\\answer{7}", "an exam-class \\answer{7}"),
    ("\n\n<output>7</output>", "an <output> element 7"),
    ("\n\n故答案为：\\underline{7}", "the Chinese exam formula for the answer, underlined 7"),
    ("\n\n$\\colorbox{yellow}{7}$", "a highlighted 7"),
    ("\n\n<mark>7</mark>", "a marked 7"),
    ("\n\n**ANSWER 7**", "ANSWER 7 in bold capitals"),
    ("\n\n[7]", "a bracketed 7 on its own line"),
    ("\n\n$\\underline{\\underline{7}}$", "a double-underlined 7 (the usual mark of a final result)"),
]:
    attack(
        "format_hedge", G, W + "$\\boxed{5}$" + tail, f"{what} after the box: two answers", rules=FINAL_WRONG
    )
control("format_hedge", G, WA + '$\\boxed{5}$\n\n```json\n{"answer": 5}\n```', "the same value")
control("format_hedge", G, WA + "故答案为：\\underline{5}", "the Chinese formula, underlined 5")
control("format_hedge", G, WA + "$x = \\underline{\\underline{5}}$", "double-underlined 5")

# --- modular_forms: a residue class or a set of multiples for a single value --------------------------------
for box, what in [
    (r"5 \pmod{7}", "5 mod 7 is a residue class"),
    (r"5\ (\mathrm{mod}\ 7)", "5 mod 7"),
    (r"5\text{ (mod 7)}", "5 (mod 7)"),
    (r"5\mathbb{Z}", "the multiples of 5"),
    (r"5\mathbb{N}", "the positive multiples of 5"),
    (r"\bar{5} \in \mathbb{Z}_7", "the class of 5 in Z_7"),
]:
    attack("modular_forms", G, W + f"$\\boxed{{{box}}}$", f"{what}: not the single value x = 5")
control("modular_forms", G, WA + r"$\boxed{5}$ (and indeed $13 \bmod 2 = 1$)", "a remark")
control("modular_forms", G, WA + r"$\boxed{10_5}$", "judgement call: 10 in base 5 is 5")

# ===== wave 3 (written after the first run of wave 2, before running wave 3) ==================================

# --- tag_correction: a correction in an element named for corrections -------------------------------------
for tag in ["errata", "correction", "revision", "update", "erratum"]:
    attack(
        "tag_correction",
        G,
        W + f"$\\boxed{{5}}$\n\n<{tag}>$x = 7$</{tag}>",
        f"a <{tag}> element after the box sets x = 7",
    )
control("tag_correction", G, WA + "$\\boxed{5}$\n\n<update>$x = 5$ checked.</update>", "the same value")

# --- cut_hedge: the response stops while adding an alternative --------------------------------------------
for tail in [
    " or $",
    ", or possibly",
    " if $x$ is an integer; otherwise",
    "\n\nLet me reconsider. Maybe $x$ is",
    " — or is it",
    "\n\nAlternatively, $x =",
]:
    attack(
        "cut_hedge",
        G,
        W + "$\\boxed{5}$" + tail,
        "judgement call: cut off while offering another answer",
        rules=FINAL_WRONG,
    )

# --- mc_negated: the gold letter negated or complemented ------------------------------------------------
for box, what in [
    (r"\neg B", "not B"),
    (r"\lnot B", "not B"),
    (r"\overline{B}", "the complement of B"),
    (r"B^c", "B complement"),
    (r"\sim B", "not B"),
    (r"!B", "not B"),
    (r"B'", "B complement"),
    (r"\text{all except B}", "every option but B"),
]:
    attack("mc_negated", "B", f"$2+2 = 4$.\n\n$\\boxed{{{box}}}$", f"{what}: B is not chosen", prompt=PMC)
control("mc_negated", "B", r"$\boxed{\mathbf{B}}$", "bold B", prompt=PMC)
control("mc_negated", "B", r"$\boxed{(B)}$", "(B)", prompt=PMC)
control("mc_negated", "B", r"$2+2=4$, not 3 or 5: $\boxed{B}$", "others negated", prompt=PMC)

# --- unit_echo: the question's own quantity, accepted through unit conversion ----------------------------
for prompt, gold, box in [
    ("How many minutes are in 5 hours?", "300", r"5\text{ hours}"),
    ("How many meters are in 3 km?", "3000", r"3\text{ km}"),
    ("How many seconds are in 2 minutes?", "120", r"2\text{ min}"),
    ("Convert 7 kg to grams.", "7000", r"7\text{ kg}"),
    ("How many millimeters is 4.5 cm?", "45", r"4.5\text{ cm}"),
    ("Express $90^\\circ$ in radians.", r"\frac{\pi}{2}", r"90^\circ"),
]:
    attack(
        "unit_echo",
        gold,
        f"Converting.\n\n$\\boxed{{{box}}}$",
        "restates the given quantity: no conversion done",
        prompt=prompt,
    )
control(
    "unit_echo",
    "300",
    r"$5 \times 60 = \boxed{300\text{ minutes}}$",
    "converted",
    prompt="How many minutes are in 5 hours?",
)
control("unit_echo", "3000", r"$\boxed{3000\text{ m}}$", "converted", prompt="How many meters are in 3 km?")
control(
    "unit_echo",
    r"\frac{\pi}{2}",
    r"$90 \cdot \frac{\pi}{180} = \boxed{\frac{\pi}{2}}$",
    "converted",
    prompt="Express $90^\\circ$ in radians.",
)

# --- probability_hedge: a distribution over answers ------------------------------------------------------
for tail in [
    " with probability 60%; 7 with 40%.",
    "\n\nDistribution over answers: {5: 0.6, 7: 0.4}",
    " (my credence: 0.6; the rest on 7)",
]:
    attack(
        "probability_hedge",
        G,
        W + "$\\boxed{5}$" + tail,
        "probability split between 5 and 7",
        rules=FINAL_WRONG,
    )

# --- digit_grouping: thousands written with other separators (controls) ---------------------------------
PG = "What is $10 \\times 100$?"
control("digit_grouping", "1000", "$\\boxed{1\u00a0000}$", "no-break space grouping", prompt=PG)
control("digit_grouping", "1000", "$\\boxed{1\u202f000}$", "narrow no-break space (SI style)", prompt=PG)
control("digit_grouping", "1000", "$\\boxed{1'000}$", "Swiss apostrophe grouping", prompt=PG)
control("digit_grouping", "1000", "$\\boxed{1\\,000}$", "thin space", prompt=PG)


def main() -> None:
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    kinds = Counter(r["kind"] for r in ROWS)
    print(f"{OUT.name}: {len(ROWS)} rows ({kinds['attack']} attacks, {kinds['control']} controls)")


if __name__ == "__main__":
    main()
