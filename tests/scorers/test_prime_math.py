"""prime_math: PRIME's extraction, the PRM800K grader, the math_equal fallback, and no code execution."""

from __future__ import annotations

import pickle

import pytest

from rewardloop.scorers import _sympy_grade
from rewardloop.scorers.prime_math import (
    PrimeMathScorer,
    grade_answer,
    match_answer,
    math_equal,
    normalize_answer,
    symbolic_equal,
)
from rewardloop.types import Sample, Status

SCORER = PrimeMathScorer()


def run(response: str, ground_truth: object = "5"):
    return SCORER.score(Sample(response=response, ground_truth=ground_truth, task="numina_olympiads"))


# (response, (is_matched, extracted)): verdicts of verl 0.9.1's match_answer
EXTRACTION = [
    ("The answer is \\boxed{42}", (True, "42")),
    ("so the answer is 7", (True, "7")),
    ("Answer: 12\nmore text", (True, "12\nmore text")),
    ("Final answer: x = 3", (True, "3")),
    ("12 is the answer", (True, "12")),
    ("The answers are 1 and 2", (True, "1 and 2")),
    ("We get 5", (True, "5")),
    ("It is 5. Done", (True, "5")),
    ("\\boxed{x = 3}", (True, "3")),
    ("\\boxed{\\frac{1}{2}}", (True, "\\frac{1}{2}")),
    ("\\fbox{9}", (True, "9")),
    ("\\boxed{}", (False, "\\boxed{}")),
    ("The answer is \\boxed{\\text{(A)}}", (False, "\\text{(A)}")),
    ("no digits here", (False, "no digits here")),
    ("", (False, "")),
    ("Step 1: x.\nStep 2: so the final answer is 9", (True, "9")),
]


@pytest.mark.parametrize("response,expected", EXTRACTION)
def test_match_answer(response, expected):
    assert match_answer(response) == expected


def test_match_answer_cuts_at_the_marker_after_unicode():
    # "İ".lower() is two characters: verl slices the original at indices found in the lowered text
    assert match_answer("İİİ so the answer is 45") == (True, "45")


def test_match_answer_boxes_go_through_the_shared_latex_helper():
    # verl keeps the raw text in both cases (its box finder needs a brace and gives up on an unclosed last box)
    assert match_answer("\\boxed 5$") == (True, "5")
    assert match_answer("\\boxed{5} and then \\boxed{6") == (True, "5")
    assert match_answer("\\boxed{\\{1, 2\\}}") == (True, "\\{1, 2\\}")


@pytest.mark.parametrize(
    "answer,normalized",
    [
        ("\\text{Monday}", "Monday"),
        ("\\dfrac{1}{2}", "\\frac{1}{2}"),
        ("\\frac12", "\\frac{1}{2}"),
        ("0.5", "\\frac{1}{2}"),
        ("3/4", "\\frac{3}{4}"),
        ("\\sqrt3", "\\sqrt{3}"),
        ("x = 5", "5"),
        ("10\\%", "10"),
        ("90^\\circ", "90"),
        ("\\$5", "5"),
        ("5 \\text{ cm}", "5"),
        ("\\left( 1, 2 \\right)", "(1,2)"),
        (".5", "\\frac{1}{2}"),
        ("2 \\text{ cm} + 3 \\text{ cm}", "2 \\text{ cm} + 3 \\text{ cm}"),  # two unit blocks: left as is
        ("1 + \\sqrt", "1 + \\sqrt"),  # dangling \sqrt: left as is
        ("", ""),
    ],
)
def test_normalize_answer(answer, normalized):
    assert normalize_answer(answer) == normalized


def test_normalize_answer_flavors_differ_on_plain_percent():
    assert normalize_answer("50%") == "50%"
    assert normalize_answer("50%", flavor="mathruler") == "50"
    with pytest.raises(ValueError, match="mathruler"):
        normalize_answer("1", flavor="nope")  # type: ignore[arg-type]


