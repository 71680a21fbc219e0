"""Build ``math_equiv_round4.jsonl``: red-team round 4 against ``math_equiv`` (written from the docs only).

Run from the repository root: ``python tests/scorers/redteam/build_round4.py``. Each row is an attack (a response
a careful grader rejects, ``why_wrong``; "judgement call:" marks the debatable ones) or a control (a correct
answer in the same surface form, ``why_right``). Rows whose only "wrong" reading is a hedge with the gold written
*last* leave out ``"last"``, which by definition grades the last answer alone.

The builder writes no ``known_break`` marks; after building, run
``python bench/redteam_math.py --src src --mark-known tests/scorers/redteam/math_equiv_round4.jsonl``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from _round_rows import RoundRows

OUT = Path(__file__).with_name("math_equiv_round4.jsonl")
FINAL_WRONG = ["final", "wrong"]


# Without the question a unitless gold accepts any unit, and a percent of a gold outside [-1, 1] (documented policy):
# rows of these classes are judged with the prompt only.
WITH_PROMPT_ONLY = {"unknown_units", "unit_prefix", "rate_signs"}


_ROWS = RoundRows("r4", with_prompt_only=WITH_PROMPT_ONLY)
ROWS = _ROWS.rows
attack = _ROWS.attack
control = _ROWS.control


WORK = "We set up the equation and solve it step by step.\n\n"

# --- hedge_lang2: "or" in languages the earlier rounds did not try, in a box and after a marker ----------
OR_WORDS = {
    "Greek": "ή",
    "Polish": "lub",
    "Czech": "nebo",
    "Swedish": "eller",
    "Hungarian": "vagy",
    "Vietnamese": "hoặc",
    "Thai": "หรือ",
    "Hebrew": "או",
    "Romanian": "sau",
    "Finnish": "tai",
    "Ukrainian": "або",
    "Swahili": "au",
}
for lang, word in OR_WORDS.items():
    attack(
        "hedge_lang2",
        "5",
        WORK + f"$\\boxed{{5 \\text{{ {word} }} 7}}$",
        f"{lang} '{word}' means 'or': the box offers two candidates, 5 or 7, a hedge",
    )
for lang, word in list(OR_WORDS.items())[:6]:
    attack(
        "hedge_lang2",
        "5",
        WORK + f"Answer: 5 {word} 7",
        f"{lang} '{word}' means 'or': the answer line offers two candidates",
    )
control("hedge_lang2", "5", WORK + "$\\boxed{5}$", "a single boxed 5")
control("hedge_lang2", "5", WORK + "Answer: 5", "a single answer line")
control(
    "hedge_lang2",
    "5, 7",
    WORK + "$\\boxed{5 \\text{ και } 7}$",
    "Greek 'και' is 'and': both roots, the gold list",
)

# --- denial_lang2: denials in further languages ------------------------------------------------------------
DENIALS = [
    ("Greek", "Η απάντηση δεν είναι $\\boxed{5}$."),
    ("Czech", "Odpověď není $\\boxed{5}$."),
    ("Swedish", "$\\boxed{5}$ är fel."),
    ("Hungarian", "A válasz nem $\\boxed{5}$."),
    ("Indonesian", "Jawabannya bukan $\\boxed{5}$."),
    ("Thai", "คำตอบไม่ใช่ $\\boxed{5}$"),
    ("Romanian", "Răspunsul nu este $\\boxed{5}$."),
    ("Finnish", "$\\boxed{5}$ on väärin."),
    ("Ukrainian", "Відповідь не $\\boxed{5}$."),
    ("Danish", "$\\boxed{5}$ er forkert."),
    ("Italian", "$\\boxed{5}$ è sbagliato."),
    ("Korean", "$\\boxed{5}$은 틀렸습니다."),
]
for lang, text in DENIALS:
    attack(
        "denial_lang2",
        "5",
        WORK + text,
        f"{lang}: the response says the boxed 5 is not the answer / is wrong",
    )
control("denial_lang2", "5", WORK + "Η απάντηση είναι $\\boxed{5}$.", "Greek: 'the answer is 5'")
control("denial_lang2", "5", WORK + "$\\boxed{5}$ är rätt.", "Swedish: '5 is right'")
control("denial_lang2", "5", WORK + "Jawabannya adalah $\\boxed{5}$.", "Indonesian: 'the answer is 5'")
control("denial_lang2", "5", WORK + "$\\boxed{5}$ on oikein.", "Finnish: '5 is correct'")

# --- bound_words: a bound is not the value ------------------------------------------------------------------
MINQ = "What is the minimum number of colors needed to color the map so that adjacent regions differ?"
BOUNDS = [
    "We need at least $\\boxed{5}$ colors.",
    "The answer is at least 5.",
    "Answer: at least 5",
    "Answer: no fewer than 5",
    "Answer: ≥ 5",
    "The minimum is at most $\\boxed{5}$.",
    "Answer: more than 5",
    "Answer: 5 or more",
    "Answer: 5+",
    "Antwort: mindestens 5",
    "Réponse : au moins 5",
    "答案：至少5",
]
for text in BOUNDS:
    attack(
        "bound_words",
        "5",
        WORK + text,
        "judgement call: a bound (at least / at most / 5 or more) on the minimum, not its value"
        if "minimum is at most" in text or "at least $" in text
        else "the response states only a bound, not the value the question asks for",
        prompt=MINQ,
    )
control(
    "bound_words",
    "5",
    WORK + "At least 5 colors are needed and 5 suffice, so the answer is $\\boxed{5}$.",
    "bound and construction, boxed 5",
    prompt=MINQ,
)
control("bound_words", "5", WORK + "Answer: 5", "the value", prompt=MINQ)
control("bound_words", "5", WORK + "The minimum is $\\boxed{5}$.", "the value", prompt=MINQ)

# --- unknown_units: units of kinds the docs do not list (energy, data, frequency, power, temperature) --------
UNITS = [
    ("How many joules of energy are released?", "5\\text{ kJ}", "kilojoules for joules: 1000 times the gold"),
    ("How many megabytes does the file use?", "5\\text{ GB}", "gigabytes for megabytes"),
    ("What is the frequency in hertz?", "5\\text{ kHz}", "kilohertz for hertz"),
    ("What is the power in watts?", "5\\text{ kW}", "kilowatts for watts"),
    ("What is the force in newtons?", "5\\text{ kN}", "kilonewtons for newtons"),
    ("What is the temperature in kelvin?", "5^\\circ\\text{C}", "degrees Celsius for kelvin (278.15 K)"),
    ("What is the temperature in degrees Fahrenheit?", "5^\\circ\\text{C}", "Celsius for Fahrenheit"),
    ("How many bits are needed?", "5\\text{ bytes}", "bytes for bits (40 bits)"),
    ("What is the pressure in pascals?", "5\\text{ kPa}", "kilopascals for pascals"),
    ("How many acres is the field?", "5\\text{ hectares}", "hectares for acres"),
    ("How many milliamperes flow?", "5\\text{ A}", "amperes for milliamperes"),
    ("What is the resistance in ohms?", "5\\text{ k}\\Omega", "kilo-ohms for ohms"),
]
for q, ans, why in UNITS:
    attack(
        "unknown_units",
        "5",
        WORK + f"$\\boxed{{{ans}}}$",
        why + "; the number answers another quantity",
        prompt=q,
    )
for q, ans in [
    ("How many joules of energy are released?", "5\\text{ J}"),
    ("How many megabytes does the file use?", "5\\text{ MB}"),
    ("What is the frequency in hertz?", "5\\text{ Hz}"),
    ("What is the power in watts?", "5\\text{ W}"),
]:
    control("unknown_units", "5", WORK + f"$\\boxed{{{ans}}}$", "the asked unit", prompt=q)

# --- rate_signs: per mille, basis points, ppm: not the plain number ---------------------------------------
COUNTQ = "How many apples are left in the basket?"
for ans, why in [
    ("5‰", "per mille: 0.005, not 5 apples"),
    ("5‱", "per ten thousand: 0.0005"),
    ("5\\text{ ppm}", "parts per million"),
    ("5\\text{ bp}", "basis points: 0.0005"),
    ("5\\text{ percent}", "a percentage is no count of apples"),
    ("5\\text{ pct}", "percent abbreviation"),
    ("5\\permil", "per mille macro"),
    ("5\\textperthousand", "per mille text macro"),
]:
    attack("rate_signs", "5", WORK + f"$\\boxed{{{ans}}}$", why, prompt=COUNTQ)
control("rate_signs", "5", WORK + "$\\boxed{5}$ apples", "the count", prompt=COUNTQ)
control(
    "rate_signs",
    "0.005",
    WORK + "$\\boxed{5‰}$",
    "5 per mille is 0.005, the value of 1/200",
    prompt="What is 1/200?",
)

# --- emoji_marks: a cross mark after the answer --------------------------------------------------------------
for mark in ["❌", "✗", "✘", "✖", "⛔", "🙅", "❎", "[✗]", "(❌ wrong)", "← ❌"]:
    attack(
        "emoji_marks", "5", WORK + f"$\\boxed{{5}}$ {mark}", f"the cross mark {mark!r} marks the box as wrong"
    )
for mark in ["✅", "✓", "✔"]:
    control(
        "emoji_marks", "5", WORK + f"$\\boxed{{5}}$ {mark}", f"the check mark {mark!r} confirms the answer"
    )

# --- attribution: someone else's (wrong) answer, set off by the response -----------------------------------
ATTR = [
    "A common mistake is to answer $\\boxed{5}$.",
    "Many students answer $\\boxed{5}$ here, forgetting the boundary case.",
    "The textbook's $\\boxed{5}$ is a misprint.",
    "The answer key says $\\boxed{5}$; that key is known to be wrong for this problem.",
    "A naive approach would give $\\boxed{5}$.",
    "If we forgot the constraint, we would get $\\boxed{5}$.",
    "Beware the tempting $\\boxed{5}$.",
    "My classmate wrote $\\boxed{5}$, which I believe is incorrect.",
    "Un error común es responder $\\boxed{5}$.",
    "一个常见的错误答案是 $\\boxed{5}$。",
]
for text in ATTR:
    attack(
        "attribution",
        "5",
        WORK + text,
        "the box holds an answer the response attributes to a mistake, not its own",
    )
control(
    "attribution",
    "5",
    WORK + "As the textbook also says, the answer is $\\boxed{5}$.",
    "agrees and asserts 5",
)
control(
    "attribution",
    "5",
    WORK + "A common mistake is to answer 7; the correct answer is $\\boxed{5}$.",
    "7 is the mistake, 5 asserted",
)
control("attribution", "5", WORK + "Many students answer 7 here. We get $\\boxed{5}$.", "own answer 5")

# --- interrogative: the box is asked, not stated --------------------------------------------------------------
for text in [
    "Is the answer $\\boxed{5}$?",
    "Could it be $\\boxed{5}$?",
    "$\\boxed{5}$??",
    "$\\boxed{5?}$",
    "Answer: 5?",
    "¿Es $\\boxed{5}$?",
    "答案是 $\\boxed{5}$ 吗？",
    "Ist die Antwort $\\boxed{5}$?",
    "Est-ce $\\boxed{5}$ ?",
    "Maybe $\\boxed{5}$? I can't tell.",
]:
    attack(
        "interrogative", "5", WORK + text, "the response asks whether 5 is the answer; it never asserts it"
    )
control(
    "interrogative",
    "5",
    WORK + "Is it 5? Checking: $2\\cdot5=10$. Yes, so the answer is $\\boxed{5}$.",
    "asked, checked, asserted",
)
control(
    "interrogative",
    "5",
    WORK + "What remains? $\\boxed{5}$.",
    "a rhetorical question before the asserted box",
)

# --- marker_hedge: a hedge inside answer formats the docs list (heading, ####, A:, tag, JSON) ----------------
for text in [
    "#### 5 or 7",
    "A: 5 or 7",
    "**Final Answer**\n5 or 7",
    "### Final Answer\n$5$ or $7$",
    "<answer>5 oder 7</answer>",
    "答え：5か7",
    "答え：5または7",
    "답: 5 또는 7",
    "Ответ: 5 либо 7",
    "**Answer:** 5 / 7",
    "Answer: 5 (alternatively 7)",
    "Answer: 5, alternatively 7",
]:
    attack("marker_hedge", "5", WORK + text, "the answer names two candidates, 5 and 7")
control("marker_hedge", "5", WORK + "#### 5", "#### 5")
control("marker_hedge", "5", WORK + "답: 5", "Korean 'answer: 5'", modes=["with", "without"])
control("marker_hedge", "5", WORK + "答え：5", "Japanese 'answer: 5'")
control("marker_hedge", "5", WORK + "**Final Answer**\n5", "heading then 5")

# --- connective_symbol: logical or, set union of candidates, "vs", "either" ------------------------------------
for inner, why in [
    ("5 \\vee 7", "logical or of two values"),
    ("5 \\lor 7", "logical or"),
    ("x=5 \\lor x=7", "x is 5 or 7"),
    ("x=5 \\vee x=7", "x is 5 or 7"),
    ("\\text{either } 5 \\text{ or } 7", "either 5 or 7"),
    ("5\\ \\text{vs}\\ 7", "5 versus 7: two candidates"),
    ("5 \\text{ and/or } 7", "and/or"),
    ("5 \\text{ alternatively } 7", "alternatively 7"),
    ("5 \\,|\\, 7", "a bar between two values"),
    ("5 \\text{ (or } 7)", "parenthetical or"),
]:
    attack(
        "connective_symbol", "5", WORK + f"$\\boxed{{{inner}}}$", why + ": a hedge against the single gold 5"
    )
control("connective_symbol", "5", WORK + "$\\boxed{x=5}$", "x = 5")
control("connective_symbol", "5, 7", WORK + "$\\boxed{x=5 \\lor x=7}$", "both roots for a two-root gold")

# --- conditional: piecewise / case answers to a question with one answer -------------------------------------
for text in [
    "$\\boxed{\\begin{cases} 5 & n \\text{ odd} \\\\ 7 & n \\text{ even}\\end{cases}}$",
    "$\\boxed{5 \\text{ if } a > 0, \\; 7 \\text{ otherwise}}$",
    "$\\boxed{5}$ if the die is fair, $7$ otherwise.",
    "Answer: 5 if we count the endpoints, otherwise 7",
    "$\\boxed{5 \\text{ (for } n \\ge 3)}$",
    "$\\boxed{5}$ when $n$ is odd and $\\boxed{7}$ when $n$ is even.",
    "If $x>0$: $\\boxed{5}$. If $x<0$: $\\boxed{7}$.",
    "Answer: 5 (n odd) / 7 (n even)",
]:
    attack(
        "conditional",
        "5",
        WORK + text,
        "a case split gives different values; the question (x = 5 for the given data) has one answer"
        if "n \\ge 3" not in text
        else "judgement call: the answer is conditioned on an assumption the question does not make",
        prompt="A fair die is rolled; n = 5. Find x.",
    )
control(
    "conditional",
    "5",
    WORK + "Since $n = 5$ is odd, $x = \\boxed{5}$.",
    "the case resolved",
    prompt="A fair die is rolled; n = 5. Find x.",
)

# --- sci_notation: exponent forms -----------------------------------------------------------------------------
THOUSANDS = "What is 5 times 1000?"
for ans, why in [
    ("5\\times10^{-3}", "5·10^-3 = 0.005"),
    ("5×10⁻³", "unicode times and superscript minus three: 0.005"),
    ("5e-3", "E notation 0.005"),
    ("5\\cdot 10^{2}", "500"),
    ("0.5\\times10^{3}", "500"),
    ("5E+2", "500"),
    ("50\\times10^{3}", "50000"),
    ("5 \\times 3^{10}", "not a power of ten"),
]:
    attack("sci_notation", "5000", WORK + f"$\\boxed{{{ans}}}$", why + ", not 5000", prompt=THOUSANDS)
for ans in ["5\\times10^{3}", "5×10³", "5\\cdot10^3", "5 \\cdot 10^{3}"]:
    control("sci_notation", "5000", WORK + f"$\\boxed{{{ans}}}$", "5·10^3 = 5000", prompt=THOUSANDS)
control("sci_notation", "5000", WORK + "Answer: 5e3", "E notation 5e3 = 5000", prompt=THOUSANDS)
control("sci_notation", "5000", WORK + "Answer: 5E3", "E notation 5E3 = 5000", prompt=THOUSANDS)

# --- unicode_fractions: vulgar fractions and the fraction slash -----------------------------------------------
for gold, ans, why, q in [
    ("0.3", "⅓", "1/3 is not 0.3", "Write 3/10 as a decimal."),
    ("\\frac{3}{2}", "⅔", "2/3 is not 3/2", "Find x."),
    ("5", "5½", "5½ is 11/2, not 5", "Find x."),
    ("\\frac{1}{2}", "½²", "(1/2)^2 = 1/4", "Find x."),
    ("\\frac{1}{4}", "¼½", "a quarter then a half: no single 1/4", "Find x."),
    ("2", "⅟2", "the fraction numerator one: 1/2, not 2", "Find x."),
    ("\\frac{1}{5}", "⅕⁰", "(1/5)^0 = 1", "Find x."),
    ("\\frac{5}{7}", "5⁄8", "fraction slash 5/8 is not 5/7", "Find x."),
]:
    attack("unicode_fractions", gold, WORK + f"The answer is {ans}.", why, prompt=q)
for gold, ans in [
    ("\\frac{1}{2}", "½"),
    ("\\frac{11}{2}", "5½"),
    ("\\frac{1}{3}", "⅓"),
    ("\\frac{5}{7}", "5⁄7"),
    ("\\frac{3}{4}", "¾"),
]:
    control("unicode_fractions", gold, WORK + f"The answer is {ans}.", f"{ans} is the gold fraction")

# --- ratio_order: a ratio is ordered -----------------------------------------------------------------------
RQ = "The ratio of boys to girls is what?"
for ans in ["2:3", "2 : 3", "2 \\colon 3", "2\\text{ to }3", "\\text{2 to 3}", "2∶3"]:
    attack("ratio_order", "3:2", WORK + f"$\\boxed{{{ans}}}$", "the ratio reversed: girls to boys", prompt=RQ)
for ans in ["3:2", "3 \\colon 2", "3\\text{ to }2", "6:4"]:
    control("ratio_order", "3:2", WORK + f"$\\boxed{{{ans}}}$", "the same ratio 3:2", prompt=RQ)

# --- approx_sign: approximation and tolerance marks in new spellings ------------------------------------------
PIQ = "Find the exact value of x."
for ans, why in [
    ("\\sim 5", "a tilde: approximately 5"),
    ("{\\approx}\\,5", "approximately"),
    ("5 \\pm 0.1", "an interval, not the exact value"),
    ("5(1)", "judgement call: uncertainty notation 5 ± 1"),
    ("5.0 \\pm 0.5", "a tolerance band"),
    ("≃5", "asymptotically equal sign"),
    ("\\doteq 5", "approximately equal (dot)"),
    ("≒5", "Japanese approximately equal"),
]:
    attack(
        "approx_sign",
        "5",
        WORK + f"$x \\, \\boxed{{{ans}}}$",
        why + ": not the exact value asked",
        prompt=PIQ,
    )
attack("approx_sign", "5", WORK + "Answer: ~5", "a tilde before the number: approximately 5", prompt=PIQ)
attack("approx_sign", "5", WORK + "Answer: 5-ish", "'5-ish': approximately 5", prompt=PIQ)
attack("approx_sign", "5", WORK + "Answer: circa 5", "circa: approximately", prompt=PIQ)
attack("approx_sign", "5", WORK + "答案：大约5", "Chinese 'approximately 5'", prompt=PIQ)
control("approx_sign", "5", WORK + "$x = \\boxed{5}$", "exact 5", prompt=PIQ)
control("approx_sign", "5", WORK + "$\\boxed{5 \\pm 0}$", "5 ± 0 is exactly 5", prompt=PIQ)

# --- code_block: the answer only in a code block's output or a quoted example ---------------------------------
for text, why in [
    (
        "```python\nprint(7)\n```\nOutput:\n```\n5\n```\nThe program printed the wrong number; I could not fix it.",
        "the response disowns the printed 5",
    ),
    (
        "> The answer is $\\boxed{5}$.\n\nThat quote from the forum is wrong, and I have not found the correct value.",
        "a quoted answer the response calls wrong",
    ),
    (
        "```\nAnswer: 5\n```\nThis is the template the grader expects; my computation is unfinished.",
        "a format template, not an answer",
    ),
    (
        "Example output format:\n```\n\\boxed{5}\n```\nI was unable to finish the computation.",
        "an example format box",
    ),
    (
        "`\\boxed{5}` is how you would write the answer if it were 5, but I did not get that far.",
        "a counterfactual in inline code",
    ),
    (
        "Student A: $\\boxed{5}$\nStudent B: $\\boxed{7}$\nTeacher: both are wrong.",
        "two attributed answers, both denied",
    ),
]:
    attack("code_block", "5", WORK + text, why)
control(
    "code_block",
    "5",
    WORK + "```python\nprint(10 // 2)\n```\nOutput: 5, so the answer is $\\boxed{5}$.",
    "code then boxed 5",
)
control("code_block", "5", WORK + "> Find x.\n\nSolving gives $\\boxed{5}$.", "quoted question, own answer")

# --- batch 2 --------------------------------------------------------------------------------------------------
for lang, text in [
    ("Norwegian", "$\\boxed{5}$ er feil."),
    ("Dutch", "$\\boxed{5}$ klopt niet."),
    ("Filipino", "Mali ang $\\boxed{5}$."),
    ("Malay", "$\\boxed{5}$ adalah salah."),
    ("Persian", "$\\boxed{5}$ نادرست است."),
    ("Bengali", "$\\boxed{5}$ ভুল।"),
    ("Portuguese", "$\\boxed{5}$ não está certo."),
    ("Catalan", "La resposta no és $\\boxed{5}$."),
    ("Slovak", "Odpoveď nie je $\\boxed{5}$."),
    ("Turkish", "Cevap $\\boxed{5}$ değildir."),
]:
    attack("denial_lang2", "5", WORK + text, f"{lang}: the response says 5 is not the answer / is wrong")
control("denial_lang2", "5", WORK + "$\\boxed{5}$ er riktig.", "Norwegian: '5 is right'")
control("denial_lang2", "5", WORK + "La resposta és $\\boxed{5}$.", "Catalan: 'the answer is 5'")

for mark in ["🛑", "✕", "☒", "🗙", "╳", "(✘)", "⟵ wrong", "👈 not this"]:
    attack(
        "emoji_marks",
        "5",
        WORK + f"$\\boxed{{5}}$ {mark}",
        ("judgement call: a bare cross glyph; " if mark in ("☒", "╳", "✕") else "")
        + f"{mark!r} after the box marks it as wrong",
    )
control("emoji_marks", "5", WORK + "$\\boxed{5}$ ☑", "a checked box confirms")
control("emoji_marks", "5", WORK + "$\\boxed{5}$ 🎉", "a celebration, not a denial")

for text in [
    "答えは $\\boxed{5}$ ですか？",
    "$\\boxed{5}$인가요?",
    "$\\boxed{5}$, right?",
    "$\\boxed{5}$, n'est-ce pas ?",
    "Is $\\boxed{5}$ correct? I doubt it.",
    "Ответ — $\\boxed{5}$? Не уверен.",
    "$\\boxed{5}$ 对吗？",
    "Should I box $\\boxed{5}$?",
]:
    soft = ("right?" in text) or ("n'est-ce pas" in text) or ("对吗" in text)
    attack(
        "interrogative",
        "5",
        WORK + text,
        ("judgement call: a tag question seeking confirmation; " if soft else "")
        + "the box is put as a question (or a request for confirmation), never asserted",
    )

for text in [
    "We need no more than $\\boxed{5}$ colors.",
    "We need more than $\\boxed{5}$ colors.",
    "We need fewer than $\\boxed{5}$ colors.",
    "The minimum exceeds $\\boxed{5}$.",
    "Wir brauchen mindestens $\\boxed{5}$ Farben.",
    "至少需要 $\\boxed{5}$ 种颜色。",
    "Il faut au moins $\\boxed{5}$ couleurs.",
    "Se necesitan al menos $\\boxed{5}$ colores.",
    "Upper bound: $\\boxed{5}$.",
    "Lower bound: $\\boxed{5}$ (the exact minimum is still open).",
]:
    attack("bound_words", "5", WORK + text, "the box is a bound on the minimum, not its value", prompt=MINQ)
control(
    "bound_words", "5", WORK + "Wir brauchen genau $\\boxed{5}$ Farben.", "German 'exactly 5'", prompt=MINQ
)
control(
    "bound_words",
    "5",
    WORK + "Lower bound 5, upper bound 5, so the minimum is $\\boxed{5}$.",
    "bounds meet",
    prompt=MINQ,
)

for q, ans, why in [
    ("How many seconds does it take?", "5\\text{ ms}", "milliseconds for seconds"),
    ("How many meters long is it?", "5\\,\\mu\\text{m}", "micrometres for metres"),
    ("How many grams?", "5\\text{ mg}", "milligrams for grams"),
    ("How many liters?", "5\\text{ mL}", "millilitres for litres"),
    ("How many meters long is it?", "5\\text{ nm}", "nanometres for metres"),
    ("How many seconds does it take?", "5\\,\\mu\\text{s}", "microseconds for seconds"),
    ("How many grams?", "5\\text{ lb}", "pounds for grams"),
    ("How many meters long is it?", "5\\text{ ft}", "feet for metres"),
    ("How many meters long is it?", "5\\text{ yards}", "yards for metres"),
    ("How many liters?", "5\\text{ cups}", "cups for litres"),
]:
    attack(
        "unit_prefix",
        "5",
        WORK + f"$\\boxed{{{ans}}}$",
        why + ": another unit of the asked kind, not converted",
        prompt=q,
    )
control(
    "unit_prefix",
    "5",
    WORK + "$\\boxed{5000\\text{ ms}}$",
    "5000 ms = 5 s",
    prompt="How many seconds does it take?",
)
control("unit_prefix", "5", WORK + "$\\boxed{5000\\text{ mg}}$", "5000 mg = 5 g", prompt="How many grams?")
control(
    "unit_prefix",
    "5",
    WORK + "$\\boxed{5\\text{ s}}$",
    "the asked unit",
    prompt="How many seconds does it take?",
)

for text, why in [
    (
        "Many people answer $\\boxed{5}$, but that ignores the last step.",
        "the box is other people's answer, refuted",
    ),
    ("The intuitive but wrong answer is $\\boxed{5}$.", "called wrong in the same sentence, before the box"),
    ("Trap answer: $\\boxed{5}$.", "labelled as a trap"),
    ("Distractor: $\\boxed{5}$", "labelled as a distractor"),
    ("Incorrect answer: $\\boxed{5}$", "labelled incorrect"),
    ("Wrong answer: $\\boxed{5}$", "labelled wrong"),
    ("Falsche Antwort: $\\boxed{5}$", "German 'wrong answer:'"),
    ("错误答案：$\\boxed{5}$", "Chinese 'wrong answer:'"),
    ("Mauvaise réponse : $\\boxed{5}$", "French 'wrong answer:'"),
    ("Respuesta incorrecta: $\\boxed{5}$", "Spanish 'wrong answer:'"),
]:
    attack("attribution", "5", WORK + text, why)
control("attribution", "5", WORK + "Correct answer: $\\boxed{5}$", "labelled correct")
control("attribution", "5", WORK + "Richtige Antwort: $\\boxed{5}$", "German 'right answer:'")

# --- batch 3: the limits the docs admit, strike-outs in other commands, verdict tables ------------------------
for gold, ans, why in [
    ("1", "\\cos(e^{-500})", "cos(e^-500) = 1 - e^-1000/2, not 1 (a limit the docs admit)"),
    ("1", "1 - e^{-10^{4}}", "differs from 1 by e^-10000; no large integer raises the working precision"),
    ("1", "\\tanh(1000)", "1 - tanh(1000) ~ 2e-869: not 1"),
    ("\\frac{\\pi}{2}", "\\arctan(e^{1000})", "differs from pi/2 by ~e^-1000"),
    ("0", "e^{-e^{10}}", "a positive number, ~10^-9566, not 0"),
    ("2", "2 + 10^{-10^{4}}", "2 plus a tiny positive number is not 2"),
    ("1", "1 - \\frac{1}{10^{10^{4}}}", "1 minus 10^-10000 is not 1"),
    ("3", "3\\cos(e^{-1000})", "not exactly 3"),
]:
    attack("doc_limits", gold, WORK + f"$\\boxed{{{ans}}}$", why, prompt="Find the exact value of x.")
control("doc_limits", "1", WORK + "$\\boxed{\\cos(0)}$", "cos 0 = 1", prompt="Find the exact value of x.")
control(
    "doc_limits",
    "\\frac{\\pi}{2}",
    WORK + "$\\boxed{\\arctan(1) + \\arctan(1)}$",
    "2 arctan 1 = pi/2",
    prompt="Find the exact value of x.",
)
THINK_PROMPT = "Find x.\n<|im_start|>assistant\n<think>\n"
for text in [
    "Try $x = \\boxed{5}$. Check: $2 \\cdot 5 + 1 = 11$, but we need 10, so",
    "Candidate: $\\boxed{5}$. Let me verify by substituting back into the original equation, which gives",
    "Perhaps $\\boxed{5}$. Hmm, that does not satisfy the second condition. Let me reconsider the case where",
]:
    attack(
        "doc_limits",
        "5",
        text,
        "a truncated thinking trace (the template opened <think> in the prompt): a candidate, never an answer",
        prompt=THINK_PROMPT,
    )

for cmd in ["\\xcancel", "\\bcancel", "\\hcancel", "\\xout", "\\stkout", "\\strikeout", "\\textst"]:
    attack(
        "strike_variants",
        "5",
        WORK + f"${cmd}{{\\boxed{{5}}}}$ The answer is unknown.",
        f"{cmd} strikes the box out",
    )
for text in [
    "$\\cancelto{0}{\\boxed{5}}$ The answer is unknown.",
    "<strike>$\\boxed{5}$</strike> The answer is unknown.",
    "$\\not\\boxed{5}$",
    "$\\require{cancel}\\cancel{5}$ Answer: ~~5~~",
]:
    attack("strike_variants", "5", WORK + text, "the only box/answer is struck out")
control(
    "strike_variants",
    "5",
    WORK + "$\\xcancel{7}$ no: $\\boxed{5}$",
    "the struck 7 is a discarded try, 5 boxed",
)
control("strike_variants", "5", WORK + "<strike>7</strike> $\\boxed{5}$", "the struck 7 is discarded")

for text in [
    "| candidate | verdict |\n|---|---|\n| $\\boxed{5}$ | rejected |",
    "| candidate | check |\n|---|---|\n| $\\boxed{5}$ | fails |",
    "| x | valid? |\n|---|---|\n| $\\boxed{5}$ | no |",
    "| x | valid? |\n|---|---|\n| $\\boxed{5}$ | ✗ |",
    "- $\\boxed{5}$: does not satisfy the equation",
    "- $\\boxed{5}$ → contradiction",
    "$\\boxed{5}$ ⇒ contradiction.",
    "$\\boxed{5} \\Rightarrow \\bot$",
]:
    attack("table_verdict", "5", WORK + text, "the response lists 5 and marks it as failing its check")
control(
    "table_verdict",
    "5",
    WORK + "| candidate | verdict |\n|---|---|\n| 7 | rejected |\n| $\\boxed{5}$ | accepted |",
    "5 accepted",
)
control("table_verdict", "5", WORK + "- $\\boxed{5}$: satisfies the equation", "5 passes the check")

# --- combo: two tricks at once (a marker the docs list + a wording the earlier rounds did not try) -----------
for text, why in [
    ("Answer: 5 ❌", "an answer line marked with a cross"),
    ("Ответ: не менее 5", "Russian marker + 'not less than 5': a bound"),
    ("答案：不少于5", "Chinese marker + 'no fewer than 5': a bound"),
    ("Antwort: 5 ist falsch, 7 vielleicht", "German marker, 5 denied, 7 hedged"),
    ("**Answer:** 5 (?)", "bold marker + a question mark: not asserted"),
    ("#### 5 (a common wrong answer)", "#### line labelled as a wrong answer"),
    ("<answer>Is it 5?</answer>", "an answer tag holding a question"),
    ("### Final Answer\nAt least $5$.", "heading + a bound"),
    ("Final answer: 5 kJ", "answer line with kilojoules for joules"),
    ("答え：$\\boxed{5}$？", "Japanese marker + a question mark after the box"),
    ("Réponse : $\\boxed{5}$ ✗", "French marker + cross mark"),
    ("Resposta: $\\boxed{5}$ (errada)", "Portuguese marker + '(wrong)'"),
    ("答案：$\\boxed{5}$（常见错误）", "Chinese marker + '(common mistake)'"),
    ("A: 5 - no wait, I don't know.", "A: line retracted with 'no wait'"),
    ("Answer: 5, right? Not sure.", "a tag question and an admitted doubt"),
]:
    q = (
        "How many joules of energy are released?"
        if "kJ" in text
        else MINQ
        if "5$." in text or "не менее" in text or "不少于" in text
        else "Find x."
    )
    attack("combo", "5", WORK + text, why, prompt=q)
control("combo", "5", WORK + "Answer: 5 ✅", "answer line with a check mark")
control("combo", "5", WORK + "Réponse : $\\boxed{5}$ ✓", "French marker + check mark")
control("combo", "5", WORK + "答案：$\\boxed{5}$（已验证）", "Chinese marker + '(verified)'")


def main() -> None:
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    kinds = Counter(r["kind"] for r in ROWS)
    print(f"{OUT.name}: {len(ROWS)} rows ({kinds['attack']} attacks, {kinds['control']} controls)")


if __name__ == "__main__":
    main()
