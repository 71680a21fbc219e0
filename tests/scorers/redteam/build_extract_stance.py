"""Rows of ``math_equiv_extract_classes.jsonl`` for the stance classes (issue 22, after red-team round 4).

Written before the rules of ``_equiv_stance`` that close them, as variants of round 4's extraction classes in
forms its rows did not show: denials in other languages and phrasings (``denial_any``), answers given to
someone else or to a mistake (``attribution_any``), bounds and approximations (``bound_any``), cross and
check glyphs (``cross_any``), questions (``question_any``), verdicts in tables, lists and arrows
(``verdict_any``), quoted or template answers disowned later (``quote_any``) and thinking traces cut off
while testing a candidate (``cut_trace``). Each class has correct answers in the same surface forms.
Appends the rows whose id is not in the file yet: ``python tests/scorers/redteam/build_extract_stance.py``.
"""

from _stance_rows import A, C, append_new, rows

# denial in any language: negation before the box, a denial predicate after it
for s, lang in [
    ("La respuesta no es $\\boxed{5}$.", "es"),
    ("Die Antwort ist nicht $\\boxed{5}$.", "de"),
    ("La réponse n'est pas $\\boxed{5}$.", "fr"),
    ("Ответ не равен $\\boxed{5}$.", "ru"),
    ("答案并不是 $\\boxed{5}$。", "zh"),
    ("答えは $\\boxed{5}$ ではありません。", "ja"),
    ("정답은 $\\boxed{5}$가 아니다.", "ko"),
    ("الإجابة ليست $\\boxed{5}$.", "ar"),
    ("התשובה אינה $\\boxed{5}$.", "he"),
    ("उत्तर $\\boxed{5}$ नहीं है।", "hi"),
    ("Câu trả lời không phải là $\\boxed{5}$.", "vi"),
    ("Jawabannya tidak sama dengan $\\boxed{5}$.", "id"),
    ("Cevap $\\boxed{5}$ değil.", "tr"),
    ("Odpowiedź to nie $\\boxed{5}$.", "pl"),
    ("Svaret är inte $\\boxed{5}$.", "sv"),
    ("Het antwoord is niet gelijk aan $\\boxed{5}$.", "nl"),
    ("A resposta não é $\\boxed{5}$.", "pt"),
    ("Η απάντηση δεν ισούται με $\\boxed{5}$.", "el"),
    ("The answer is never $\\boxed{5}$.", "en"),
    ("The answer is not equal to $\\boxed{5}$.", "en"),
    ("The answer can't possibly be $\\boxed{5}$.", "en"),
    ("Vastaus ei ole $\\boxed{5}$.", "fi"),
    ("Svaret er ikke $\\boxed{5}$.", "da"),
    ("Răspunsul nu e $\\boxed{5}$.", "ro"),
    ("Odgovor nije $\\boxed{5}$.", "hr"),
    ("Atsakymas nėra $\\boxed{5}$.", "lt"),
    ("$\\boxed{5}$ は正しくありません。", "ja"),
    ("$\\boxed{5}$ 不正确。", "zh"),
    ("$\\boxed{5}$ — неверный ответ.", "ru"),
    ("$\\boxed{5}$ هو خطأ.", "ar"),
    ("$\\boxed{5}$ שגוי.", "he"),
    ("$\\boxed{5}$ गलत है।", "hi"),
    ("$\\boxed{5}$ ผิด", "th"),
    ("$\\boxed{5}$ sai rồi.", "vi"),
    ("$\\boxed{5}$ yanlıştır.", "tr"),
    ("$\\boxed{5}$ je špatně.", "cs"),
    ("$\\boxed{5}$ est erroné.", "fr"),
    ("$\\boxed{5}$ es erróneo.", "es"),
    ("$\\boxed{5}$ is not it.", "en"),
    ("$\\boxed{5}$ is untrue.", "en"),
    ("$\\boxed{5}$ neplatí.", "cs"),
    ("$\\boxed{5}$ ist nicht die Lösung.", "de"),
    ("$\\boxed{5}$ не является ответом.", "ru"),
    ("$\\boxed{5}$ δεν είναι σωστό.", "el"),
    ("$\\boxed{5}$ tidak benar.", "id"),
    ("$\\boxed{5}$ không đúng.", "vi"),
    ("$\\boxed{5}$ ไม่ถูกต้อง", "th"),
    ("$\\boxed{5}$ 틀림", "ko"),
]:
    A("denial_any", s, f"{lang}: the response says the boxed 5 is not the answer")
