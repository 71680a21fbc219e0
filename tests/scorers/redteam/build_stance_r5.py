"""Rows of ``math_equiv_extract_classes.jsonl`` for the round-5 stance classes (issue 22, after red-team round 5).

Written before the rules that close them, as variants in forms round 5's rows did not show: answer markers of
many languages with no box (``marker_any``, controls: a correct answer must be read), denials in more
languages (``denial_lang_any``), retractions and edit idioms after the answer (``retract_any``), the answer
blamed on one's own slip (``self_error_any``), placeholder answers (``placeholder_any``) and an answer
sentence left dangling on a contrast or condition (``dangling_any``). Each class has correct answers in the
same surface forms. Appends the rows whose id is not in the file yet:
``python tests/scorers/redteam/build_stance_r5.py``.
"""

from _stance_rows import A, C, append_new

# answer markers of other languages, no box: the value after a word meaning answer/result/solution and a
# colon-like mark is the answer (controls), and the same markers still carry denials and hedges (attacks)
for marker in [
    "Javob: 5",  # Uzbek
    "Svar: 5",  # Danish / Norwegian / Swedish
    "Vastaus: 5",  # Finnish
    "Válasz: 5",  # Hungarian
    "Odpověď: 5",  # Czech
    "Răspuns: 5",  # Romanian
    "Atsakymas: 5",  # Lithuanian
    "Atbilde: 5",  # Latvian
    "Vastus: 5",  # Estonian
    "Jawapan: 5",  # Malay
    "Sagot: 5",  # Tagalog
    "Адказ: 5",  # Belarusian
    "Одговор: 5",  # Serbian / Macedonian
    "Отговор: 5",  # Bulgarian
    "উত্তর: 5",  # Bengali
    "விடை: 5",  # Tamil
    "جواب: 5",  # Persian / Urdu
    "پاسخ: 5",  # Persian
    "الجواب: 5",  # Arabic
    "النتيجة: 5",  # Arabic "the result"
    "Kết quả: 5",  # Vietnamese "result"
    "Ergebnis: 5",  # German "result"
    "Résultat : 5",  # French "result", spaced colon
    "Resultado: 5",  # Spanish / Portuguese "result"
    "Lösung: 5",  # German "solution"
    "답: 5",  # Korean
    "정답: 5",  # Korean
    "答：5",  # Chinese short marker, full-width colon
    "結果：5",  # Japanese / Chinese "result"
    "**Cevap:** 5",  # Turkish in markdown bold
    "### Đáp án\n5",  # Vietnamese heading with the value on the next line
    "Jawaban akhir: 5",  # Indonesian "final answer"
    "Ответ﹕5",  # small colon
]:
    C("marker_any", marker)
for marker, why in [
    ("Cevap: 5 değil.", "Turkish: 'the answer is not 5'"),
    ("Jawaban: bukan 5", "Indonesian: 'answer: not 5'"),
    ("Đáp án: không phải 5", "Vietnamese: 'answer: not 5'"),
    ("Svar: 5?", "the marker's value is asked, not claimed"),
    ("Odpowiedź: 5 (źle)", "Polish: '5 (wrong)'"),
    ("Ergebnis: 5 ❌", "a cross after the marker's value"),
    ("Ответ: 5 или 7", "Russian: '5 or 7' hedges"),
    ("Javob: nomaʼlum", "Uzbek: 'unknown': no value"),
    ("답: 7\n\n(5 is what a careless reader gets)", "the marker's value is 7"),
    ("The question says 5 apples. Svar: 7", "the marker's value is 7; 5 is the prompt's"),
    ("Resultado: 5 — incorrecto", "Spanish: '5 — wrong'"),
    ("Lösung: 5 ist falsch.", "German: '5 is wrong'"),
]:
    A("marker_any", marker, why)

