"""Answer markers of many languages: a word meaning *answer* at a line's start, then a colon-like mark.

``Answer: 5`` has a form in nearly every language a model writes: ``Cevap: 5``, ``Đáp án: 5``, ``الإجابة: 5``,
``Odpowiedź: 5``. Rather than a few languages' markers, this module holds a broad lexicon of the words that
mean *answer* (``ANSWER_WORDS``) and the marks that work as a colon in any script (``COLONS``: by Unicode name,
every character called a colon, plus the Armenian and Ethiopic word separators); ``_equiv_extract`` reads
``<word> [up to two qualifying words] <colon> <value>`` at a line's start (after markdown heading or bold
marks) as an answer phrase, and a heading line holding only such a word as a heading whose next line is the
answer. Words meaning *result* or *solution* (``RESULT_WORDS``) open a worked solution as often as they state
a value ("Lösung: Wir setzen ..."), so they mark an answer only when nothing else does and what follows is a
value, not prose (see ``_equiv_extract.weak_phrase``).
"""

from __future__ import annotations

import re
import sys
import unicodedata

__all__ = ["ANSWER_HEADING", "ANSWER_LINE", "COLONS", "RESULT_LINE", "may_have_marker"]

# words meaning "answer" (with the article where the language glues it on: الإجابة, התשובה)
ANSWER_WORDS = (
    # Arabic, Persian, Urdu, Hebrew
    "الإجابة",
    "الاجابة",
    "إجابة",
    "اجابة",
    "الجواب",
    "جواب",
    "پاسخ",
    "جواب نهایی",
    "התשובה",
    "תשובה",
    # Turkic
    "cevap",
    "yanıt",
    "cavab",
    "javob",
    "жауап",
    "жооп",
    # Slavic
    "odpowiedź",
    "odpowiedz",
    "odpověď",
    "odpoveď",
    "відповідь",
    "адказ",
    "одговор",
    "odgovor",
    "отговор",
    "ответ",
    # Germanic, Romance, other European
    "antwoord",
    "svar",
    "svaret",
    "vastaus",
    "válasz",
    "răspuns",
    "raspuns",
    "atsakymas",
    "atbilde",
    "vastus",
    "përgjigja",
    "përgjigje",
    "respondo",
    "responsum",
    "ateb",
    "erantzuna",
    "απάντηση",
    "resposta",
    "risposta",
    "respuesta",
    "réponse",
    "reponse",
    "antwort",
    # South and South-East Asian
    "jawaban",
    "jawapan",
    "sagot",
    "đáp án",
    "đáp số",
    "trả lời",
    "उत्तर",
    "উত্তর",
    "ਉੱਤਰ",
    "ਜਵਾਬ",
    "જવાબ",
    "ઉત્તર",
    "ଉତ୍ତର",
    "విడై",
    "జవాబు",
    "సమాధానం",
    "விடை",
    "பதில்",
    "ಉತ್ತರ",
    "ഉത്തരം",
    "පිළිතුර",
    "คำตอบ",
    "ຄຳຕອບ",
    "ចម្លើយ",
    "အဖြေ",
    # East Asian (the glued forms 答案, 答え are read by _equiv_extract's own branches too)
    "答案",
    "答",
    "回答",
    "解答",
    "正解",
    "答え",
    "정답",
    "답",
    "답변",
    "хариу",
    "хариулт",
    # African, Caucasus
    "jibu",
    "impendulo",
    "idahun",
    "መልስ",
    "პასუხი",
    "պատասխան",
    "jawabu",
)
# words meaning "result" or "solution": a value only when nothing stronger marks one
RESULT_WORDS = (
    "result",
    "final result",
    "ergebnis",
    "lösung",
    "résultat",
    "resultat",
    "resultado",
    "risultato",
    "resultaat",
    "oplossing",
    "soluzione",
    "solución",
    "solução",
    "результат",
    "решение",
    "wynik",
    "rozwiązanie",
    "výsledek",
    "řešení",
    "sonuç",
    "çözüm",
    "hasil",
    "kết quả",
    "lời giải",
    "النتيجة",
    "الحل",
    "結果",
    "结果",
    "解",
    "결과",
    "풀이",
    "ผลลัพธ์",
    "परिणाम",
    "हल",
    "αποτέλεσμα",
    "λύση",
    "תוצאה",
    "פתרון",
    "tulos",
    "eredmény",
    "rezultat",
    "rezultatas",
)


def _colon_like() -> str:
    marks = {"\u1365", "\u1366", "\u2236", "\ua789"}  # Ethiopic colons, ratio, modifier letter colon
    for cp in range(sys.maxunicode + 1):
        ch = chr(cp)
        name = unicodedata.name(ch, "")
        if ("COLON" in name.split() or name.endswith(" COLON")) and unicodedata.category(ch).startswith("P"):
            marks.add(ch)
    marks.discard(";")
    return "".join(sorted(marks))


#: every character that works as a colon: ``:``, ``：``, ``﹕``, ``︓``, ``꞉`` (by Unicode name), and the like
COLONS = _colon_like()
_COLON_CLASS = "[" + re.escape(COLONS) + "]"


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w).replace("\\ ", "\\s+") for w in sorted(set(words), key=len, reverse=True))


# a line's start, markdown heading and emphasis marks, 【 or [
_LEAD = r"^[ \t]*(?:>[ \t]*)*(?:\#{1,6}[ \t]*)?(?:[*_]{1,3}[ \t]*)?[\u3010\[]?[ \t]*"
# the word, at most two qualifying words of letters only ("Jawaban akhir", "Đáp án cuối cùng"), then the colon
_QUALIFIED = r"(?![^\W\d_])(?:[ \t]+[^\W\d_][^\W\d_\u0300-\u036f]{0,14}){0,2}[ \t]*[\u3011\]]?[ \t]*(?:[*_]{1,3}[ \t]*)?"

#: ``Cevap: 5``, ``**Odpowiedź:** 5``, ``Jawaban akhir: 5``: the answer follows the match
ANSWER_LINE = (
    "(?i:" + _LEAD + "(?:" + _alternation(ANSWER_WORDS) + ")" + _QUALIFIED + _COLON_CLASS + ")[ \\t*_]*"
)
#: ``### Đáp án`` alone on its line: the answer is on the next line
ANSWER_HEADING = (
    "(?i:^[ \\t]*(?:\\#{1,6}[ \\t]*)(?:[*_]{1,3}[ \\t]*)?(?:"
    + _alternation(ANSWER_WORDS)
    + ")(?![^\\W\\d_])[ \\t]*(?:[*_]{1,3})?[ \\t]*"
    + _COLON_CLASS
    + "?[ \\t]*$)"
)
#: ``Ergebnis: 5``, ``解：$x=5$``
RESULT_LINE = re.compile(
    "(?i:" + _LEAD + "(?:" + _alternation(RESULT_WORDS) + ")" + _QUALIFIED + _COLON_CLASS + ")[ \\t*_]*",
    re.MULTILINE,
)
_ANY_MARKER = re.compile(
    "(?i:" + _LEAD + "(?:" + _alternation(ANSWER_WORDS) + ")(?![^\\W\\d_]))", re.MULTILINE
)


def may_have_marker(text: str) -> bool:
    """Whether a line of ``text`` starts with a word meaning answer (the cheap test before the phrase pattern)."""
    return _ANY_MARKER.search(text) is not None