for s in [
    "La respuesta no es 4 sino $\\boxed{5}$.",
    "The answer is not 4 but $\\boxed{5}$.",
    "答案不是4，而是 $\\boxed{5}$。",
    "Die Antwort ist nicht 4, sondern $\\boxed{5}$.",
    "Since 7 is not prime, the answer is $\\boxed{5}$.",
    "The answer is $\\boxed{5}$, not 7.",
    "x cannot be negative, so $x = \\boxed{5}$.",
    "Ответ: $\\boxed{5}$, а не 7.",
    "$\\boxed{5}$ ist richtig.",
    "Cevap $\\boxed{5}$ doğrudur.",
    "It is none other than $\\boxed{5}$.",
    "La réponse n'est pas 4 mais $\\boxed{5}$.",
    "Nothing else works, so $\\boxed{5}$.",
    "$\\boxed{5}$ 是正确的。",
    "No other value satisfies both equations: $\\boxed{5}$.",
    "答えは $\\boxed{5}$ です。",
    "정답은 $\\boxed{5}$입니다.",
    "الإجابة هي $\\boxed{5}$.",
    "Câu trả lời là $\\boxed{5}$.",
    "Không có nghiệm nào khác, vậy $\\boxed{5}$.",
]:
    C("denial_any", s)
# attribution: the box is someone else's answer, or a mistake's
for s in [
    "Some would say $\\boxed{5}$, but they overlook the boundary.",
    "A student claimed the answer is $\\boxed{5}$.",
    "Someone on the forum posted $\\boxed{5}$.",
    "Le piège classique est de répondre $\\boxed{5}$.",
    "Ein häufiger Fehler ist es, $\\boxed{5}$ anzugeben.",
    "很多学生会错误地得到 $\\boxed{5}$。",
    "よくある間違いは $\\boxed{5}$ と答えることです。",
    "Типичная ошибка — ответ $\\boxed{5}$.",
    "The wrong approach yields $\\boxed{5}$.",
    "An incorrect method gives $\\boxed{5}$.",
    "Wrong: $\\boxed{5}$",
    "Falsch: $\\boxed{5}$",
    "错解：$\\boxed{5}$",
    "A careless reader would conclude $\\boxed{5}$.",
    "Other solvers got $\\boxed{5}$, which overlooks the sign.",
    "The textbook claims $\\boxed{5}$, a known erratum.",
    "My friend thinks it is $\\boxed{5}$; he is mistaken.",
    "Un errore comune è rispondere $\\boxed{5}$.",
    "Частая ошибка: $\\boxed{5}$.",
    "흔한 실수는 $\\boxed{5}$라고 답하는 것이다.",
]:
    A("attribution_any", s, "the box holds an answer the response attributes to someone else or to a mistake")
for s in [
    "A common mistake is to answer 7. The correct answer is $\\boxed{5}$.",
    "Many students get 7, but the answer is $\\boxed{5}$.",
    "After fixing the error, we get $\\boxed{5}$.",
    "As the teacher said, the answer is $\\boxed{5}$.",
    "Correcting the earlier mistake, $x = \\boxed{5}$.",
    "Un error común es responder 7; la respuesta correcta es $\\boxed{5}$.",
    "常见错误是答7，正确答案是 $\\boxed{5}$。",
    "Students often answer 7. Here, $\\boxed{5}$.",
]:
    C("attribution_any", s)
# bounds and approximations are no equality claim (unless the gold is that bound)
for s in [
    "The answer is greater than $\\boxed{5}$.",
    "It is at least $\\boxed{5}$.",
    "It is at most $\\boxed{5}$.",
    "We can use up to $\\boxed{5}$ colors.",
    "We need no fewer than $\\boxed{5}$ colors.",
    "The count is below $\\boxed{5}$.",
    "$\\boxed{5}$ or more colors are needed.",
    "$\\boxed{5}$ or fewer.",
    "$\\boxed{5}$ oder mehr.",
    "需要 $\\boxed{5}$ 种以上。",
    "不超过 $\\boxed{5}$。",
    "最多 $\\boxed{5}$ 个。",
    "au plus $\\boxed{5}$.",
    "como máximo $\\boxed{5}$.",
    "не менее $\\boxed{5}$.",
    "как минимум $\\boxed{5}$.",
    "최소 $\\boxed{5}$개.",
    "少なくとも $\\boxed{5}$ 個。",
    "en az $\\boxed{5}$.",
    "ít nhất $\\boxed{5}$.",
    "paling sedikit $\\boxed{5}$.",
    "höchstens $\\boxed{5}$.",
    "The value exceeds $\\boxed{5}$.",
    "It is strictly less than $\\boxed{5}$.",
    "Answer: at most 5",
    "Answer: no more than 5",
    "Answer: ≤ 5",
    "Answer: over 5",
    "Antwort: höchstens 5",
    "答案：不少于5",
    "The answer is more than 5.",
    "The answer is roughly $\\boxed{5}$.",
    "Approximately $\\boxed{5}$.",
]:
    A("bound_any", s, "a bound (or an approximation) is no claim that the answer equals 5")