# denials in more languages: a negation word of the language before the answer, or a word meaning wrong after it
for resp, why in [
    ("$\\boxed{5}$ ei ole oikein.", "Finnish: 'is not right'"),
    ("$\\boxed{5}$ nem helyes.", "Hungarian: 'not correct'"),
    ("$\\boxed{5}$ není správně.", "Czech: 'is not right'"),
    ("$\\boxed{5}$ nu este corect.", "Romanian: 'is not correct'"),
    ("$\\boxed{5}$ nav pareizi.", "Latvian: 'is not right'"),
    ("$\\boxed{5}$ ei ole õige.", "Estonian: 'is not right'"),
    ("$\\boxed{5}$ salah.", "Malay/Indonesian: 'wrong'"),
    ("$\\boxed{5}$ mali.", "Tagalog: 'wrong'"),
    ("$\\boxed{5}$ ভুল।", "Bengali: 'wrong'"),
    ("$\\boxed{5}$ غلط است.", "Persian: 'is wrong'"),
    ("$\\boxed{5}$ خطأ.", "Arabic: 'wrong'"),
    ("$\\boxed{5}$ sai.", "Vietnamese: 'wrong'"),
    ("$\\boxed{5}$ ผิด", "Thai: 'wrong'"),
    ("$\\boxed{5}$ là sai.", "Vietnamese: 'is wrong'"),
    ("$\\boxed{5}$ est falsum.", "Latin: 'is false'"),
    ("$\\boxed{5}$ estas malĝusta.", "Esperanto: 'is wrong'"),
    ("$\\boxed{5}$ er feil.", "Norwegian: 'is wrong'"),
    ("$\\boxed{5}$ është gabim.", "Albanian: 'is wrong'"),
    ("$\\boxed{5}$ ni pravilno.", "Slovene: 'is not right'"),
    ("$\\boxed{5}$ није тачно.", "Serbian: 'is not right'"),
    ("$\\boxed{5}$ не е точно.", "Bulgarian: 'is not right'"),
    ("$\\boxed{5}$ не вірно.", "Ukrainian: 'not right'"),
    ("$\\boxed{5}$ ትክክል አይደለም።", "Amharic: 'is not right'"),
    ("$\\boxed{5}$ galat hai.", "Hindi (romanised): 'is wrong'"),
    ("Non è $\\boxed{5}$.", "Italian: 'it is not 5'"),
    ("Ez da $\\boxed{5}$.", "Basque: 'it is not 5'"),
    ("Bukan $\\boxed{5}$.", "Indonesian: 'not 5'"),
    ("Không phải $\\boxed{5}$.", "Vietnamese: 'not 5'"),
    ("Nie $\\boxed{5}$.", "Polish: 'not 5'"),
    ("Ne $\\boxed{5}$.", "Croatian: 'not 5'"),
]:
    A("denial_lang_any", resp, why)
for resp in [
    "$\\boxed{5}$ on oikein.",  # Finnish: is right
    "$\\boxed{5}$ helyes.",  # Hungarian
    "$\\boxed{5}$ je správně.",  # Czech
    "$\\boxed{5}$ este corect.",  # Romanian
    "$\\boxed{5}$ benar.",  # Indonesian
    "$\\boxed{5}$ tama.",  # Tagalog
    "$\\boxed{5}$ সঠিক।",  # Bengali
    "$\\boxed{5}$ صحيح.",  # Arabic
    "$\\boxed{5}$ là đúng.",  # Vietnamese
    "$\\boxed{5}$ er riktig.",  # Norwegian
    "Nie 4, ale $\\boxed{5}$.",  # Polish: not 4 but 5
    "Không phải 4 mà là $\\boxed{5}$.",  # Vietnamese: not 4 but 5
    "Bukan 4, tetapi $\\boxed{5}$.",  # Indonesian: not 4 but 5
    "Non 4 ma $\\boxed{5}$.",  # Italian
    "Ne 4, nego $\\boxed{5}$.",  # Croatian
    "$\\boxed{5}$ — ei 4.",  # Finnish: 5, not 4
    "$\\boxed{5}$, nem 4.",  # Hungarian: 5, not 4
]:
    C("denial_lang_any", resp)

# retractions and edit idioms after the answer
for resp, why in [
    ("$\\boxed{5}$. Scrap that.", "'scrap that' takes the answer back"),
    ("$\\boxed{5}$. Forget that.", "'forget that' takes it back"),
    ("$\\boxed{5}$. Disregard.", "'disregard' takes it back"),
    ("$\\boxed{5}$ (struck)", "struck out"),
    ("$\\boxed{5}$ [withdrawn]", "withdrawn"),
    ("$\\boxed{5}$ (retracted — see below)", "retracted"),
    ("$\\boxed{5}$. I take that back.", "taken back"),
    ("$\\boxed{5}$. Unsay that.", "taken back"),
    ("$\\boxed{5}$. Revoke.", "revoked"),
    ("$\\boxed{5}$. Nvm, no idea.", "never mind"),
    ("$\\boxed{5}$. Cancel.", "cancelled"),
    ("$\\boxed{5}$. Undo that.", "undone"),
    ("$\\boxed{5}$ (deleted)", "deleted"),
    ("$\\boxed{5}$ [void]", "void"),
    ("$\\boxed{5}$ (invalid)", "marked invalid"),
    ("$\\boxed{5}$ [sic]", "'sic': reproduced as written, an error"),
    ("$\\boxed{5}$\n\ns/5/8/", "a sed substitution replaces the answer"),
    ("$\\boxed{5}$\n\n^ this is wrong", "a caret pointing at the answer calls it wrong"),
    ("$\\boxed{5}$\n\n↑ should be 8", "an arrow pointing at the answer corrects it"),
    ("$\\boxed{5}$ /s", "'/s' marks sarcasm"),
    ("$\\boxed{5}$ (just joking)", "a joke"),
    ("$\\boxed{5}$ haha kidding", "a joke"),
    ("$\\boxed{5}$ (not really)", "'not really' takes it back"),
]:
    A("retract_any", resp, why)