# (given, ground_truth, verdict): verl's grade_answer agrees on every row
GRADE = [
    ("\\dfrac{1}{2}", "\\frac{1}{2}", True),
    ("0.5", "\\frac{1}{2}", True),
    ("5 cm", "5", True),
    ("5 meters", "5", True),
    ("\\$1,000", "1000", True),
    ("10 million", "10000000", False),  # becomes "10 *10^6", which is not an integer string
    ("1 and 2", "1, 2", False),  # a bare list is not split (only bracketed tuples are)
    ("(1 and 2)", "(1, 2)", True),
    ("\\text{Monday}", "monday", True),
    ("(1, 2)", "(1,2)", True),
    ("[1, 2)", "(1, 2)", False),
    ("(2, 1)", "(1, 2)", False),
    ("2/4", "1/2", False),  # unreduced fractions are not accepted by PRM800K
    ("2.5", "5/2", True),
    ("x^2+4x+4", "(x+2)^2", True),
    ("2x", "x+x", True),
    ("\\sqrt{8}", "2\\sqrt{2}", True),
    ("\\frac{\\sqrt{3}}{2}", "\\frac{\\sqrt3}{2}", True),
    ("7 3/4", "31/4", True),
    ("3", "3.0", True),
    ("4", "5", False),
    ("abc", "5", False),
    ("2^{10}", "1024", False),  # PRM800K keeps sympy away from ^{
    ("", "5", False),
    (None, "5", False),
]


@pytest.mark.parametrize("given,truth,verdict", GRADE)
def test_grade_answer(given, truth, verdict):
    assert grade_answer(given, truth) is verdict