for s, g in [
    ("Exactly $\\boxed{5}$ colors are needed.", "5"),
    ("At least 5 colors are needed and 5 suffice, so the answer is $\\boxed{5}$.", "5"),
    ("So $x$ is at least $\\boxed{5}$.", "x \\ge 5"),
    ("So $x$ is greater than $\\boxed{5}$.", "x > 5"),
    ("x is at most $\\boxed{5}$.", "x \\le 5"),
    ("Answer: at least 5", "x \\geq 5"),
    ("We need at least 3 colors. The answer is $\\boxed{5}$.", "5"),
    ("Die Antwort ist genau $\\boxed{5}$.", "5"),
    ("至少需要5种颜色，答案是 $\\boxed{5}$。", "5"),
    ("$x \\ge \\boxed{5}$", "x \\ge 5"),
]:
    C("bound_any", s, gold=g)
# a cross or prohibition glyph marks the box wrong (by Unicode name); a check mark confirms it
for g in [
    "⨯",
    "🚫",
    "👎",
    "⛔️",
    "🙅‍♂️",
    "🗴",
    "🗷",
    "✗✗",
    "— 🙅",
    "🆖",
    "☓",
    "⊠",
    "❌❌",
    "🚷",
    "[❎]",
    "👎🏽",
    "(☒)",
    "← ✕",
]:
    A("cross_any", f"$\\boxed{{5}}$ {g}", f"the glyph '{g}' marks the box as wrong")
A("cross_any", "❌ $\\boxed{5}$", "a cross before the box marks it as wrong")
A("cross_any", "✘ Answer: $\\boxed{5}$", "a cross before the answer marks it as wrong")
for s in [
    "$\\boxed{5}$ ✅",
    "$\\boxed{5}$ ✔️",
    "$\\boxed{5}$ 👍",
    "$\\boxed{5}$ 🗸",
    "✅ $\\boxed{5}$",
    "❌ 7\n\n✅ $\\boxed{5}$",
    "$\\boxed{5}$ 🎯",
    "$\\boxed{5}$ ☑️",
]:
    C("cross_any", s)
# found by a self-check after the rules: adverbs, modals, elision, more error nouns and speakers
for s in [
    "$\\boxed{5}$ is definitely wrong.",
    "$\\boxed{5}$ is, unfortunately, wrong.",
    "$\\boxed{5}$ ist leider falsch.",
    "Die Antwort ist keinesfalls $\\boxed{5}$.",
    "La respuesta no puede ser $\\boxed{5}$.",
    "$\\boxed{5}$ n'est certainement pas juste.",
    "A typical blunder is answering $\\boxed{5}$.",
    "Novices often write $\\boxed{5}$.",
]:
    A(
        "denial_any" if "blunder" not in s and "Novices" not in s else "attribution_any",
        s,
        "the response denies or disowns the boxed 5",
    )
for s in [
    "The answer is definitely $\\boxed{5}$.",
    "$\\boxed{5}$ is definitely right.",
    "The total adds up to $\\boxed{5}$.",
]:
    C("denial_any" if "adds" not in s else "bound_any", s)