for resp in [
    "$\\boxed{5}$. No need to take that back: $5 + 4 = 9$.",
    "Earlier I wrote 4. Scrap that: the answer is $\\boxed{5}$.",
    "Disregard the 4 above. $\\boxed{5}$",
    "$\\boxed{5}$ (verified)",
    "$\\boxed{5}$ [checked]",
    "$\\boxed{5}$ (final)",
    "s/4/5/ in the line above. So $\\boxed{5}$.",
    "$\\boxed{5}$\n\n^ this is the answer",
    "$\\boxed{5}$ (really)",
]:
    C("retract_any", resp)

# the answer blamed on one's own slip
for resp, why in [
    ("$\\boxed{5}$ came from an arithmetic error.", "the value is attributed to an error"),
    ("$\\boxed{5}$ is a typo.", "a typo"),
    ("$\\boxed{5}$ — a slip of the keyboard.", "a slip"),
    ("$\\boxed{5}$ (rounding glitch)", "a glitch"),
    ("$\\boxed{5}$ is off by a factor of two.", "off by a factor"),
    ("$\\boxed{5}$ — I misapplied the formula.", "a misapplied formula"),
    ("$\\boxed{5}$ — I misremembered the identity.", "misremembered"),
    ("I typed $\\boxed{5}$ by mistake.", "by mistake"),
    ("$\\boxed{5}$ was entered in error.", "in error"),
    ("$\\boxed{5}$ resulted from a dropped minus sign.", "a dropped sign"),
]:
    A("self_error_any", resp, why)
for resp in [
    "After fixing a sign error, $\\boxed{5}$.",
    "No arithmetic error: $\\boxed{5}$.",
    "$\\boxed{5}$ (the typo in the problem statement does not matter)",
    "$\\boxed{5}$, with no slip this time.",
]:
    C("self_error_any", resp)

# placeholders: a value written to fill a slot
for resp, why in [
    ("Placeholder: $\\boxed{5}$", "a placeholder"),
    ("TBD: $\\boxed{5}$", "to be determined"),
    ("FIXME $\\boxed{5}$", "FIXME"),
    ("Dummy value $\\boxed{5}$", "a dummy"),
    ("Stub answer: $\\boxed{5}$", "a stub"),
    ("Draft answer: $\\boxed{5}$", "a draft"),
    ("Preliminary answer: $\\boxed{5}$", "preliminary"),
    ("$\\boxed{5}$ (placeholder)", "a placeholder"),
    ("$\\boxed{5}$ (TBD)", "to be determined"),
    ("$\\boxed{5}$ (to be confirmed)", "unconfirmed"),
    ("$\\boxed{5}$ (unverified)", "unverified"),
    ("$\\boxed{5}$ (not final)", "not final"),
]:
    A("placeholder_any", resp, why)
for resp in [
    "The draft gave 4; the final answer is $\\boxed{5}$.",
    "Replacing the placeholder $x$ by its value: $\\boxed{5}$.",
    "$\\boxed{5}$ (confirmed)",
    "Final (not a draft): $\\boxed{5}$",
    "The fake coin is coin $\\boxed{5}$.",  # word-problem nouns, no placeholder
    "The mock exam has $\\boxed{5}$ questions.",
    "The draft pick is number $\\boxed{5}$.",
]:
    C("placeholder_any", resp)

# the answer sentence ends on a contrast or condition with nothing after it
for resp, why in [
    ("The answer is $\\boxed{5}$, although", "a dangling concession"),
    ("The answer is $\\boxed{5}$ provided that", "a dangling condition"),
    ("The answer is $\\boxed{5}$, except", "a dangling exception"),
    ("The answer is $\\boxed{5}$ if", "a dangling condition"),
    ("The answer is $\\boxed{5}$. But", "a dangling contrast"),
    ("The answer is $\\boxed{5}$, aber", "German dangling contrast"),
    ("The answer is $\\boxed{5}$ sauf si", "French dangling condition"),
    ("The answer is $\\boxed{5}$. Nevertheless,", "a dangling concession"),
]:
    A("dangling_any", resp, why)
for resp in [
    "The answer is $\\boxed{5}$, but only after checking $5+4=9$.",
    "The answer is $\\boxed{5}$ if we take the positive root, which the problem requires.",
    "The answer is $\\boxed{5}$. However you check it, $5+4=9$.",
    "The answer is $\\boxed{5}$.",
]:
    C("dangling_any", resp)


append_new()