@pytest.mark.parametrize(
    "prediction,reference,verdict",
    [
        ("50", "0.5", True),  # the percentage variants
        ("0.5", "50", True),
        ("2.00001", "2", True),  # relative tolerance 1e-4
        ("2.001", "2", False),
        ("1,000", "1000", True),
        ("1{,}000", "1000", True),
        ("$5", "5", True),
        ("50%", "50", True),
        ("1010_2", "1010", True),  # a base subscript is dropped
        ("a_n", "b_n", False),  # verl raises on it: not equal
        ("6.2832", "2\\pi", True),  # \pi is evaluated (safely)
        ("3*3.14", "3\\pi", False),  # ... with math.pi by default
        ("Interval(1, 2)", "[1, 2]", True),
        ("(1, 2)", "(1, 2.00001)", True),
        ("Point(1, 2)", "(1, 2)", False),  # the comma rule decides first (element "Point(1" vs "(1")
        ("1, 2", "1, 3", False),
        ("x+x", "2*x", True),  # symbolic_equal works (verl: False)
        ("1/2", "0.5", True),  # verl: False
        ("\\frac{\\sqrt{3}}{2}", "0.8660", True),
        ("Matrix([[1, 2], [3, 4]])", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", True),
        ("Matrix([[1, 2], [3, 5]])", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", False),
        ("x", "y", False),
        ("", "5", False),
    ],
)
def test_math_equal(prediction, reference, verdict):
    assert math_equal(prediction, reference) is verdict


def test_math_equal_pi_as_3_14():
    assert math_equal("3*3.14", "3\\pi", pi=3.14) is True


def test_symbolic_equal():
    assert symbolic_equal("x+x", "2x") is True
    assert symbolic_equal("\\frac{\\sqrt{3}}{2}", "sqrt(3)/2") is True
    assert symbolic_equal("\\begin{pmatrix}1 & 0\\end{pmatrix}", "Matrix([[1, 0]])") is True
    assert symbolic_equal("x", "x+1") is False
    assert symbolic_equal("(1,2)", "[1,2]") is False  # sets and tuples are not compared by subtraction
    assert symbolic_equal("a" * 1000, "a" * 1000) is False  # too long to be worth sympy


# (response, ground_truth, reward): verl 0.9.1 gives the same reward unless a comment says otherwise
SCORES = [
    ("The answer is \\boxed{x^2+4x+4}", "(x+2)^2", 1.0),  # spec probe
    ("The answer is \\boxed{42}", "42", 1.0),
    ("The answer is \\boxed{43}", "42", 0.0),
    ("Answer: \\frac{3}{4}", "0.75", 1.0),
    ("so the answer is 75\\%", "0.75", 1.0),
    ("the answer is 2.5", "\\frac{5}{2}", 1.0),
    ("The answer is \\boxed{(1, 2)}", "(1,2)", 1.0),
    ("The answer is \\boxed{[1, 2]}", "(1,2)", 0.0),
    ("The answer is \\boxed{\\text{(B)}}", "B", 1.0),
    ("The answer is \\boxed{\\text{(C)}}", "B", 0.0),
    ("The answer is \\boxed{\\text{B}}", "B", 1.0),
    ("The area is \\boxed{12 \\pi}", "12\\pi", 1.0),
    ("The area is \\boxed{37.7}", "12\\pi", 1.0),  # 12 * math.pi = 37.699..., within 1e-4
    ("The answer is \\boxed{37.68}", "12\\pi", 1.0),  # 12 * 3.14: pi is also tried as 3.14
    ("The answer is \\boxed{37.6}", "12\\pi", 0.0),
    ("The answer is \\boxed{x+x}", "2x", 1.0),
    ("The answer is \\boxed{0.8660}", "\\frac{\\sqrt{3}}{2}", 1.0),  # verl: 0.0 (dead symbolic_equal)
    ("The answer is \\boxed{\\frac{28}{6}}", "\\frac{14}{3}", 1.0),  # verl: 0.0 (dead symbolic_equal)
    ("The answer is \\boxed{5} and then \\boxed{6", "5", 1.0),  # verl: 0.0 (box finder)
    ("", "5", 0.0),
    ("no idea", "5", 0.0),
]


@pytest.mark.parametrize("response,truth,reward", SCORES)
def test_score(response, truth, reward):
    result = run(response, truth)
    assert result.status is Status.OK
    assert result.value == reward


def test_score_info():
    result = run("Step 1: think.\nStep 2: so \\boxed{5}", "5")
    assert result.value == 1.0
    assert result.info == {
        "extracted": "5",
        "format_ok": True,
        "answer_found": True,
        "matched": True,
        "rule": "normalized",
    }
    wrong = run("The answer is \\boxed{x}", "5")
    assert wrong.info["rule"] is None and wrong.info["format_ok"] is False and wrong.info["matched"] is False


def test_class_attributes_and_pickling():
    assert (SCORER.name, SCORER.execution, SCORER.timeout_s, SCORER.returns_dict) == (
        "prime_math",
        "process",
        10.0,
        False,
    )
    clone = pickle.loads(pickle.dumps(SCORER))
    assert clone.score(Sample(response="\\boxed{5}", ground_truth="5")).value == 1.0


@pytest.mark.parametrize("truth", [5, 5.0])
def test_numeric_ground_truth_is_stringified(truth):
    assert run("\\boxed{5}", truth).value == 1.0


@pytest.mark.parametrize("truth", [None, ["5"], {"target": "5"}, True, b"5", "", "   "])
def test_malformed_ground_truth(truth):
    result = run("\\boxed{5}", truth)
    assert result.status is Status.INVALID_INPUT
    assert "ground_truth" in result.info["error"]
    assert SCORER.quick(Sample(response="\\boxed{5}", ground_truth=truth)).status is Status.INVALID_INPUT


@pytest.mark.parametrize(
    "response,truth,reward",
    [
        ("\\boxed{5}", "5", 1.0),
        ("\\boxed{\\dfrac{1}{2}}", "\\frac12", 1.0),
        ("\\boxed{50}", "0.5", 1.0),
        ("\\boxed{2.00001}", "2", 1.0),
        ("\\boxed{7}", "5", 0.0),
        ("\\boxed{-3}", "3", 0.0),
    ],
)
def test_quick_settles_the_common_cases_like_score(response, truth, reward):
    sample = Sample(response=response, ground_truth=truth)
    quick = SCORER.quick(sample)
    assert quick is not None and quick.value == reward == SCORER.score(sample).value


@pytest.mark.parametrize(
    "response,truth", [("\\boxed{x+x}", "2x"), ("\\boxed{0.8660}", "\\frac{\\sqrt{3}}{2}")]
)
def test_quick_defers_what_needs_sympy(response, truth):
    assert SCORER.quick(Sample(response=response, ground_truth=truth)) is None


# --- nothing in an answer is ever executed (verl eval()s answers: CVE-2026-6878)

PAYLOADS = [
    "open('pwned','w') or \\pi",  # verl's handle_pi eval()s this and creates the file
    "[open('pwned','w')]",  # verl's pmatrix branch eval()s list-looking answers
    "Matrix([[open('pwned','w')]])",
    "__import__('os').system('touch pwned')",
    "__import__('os').system('touch pwned') \\pi",
    "().__class__.__bases__[0]",
    "[x for x in ()]",
    "lambda: open('pwned','w')",
    "open('/etc/passwd')",
    "Symbol('x').__class__",
    "S('1+1')",
    "eval('1')",
]


@pytest.mark.parametrize("payload", PAYLOADS)
# ground truths that steer verl into its eval() paths (\pi substitution, the pmatrix branch)
@pytest.mark.parametrize("truth", ["2\\pi", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}"])
def test_malicious_answers_are_never_executed(payload, truth, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for response in (f"The answer is \\boxed{{{payload}}}", f"The answer is {payload}"):
        result = run(response, truth)
        assert result.status is Status.OK
        assert result.value == 0.0
    assert not (tmp_path / "pwned").exists()


def test_malicious_ground_truth_is_never_executed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("The answer is \\boxed{5}", "open('pwned','w') or \\pi")
    assert result.value == 0.0
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "text",
    [
        "open('pwned','w')",
        "__import__('os')",
        "().__class__",
        "[x for x in ()]",
        "lambda: 1",
        "9**9**9",
        "'a'*10",
    ],
)
def test_numeric_literal_evaluates_only_arithmetic(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _sympy_grade.numeric_literal(text) is None
    assert not (tmp_path / "pwned").exists()


def test_numeric_literal_values():
    assert _sympy_grade.numeric_literal("2*3.14") == pytest.approx(6.28)
    assert _sympy_grade.numeric_literal(" [1, -2/4]") == [1, -0.5]
    assert _sympy_grade.numeric_literal("(1*3.14, 2)") == (3.14, 2)
    assert _sympy_grade.numeric_literal("1/0") is None


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "x.__class__",
        "open('f')",
        "lambda: 1",
        "[1, 2]",
        "'x'",
        "x if 1 else 2",
        "f(x)[0]",
    ],
)
def test_sympy_text_parser_rejects_code(text):
    assert _sympy_grade.parse_sympy_text(text) is None


@pytest.mark.parametrize(
    "text,expected", [("2x", "2*x"), ("x(x+1)", "x*(x + 1)"), ("5!", "120"), ("sqrt 2", "sqrt(2)")]
)
def test_sympy_text_parser_matches_parse_expr(text, expected):
    assert str(_sympy_grade.parse_sympy_text(text)) == expected


# --- blow-ups are refused, not computed


@pytest.mark.parametrize(
    "answer",
    ["9**9**9**9", "9**9**9\\pi", "2**99999999", "((9!)!)!", "10^{10^{10}}", "2^{99999999}", "(x+1)**100000"],
)
def test_huge_powers_and_factorials_are_refused(answer):
    assert run(f"The answer is \\boxed{{{answer}}}", "5").value == 0.0


def test_long_digit_runs_are_not_infinity():
    # float('1' * 400) is inf, so verl calls any two 400-digit numbers equal
    assert run("\\boxed{" + "1" * 400 + "}", "1" * 399 + "2").value == 0.0
    assert run("\\boxed{" + "1" * 400 + "}", "1" * 400).value == 1.0


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "response",
    [
        "a" * 1_000_000,
        "\\boxed{" * 100_000,
        "####" * 100_000,
        "1" * 100_000,
        "{" * 50_000 + "}" * 50_000,
        "\\pi" * 50_000,
        "\\frac" * 50_000,
        "İ" * 50_000 + " answer is 6",
        "\\boxed{" + "\\left(" * 400 + "x" + "\\right)" * 400 + "}",
        "\\boxed{" + "x+" * 3000 + "1}",
        "数学 答案是 \\boxed{五}",
    ],
    ids=[
        "1MB",
        "open-boxes",
        "hashes",
        "digits",
        "braces",
        "pi",
        "frac",
        "unicode",
        "nested-latex",
        "long-box",
        "cjk",
    ],
)
def test_adversarial_responses_score_zero(response):
    result = run(response, "5")
    assert result.status is Status.OK
    assert result.value == 0.0
    assert len(result.info["extracted"]) <= 1000


def test_correct_answer_after_a_megabyte_of_text():
    assert run("blah " * 200_000 + "The answer is \\boxed{5}", "5").value == 1.0
    assert run("İ" * 50_000 + " answer is 5", "5").value == 1.0  # verl: 0.0 (its cut drifts past the 5)


@pytest.mark.parametrize(
    "response,gt",
    [
        ("The answer is 42 #### 17", "42"),
        ("\\boxed{42 # 17}", "42"),
        ("\\boxed{x = 42 # or 17}", "42"),
        ("\\boxed{3 #}", "3"),
    ],
)
def test_hash_is_not_a_comment(response, gt):
    """Text after '#' must not be dropped as a Python comment (found by the verl parity bench)."""
    assert PrimeMathScorer().score(Sample(response, gt, "numina_olympiads")).value == 0.0


# ---------------------------------------------------------------------------------------------------------
# speed work that must not change a verdict


LATEX = [
    "\\frac{1}{2}+\\sqrt{3}",
    "\\left( \\frac{1}{2}, \\frac{\\sqrt{7}}{2} \\right)",
    "(-\\infty,-7) \\cup (1,2]",
    "e^{2 \\pi i/7}",
    "all multiples of 3",
    "x^2+2x+1=0",
    "\\begin{pmatrix}1 & 2\\\\ 3 & 4\\end{pmatrix}",
    "\\{1, 2\\}",
    "3,250",
    "\\frac{1}{",  # a syntax error: both raise
]


@pytest.mark.parametrize("text", LATEX)
def test_two_stage_latex_parse_equals_latex2sympy(text):
    from latex2sympy2_extended import latex2sympy

    from rewardloop.scorers._sympy_grade import _latex2sympy

    try:
        expected = latex2sympy(text)
    except Exception:
        with pytest.raises(Exception):  # noqa: B017 - latex2sympy raises plain Exceptions
            _latex2sympy(text)
        return
    assert _latex2sympy(text) == expected


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ("\\frac{\\sqrt{3}}{2}", "0.8660", True),  # constants: the numeric verdict
        ("\\frac{\\sqrt{3}}{2}", "0.87", False),
        ("2^{10}", "1024", True),
        ("x+x", "2x", True),  # symbols: simplify decides
        ("x^2", "2x", False),  # a difference that changes value is never zero
        ("x - x + 3", "3", True),
    ],
)
def test_symbolic_equal_shortcuts(a, b, equal):
    assert symbolic_equal(a, b) is equal


def test_unpickling_warms_prime_math_up():
    import pickle
    import subprocess
    import sys

    blob = pickle.dumps(PrimeMathScorer()).hex()
    code = (
        "import pickle, sys\n"
        "import rewardloop.scorers.prime_math\n"
        "before = 'latex2sympy2_extended' in sys.modules\n"
        f"pickle.loads(bytes.fromhex('{blob}'))\n"
        "print(before, 'latex2sympy2_extended' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.split() == ["False", "True"]