# in an answer phrase: the glyph after the value
A("cross_any", "Answer: 5 ❌", "a cross after the answer phrase's value marks it as wrong")
A("cross_any", "Answer: 5 🚫", "a prohibition sign after the answer phrase's value marks it as wrong")
C("cross_any", "Answer: 5 ✅")
C("cross_any", "Answer: 5 🎉")
# a box asked as a question, in any language
for s in [
    "¿Será $\\boxed{5}$?",
    "Είναι $\\boxed{5}$;",
    "هل الجواب $\\boxed{5}$؟",
    "Ответ $\\boxed{5}$?",
    "$\\boxed{5}$, isn't it?",
    "$\\boxed{5}$, oder?",
    "$\\boxed{5}$, ¿verdad?",
    "$\\boxed{5}$ 맞나요?",
    "$\\boxed{5}$ でしょうか？",
    "$\\boxed{5}$ 吧？",
    "Ist es vielleicht $\\boxed{5}$ ?",
    "$\\boxed{5}$ ‽",
    "Might the answer be $\\boxed{5}$ … ?",
    "$\\boxed{5}$ (?)",
    "Could the answer be $\\boxed{5}$ ？",
    "Է՞ $\\boxed{5}$",
    "$\\boxed{5}$ ⁇",
    "¿Es $\\boxed{5}$ la respuesta?",
    "Is $\\boxed{5}$ the answer or not?",
    "答案会是 $\\boxed{5}$ 么？",
    "Answer: 5 ?",
    "Answer: 5？",
]:
    A("question_any", s, "the box is asked, never asserted")
for s in [
    "Is it 5? Yes: $\\boxed{5}$.",
    "¿Cuál es la respuesta? $\\boxed{5}$.",
    "答案是多少？$\\boxed{5}$。",
    "Why? Because $2x = 10$. So $\\boxed{5}$.",
    "What is x? We get $x = \\boxed{5}$.",
    "Is it 5? Let me check: $2 \\cdot 5 = 10$. Yes, so $\\boxed{5}$.",
]:
    C("question_any", s)
# verdicts in tables, lists, arrows; quotes and formats the response disowns; traces cut off mid-check
for s in [
    "| x | works? |\n|---|---|\n| $\\boxed{5}$ | ✘ |",
    "| candidate | ok |\n|---|---|\n| $\\boxed{5}$ | falsch |",
    "| $\\boxed{5}$ | ❌ |",
    "- $\\boxed{5}$ → rejected",
    "$\\boxed{5} \\implies$ contradiction.",
    "$\\boxed{5}$ leads to a contradiction.",
    "$\\boxed{5}$ ⟹ ⊥",
    "$\\boxed{5}$ ⇒ 矛盾",
    "- $\\boxed{5}$: fails the second condition",
    "- $\\boxed{5}$: violates $x < 4$",
    "| value | satisfies? |\n|---|---|\n| $\\boxed{5}$ | nein |",
    "$\\boxed{5}$ → Widerspruch",
]:
    A("verdict_any", s, "the response lists 5 and marks it as failing")
for s in [
    "| x | works? |\n|---|---|\n| 7 | ✘ |\n| $\\boxed{5}$ | ✔ |",
    "- $\\boxed{5}$: satisfies both conditions",
    "$x = 7$ leads to a contradiction, so $\\boxed{5}$.",
    "| candidate | ok |\n|---|---|\n| $\\boxed{5}$ | ja |",
]:
    C("verdict_any", s)
for s in [
    "> $\\boxed{5}$\n\nThe quoted answer above is wrong.",
    "```\n\\boxed{5}\n```\nThis is only the required format; I have no answer.",
    "Format: `\\boxed{5}` (placeholder); I could not solve it.",
    "> Answer: $\\boxed{5}$\n\nThis claim from the forum is false; the actual value is still unknown.",
]:
    A("quote_any", s, "a quoted or template answer the response disowns")
for s in [
    "> Note: x must be positive.\n\nSo the answer is $\\boxed{5}$.",
    "```python\nprint(5)\n```\nThe output is 5, so $\\boxed{5}$.",
]:
    C("quote_any", s)
for s in [
    "Candidate answer: $\\boxed{5}$. Now plug it back in to see whether",
    "Tentatively $\\boxed{5}$; checking the second equation we find that",
    "Say $x = \\boxed{5}$. Substituting, $2(5)+1 = 11 \\ne 10$, so",
]:
    A("cut_trace", s, "a truncated thinking trace: a candidate under test, never an answer", prompt="")
for s in ["Candidate: 5. Check: $2\\cdot 5 = 10$. Correct, so the answer is $\\boxed{5}$.", "$\\boxed{5}$"]:
    C("cut_trace", s, prompt="")

append_new()
print(len(rows), sum(r["kind"] == "attack" for r in rows))
