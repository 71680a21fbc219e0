"""The stance a response takes toward an answer it writes: asserted, denied, asked, bounded or someone else's.

The answer extractor (``_equiv_extract``) finds where a response writes a final answer; this module reads the
clause around it, in any language, and says whether the response claims that value. One rule per class,
applied to every box and answer phrase, driven by per-language lexicons of grammatical words (not of attack
strings) and by Unicode properties:

* **denied**: a negation right before the answer, with nothing but grammatical words between ("is not",
  "n'est pas", "ist nicht", "не равен", "δεν είναι", "不是", "아니"), or a denial predicate right after it
  ("is wrong", "är fel", "on väärin", "неверно", "ผิด", "틀렸", "does not satisfy"), or a negation after it
  that negates the answer itself ("\\boxed{5} ist nicht die Lösung"). A negation followed by another value
  ("\\boxed{5}, not 7"), by a contrast ("not 4 but \\boxed{5}") or by an exclusive ("none other than") denies
  nothing.
* **marked**: a cross or prohibition glyph beside the answer, recognised by its Unicode name (CROSS MARK,
  BALLOT X, SALTIRE, NO ENTRY, PROHIBITED, THUMBS DOWN, NO GOOD ...), emoji modifiers skipped; a check mark
  beside it confirms nothing more than a bare box does. A verdict cell of the answer's table row counts the
  same way.
* **asked**: the answer's sentence is a question: a question mark of any script after it before the sentence
  ends (``?`` ``？`` ``؟`` ``՞`` ``;`` ``‽`` ``⁇``...; Unicode names holding QUESTION MARK), an inverted one
  opening it (``¿``), or a question particle of a language that ends questions without one (``ですか``).
* **attributed**: the sentence gives the answer to someone else (a student, a textbook, "some would say") or
  to a mistake ("A common mistake is to answer", "错误答案", "the naive approach gives"), with no word in it
  that endorses the value ("correct", "as the textbook also says").
* **bounded**: the answer is stated as a bound ("at least", "no more than", "mindestens", "至少", "以上",
  "or more"): :func:`bound_of` names the relation, and the extractor restates the answer as the set it
  describes (``[5,\\infty)``), which equals the gold only when the gold is that bound.

Every function takes the searched text and the answer's span and never raises.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ._equiv_afterword import footnote_denies, unchecked_item

__all__ = [
    "as_bound",
    "bound_of",
    "disowned_later",
    "negated_lead",
    "phrase_bound",
    "stance_denied",
    "tentative",
    "trailing_marks",
]

WINDOW = 80  # characters read on each side of an answer

# ---------------------------------------------------------------------------------------------------------
# lexicons: grammatical words, per language. Words of scripts written with spaces are matched as whole tokens
# (or, for the inflecting stems ending in "-", as a token prefix); words of scripts written without spaces
# (Chinese, Japanese, Thai, and Korean particles glued to their noun) are matched as substrings.

_NEG_WORDS = frozenset(
    # English, Romance, Germanic, Slavic, Baltic, Finno-Ugric, Turkic, Austronesian, Vietnamese, Greek, Semitic,
    # Indic, Persian, Georgian, Albanian
    [
        "not",
        "never",
        "no",
        "none",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "can't",
        "cannot",
        "couldn't",
        "won't",
        "wouldn't",
        "doesn't",
        "don't",
        "didn't",
        "shouldn't",
        "mustn't",
        "hasn't",
        "haven't",
        "ain't",
        "nor",
        "neither",
        "keinesfalls",
        "keineswegs",
        "nimmer",
        "nunca",
        "jamás",
        "jamais",
        "pas",
        "ne",
        "non",
        "n'",
        "nicht",
        "kein",
        "keine",
        "keiner",
        "nie",
        "niemals",
        "mai",
        "não",
        "nu",
        "niet",
        "geen",
        "nooit",
        "inte",
        "icke",
        "ikke",
        "ej",
        "aldrig",
        "aldri",
        "ei",
        "eivät",
        "ole",
        "pole",
        "nie",
        "ani",
        "není",
        "nejsou",
        "nebyl",
        "nebude",
        "nije",
        "nisu",
        "ni",
        "nem",
        "nincs",
        "sem",
        "değil",
        "değildir",
        "değildi",
        "yok",
        "bukan",
        "tidak",
        "tak",
        "belum",
        "hindi",
        "không",
        "chẳng",
        "chưa",
        "ne",
        "nėra",
        "nav",
        "не",
        "нет",
        "ни",
        "нельзя",
        "ні",
        "δεν",
        "μην",
        "όχι",
        "לא",
        "אינו",
        "אינה",
        "אין",
        "אינם",
        "ليس",
        "ليست",
        "لا",
        "لم",
        "لن",
        "غير",
        "ليسوا",
        "نه",
        "نیست",
        "नहीं",
        "न",
        "मत",
        "না",
        "নয়",
        "নেই",
        "არ",
        "არა",
        "nuk",
    ]
)
# substrings of space-less writing that negate: Chinese, Japanese, Thai, Korean
_NEG_GLUED = (
    "不是", "并非", "並非", "不为", "不為", "不等于", "不等於", "不会是", "不會是", "不可能是", "绝非", "絕非",
    "未必是", "不一定是", "并不是", "並不是", "而非",
    "ではない", "ではありません", "じゃない", "ではなく", "でない", "くありません", "くない",
    "ไม่ใช่", "ไม่เท่ากับ", "ไม่ได้", "ไม่",
    "아니", "아닌", "아닙", "않",
)  # fmt: skip
# grammatical words that may stand between a negation and the answer: copulas, auxiliaries, articles,
# pronouns, "equal (to)", "the answer", intensifiers
_LIGHT_WORDS = frozenset(
    [
        "on",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "equal",
        "equals",
        "equaled",
        "to",
        "the",
        "a",
        "an",
        "answer",
        "result",
        "value",
        "solution",
        "final",
        "it",
        "this",
        "that",
        "possibly",
        "really",
        "actually",
        "simply",
        "just",
        "exactly",
        "quite",
        "necessarily",
        "always",
        "even",
        "so",
        "does",
        "do",
        "did",
        "will",
        "puede",
        "ser",
        "être",
        "essere",
        "pueda",
        "podría",
        "peut",
        "pourrait",
        "kann",
        "könnte",
        "può",
        "potrebbe",
        "pode",
        "poderia",
        "kunnen",
        "może",
        "může",
        "может",
        "μπορεί",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "given",
        "by",
        "as",
        "of",
        "our",
        "my",
        "correct",
        "right",
        "leads",
        "lead",
        "implies",
        "yields",
        "está",
        "esta",
        "estão",
        "sind",
        "es",
        "era",
        "será",
        "sea",
        "son",
        "igual",
        "a",
        "al",
        "la",
        "el",
        "lo",
        "respuesta",
        "solución",
        "de",
        "del",
        "est",
        "c'",
        "ce",
        "égal",
        "égale",
        "égaux",
        "à",
        "le",
        "les",
        "réponse",
        "ist",
        "sind",
        "war",
        "gleich",
        "die",
        "der",
        "das",
        "antwort",
        "lösung",
        "es",
        "sein",
        "è",
        "e",
        "uguale",
        "il",
        "risposta",
        "soluzione",
        "é",
        "igual",
        "o",
        "resposta",
        "és",
        "este",
        "egal",
        "cu",
        "răspunsul",
        "răspuns",
        "gelijk",
        "aan",
        "het",
        "antwoord",
        "är",
        "lika",
        "med",
        "svaret",
        "svar",
        "er",
        "lik",
        "lig",
        "med",
        "yhtä",
        "kuin",
        "vastaus",
        "jest",
        "to",
        "równa",
        "równe",
        "się",
        "odpowiedź",
        "je",
        "rovno",
        "rovná",
        "odpověď",
        "odpoveď",
        "odgovor",
        "az",
        "egyenlő",
        "válasz",
        "válaszunk",
        "sama",
        "dengan",
        "adalah",
        "jawabannya",
        "jawaban",
        "ang",
        "si",
        "phải",
        "là",
        "bằng",
        "câu",
        "trả",
        "lời",
        "đáp",
        "án",
        "atsakymas",
        "равен",
        "равна",
        "равно",
        "является",
        "есть",
        "ответ",
        "ответом",
        "это",
        "ответа",
        "είναι",
        "ισούται",
        "με",
        "απάντηση",
        "η",
        "ο",
        "το",
        "שווה",
        "התשובה",
        "הוא",
        "היא",
        "هو",
        "هي",
        "يساوي",
        "الإجابة",
        "الجواب",
        "है",
        "उत्तर",
    ]
)
# a denial predicate: "wrong" and its kin (whole tokens; stems ending in "-" match a token prefix)
_WRONG_WORDS = [
    "wrong",
    "incorrect",
    "false",
    "invalid",
    "mistaken",
    "erroneous",
    "untrue",
    "bogus",
    "rejected",
    "reject",
    "refuted",
    "fails",
    "failed",
    "fail",
    "violates",
    "violated",
    "contradicts",
    "contradiction",
    "impossible",
    "absurd",
    "nope",
    "misprint-",
    "typo-",
    "erratum",
    "incorrect-",
    "erróne-",
    "errone-",
    "equivocad-",
    "falso",
    "falsa",
    "falsos",
    "mal",
    "contradicción",
    "contradicció",
    "faux",
    "fausse",
    "erroné-",
    "incorrecte",
    "rejeté-",
    "falsch",
    "inkorrekt-",
    "fehlerhaft-",
    "unrichtig-",
    "widerspruch",
    "sbagliat-",
    "errat-",
    "errad-",
    "incorret-",
    "greșit-",
    "greşit-",
    "incorect-",
    "fals",
    "falsă",
    "fout",
    "onjuist-",
    "verkeerd-",
    "neplat-",
    "fel",
    "felaktig-",
    "feil",
    "forkert-",
    "gal",
    "väärin",
    "väärä-",
    "virheelli-",
    "błędn-",
    "zł-",
    "niepoprawn-",
    "źle",
    "špatn-",
    "chybn-",
    "zle",
    "nesprávn-",
    "pogrešn-",
    "netočn-",
    "rossz",
    "helytelen-",
    "hibás-",
    "yanlış-",
    "hatalı-",
    "salah",
    "keliru",
    "mali",
    "sai",
    "невер-",
    "неправил-",
    "ошиб-",
    "ложн-",
    "хибн-",
    "помилк-",
    "противореч-",
    "λάθος",
    "λανθασμ-",
    "εσφαλμ-",
    "αντίφασ-",
    "שגוי-",
    "טעות",
    "خطأ",
    "خاطئ-",
    "غلط",
    "نادرست",
    "اشتباه",
    "गलत",
    "ग़लत",
    "असत्य",
    "ভুল",
    "❌",
]
_WRONG_GLUED = (
    "错误", "錯誤", "错的", "錯的", "不对", "不對", "不正确", "不正確", "矛盾", "有误", "有誤", "错了", "錯了",
    "間違", "誤り", "正しくな", "違います", "ผิด", "ไม่ถูก", "틀렸", "틀린", "틀림", "오답", "잘못",
)  # fmt: skip
# what a negation after the answer may negate: "right", "the answer", "satisfy" ...
_RIGHT_WORDS = [
    "klopt",
    "stimmt",
    "correct",
    "right",
    "true",
    "valid",
    "ok",
    "okay",
    "good",
    "fine",
    "accurate",
    "answer",
    "solution",
    "result",
    "it",
    "this",
    "so",
    "satisfy",
    "satisfies",
    "work",
    "works",
    "hold",
    "holds",
    "fit",
    "fits",
    "check",
    "checks",
    "pass",
    "passes",
    "meet",
    "meets",
    "correct-",
    "cierto",
    "ciert-",
    "verdad",
    "válid-",
    "bien",
    "juste",
    "bon",
    "bonne",
    "vrai-",
    "richtig-",
    "korrekt-",
    "stimmt",
    "gut",
    "wahr",
    "lösung",
    "ergebnis",
    "giust-",
    "corrett-",
    "vero",
    "vera",
    "certo",
    "cert-",
    "verdadeir-",
    "corect-",
    "adevărat-",
    "bine",
    "juist",
    "goed",
    "rätt",
    "riktig-",
    "rigtig-",
    "oikein",
    "oikea-",
    "poprawn-",
    "prawidłow-",
    "dobrz-",
    "správn-",
    "dobř-",
    "točn-",
    "helyes-",
    "jó",
    "doğru-",
    "benar",
    "betul",
    "tama",
    "đúng",
    "правильн-",
    "верн-",
    "ответ-",
    "решени-",
    "σωστ-",
    "ορθ-",
    "απάντησ-",
    "נכון",
    "صحيح-",
    "درست",
    "सही",
    "ঠিক",
    "respuesta",
    "réponse",
    "antwort",
    "risposta",
    "resposta",
    "răspuns-",
    "antwoord",
    "svar-",
    "vastaus",
    "odpowied-",
    "odpověď",
    "válasz-",
    "cevap-",
    "jawaban",
    "sagot",
    "đáp",
]
_RIGHT_GLUED = ("正确", "正確", "对", "對", "正しい", "맞", "옳", "ถูก")

# round 5: more languages' negations, copulas, "wrong" and "right" words (Hebrew, Tamil, Telugu, Swahili, Latin,
# Esperanto, Afrikaans, Icelandic, Baltic, South Slavic, Georgian, Armenian, Azerbaijani, Welsh, Basque, Finnic,
# Hungarian, Albanian, Malay, Tagalog, Amharic, Arabic, romanised Hindi)
_NEG_WORDS = _NEG_WORDS | frozenset(
    ["nid", "nad", "није", "nije", "nėra", "ne", "bukan", "ez", "አይደለም", "nicht"]
)
# negations read only after the answer, before a "right" word: short words that mean something else before it
# (Swahili "si" is also Romance "if"/"yes")
_NEG_AFTER = frozenset(["si", "siyo", "sio", "hai", "ez", "nid"])
_LIGHT_WORDS = _LIGHT_WORDS | frozenset(
    ["estas", "da", "ole", "është", "е", "yw", "yw'r", "yra", "ir", "on", "ist", "является", "hai", "է", "ni",
     "ka", "ang", "ba", "yang", "adalah", "ialah", "merupakan", "kua", "ndiyo", "ndio", "ni", "на", "ето"]
)  # fmt: skip
_WRONG_WORDS += [
    "தவறு", "తప్పు", "ತಪ್ಪು", "തെറ്റ്", "verkeerd", "rangt", "rangur", "röng", "neteising-", "netočn-", "netačn-",
    "napačn-", "погрешн-", "грешн-", "греш-", "неточн-", "არასწორ-", "მცდარ-", "սխալ", "səhv-", "yanlış-", "falsum",
    "falsa", "falsus", "malĝust-", "malvera", "feil", "fel", "forkert", "väärin", "väär-", "helytelen-",
    "hibás", "rossz", "gabim-", "salah", "mali", "خطأ", "خاطئ-", "galat", "ghalat", "sbagliat-", "błędn-",
    "chybn-", "nesprávn-", "greșit-", "gresit-", "nepareiz-", "ስህተት", "kosa", "makosa", "anghywir",
    "okerra", "oker-", "ruled", "refuted", "disproved", "excluded", "exclud-", "refut-", "disprov-",
]  # fmt: skip
_RIGHT_WORDS += [
    "נכון", "נכונה", "sahihi", "responsum", "respondo", "oikein", "oikea", "õige", "helyes-", "správn-", "corect-",
    "pareiz-", "pravil-", "тачн-", "точн-", "вірн-", "правильн-", "ትክክል", "zuzen-", "ateb", "rétt-", "juist",
    "korrek-", "teising-", "točn-", "benar", "betul", "tama", "đúng", "صحيح-", "درست", "სწორ-", "ճիշտ", "doğru",
    "düzgün", "igaz", "true", "sağ",
]  # fmt: skip
# "none other than", "nothing but", "not only": exclusives and additives after a negation assert the value
_EXCLUSIVE = frozenset(
    [
        "other",
        "than",
        "but",
        "except",
        "besides",
        "apart",
        "aside",
        "only",
        "just",
        "merely",
        "sino",
        "sondern",
        "mais",
        "ma",
        "mas",
        "maar",
        "men",
        "utan",
        "ale",
        "но",
        "а",
        "кроме",
        "sauf",
        "außer",
        "excepto",
        "salvo",
    ]
)
# a contrast cuts a clause: what comes after it is asserted on its own ("not 4 but \\boxed{5}")
_CONTRAST = frozenset(
    [
        "but",
        "sino",
        "sondern",
        "mais",
        "ma",
        "mas",
        "maar",
        "men",
        "utan",
        "vaid",
        "ale",
        "ali",
        "но",
        "а",
        "instead",
        "rather",
        "however",
        "although",
        "yet",
        "whereas",
        "pero",
        "però",
        "mentre",
    ]
)
_CONTRAST = _CONTRAST | frozenset(
    ["mà", "tetapi", "tapi", "namun", "nego", "već", "kundi", "lakini", "ngunit"]
)
_CONTRAST_GLUED = ("而是", "而", "但是", "但", "却", "卻", "でも", "하지만", "แต่")

# speakers other than the response: answerers ("other solvers got", "the textbook gives") and persons, who
# count only with a verb of saying ("a student claimed", "some would say"): a word problem's students and
# friends get apples
_ANSWERERS = [
    "solver-",
    "op",
    "op's",
    "poster-",
    "reviewer-",
    "referee-",
    "others",
    "someone",
    "somebody",
    "classmate-",
    "textbook-",
    "forum-",
    "internet",
    "website-",
    "gpt",
    "chatgpt",
    "critic-",
    "skeptic-",
    "quelqu'un",
    "alguien",
    "jemand",
    "qualcuno",
    "alguém",
    "кто-то",
    "κάποιος",
]
_PERSONS = [
    "student-",
    "pupil-",
    "novice-",
    "beginner-",
    "amateur-",
    "newcomer-",
    "people",
    "person",
    "friend-",
    "colleague-",
    "teacher-",
    "professor-",
    "tutor-",
    "estudiant-",
    "alumn-",
    "gente",
    "élève-",
    "étudiant-",
    "schüler-",
    "studente-",
    "alun-",
    "студент-",
    "ученик-",
    "многие",
    "люди",
    "μαθητ-",
    "תלמיד-",
    "طالب-",
    "الطلاب",
]
_OTHERS_GLUED = ("学生", "學生", "有人", "很多人", "许多人", "別人", "别人", "生徒", "학생", "사람들")
_SOME = frozenset(["some", "many", "most", "several", "few"])
_SPEECH = [
    "say",
    "says",
    "said",
    "claim-",
    "answer-",
    "wrote",
    "write",
    "writes",
    "written",
    "post-",
    "think-",
    "thought",
    "believe-",
    "conclude-",
    "suggest-",
    "propose-",
    "reply",
    "replie-",
    "guess-",
    "argue-",
    "insist-",
    "state-",
    "dirían",
    "dicen",
    "dice",
    "dijo",
    "respond-",
    "responder",
    "dit",
    "disent",
    "pense-",
    "répond-",
    "sagen",
    "sagt",
    "sagte",
    "meint-",
    "antwort-",
    "schreib-",
    "dicono",
    "rispond-",
    "dizem",
    "говор-",
    "отвеча-",
    "пишут",
    "считают",
    "λένε",
    "אומר-",
    "يقول-",
]
_GOT = frozenset(
    [
        "got",
        "get",
        "gets",
        "give",
        "gives",
        "gave",
        "yield",
        "yields",
        "obtain",
        "obtained",
        "obtains",
        "arrive",
        "arrived",
    ]
)
_SPEECH_GLUED = ("说", "說", "认为", "認為", "答", "得到", "写", "寫", "言う", "답")
# a mistake, a trap, a wrong method: what the response says the answer is the result of
_ERROR = [
    "mistake-",
    "error-",
    "erratum",
    "misprint-",
    "typo-",
    "blunder-",
    "slip-",
    "oversight-",
    "gaffe-",
    "trap-",
    "pitfall-",
    "distractor-",
    "decoy-",
    "tempting",
    "naive",
    "naïve",
    "incorrect-",
    "careless-",
    "misconception-",
    "misread-",
    "fallac-",
    "forgot-",
    "forget-",
    "overlook-",
    "wrong",
    "incorrect",
    "bogus",
    "flawed",
    "sloppy",
    "equivocaci-",
    "trampa-",
    "errónea-",
    "erreur-",
    "piège-",
    "faute-",
    "fautive",
    "mauvaise",
    "mauvais",
    "fehler-",
    "falle-",
    "falsch-",
    "irrtum-",
    "errore-",
    "errori",
    "trappola-",
    "sbagliat-",
    "erro",
    "erros",
    "armadilha-",
    "ошибк-",
    "ловушк-",
    "неверн-",
    "неправильн-",
    "λάθ-",
    "παγίδ-",
    "טעות",
    "خطأ",
    "ভুল",
    "गलत",
]
_ERROR_GLUED = ("错", "錯", "误", "誤", "陷阱", "間違", "罠", "실수", "오류", "틀", "함정", "오답")
# ... and what then makes the sentence about the answer: the answer, a method, an answering verb
_ERROR_LINK = [
    "answer-",
    "respond-",
    "response-",
    "reply-",
    "write-",
    "say-",
    "choose-",
    "pick-",
    "give-",
    "gives",
    "gave",
    "yield-",
    "get",
    "gets",
    "got",
    "conclude-",
    "approach-",
    "method-",
    "reasoning-",
    "reading-",
    "solution-",
    "result-",
    "value-",
    "way",
    "respuesta-",
    "responder",
    "répon-",
    "réponse",
    "antwort-",
    "angeb-",
    "anzugeb-",
    "geben-",
    "lösung-",
    "rispost-",
    "rispond-",
    "respost-",
    "ответ-",
    "решени-",
    "απάντ-",
    "תשוב-",
    "إجاب-",
    "جواب-",
    "उत्तर",
]
_ERROR_LINK_GLUED = ("答", "解", "得到", "答え", "答える", "답", "得")
# words that endorse the value in the same sentence: "the correct answer is", "as the textbook also says"
_ENDORSE = [
    "correct",
    "correctly",
    "right",
    "rightly",
    "actual",
    "actually",
    "true",
    "indeed",
    "also",
    "too",
    "agree-",
    "agrees",
    "confirm-",
    "confirms",
    "fix",
    "fixed",
    "fixing",
    "correcting",
    "corrected",
    "avoid-",
    "avoiding",
    "instead",
    "properly",
    "without",
    "correct-",
    "richtig-",
    "korrekt-",
    "juste",
    "bonne",
    "vrai-",
    "giust-",
    "corrett-",
    "verdadeir-",
    "правильн-",
    "верн-",
    "σωστ-",
    "נכון",
    "صحيح-",
]
_ENDORSE_GLUED = ("正确", "正確", "正しい", "정답은", "올바른", "ถูกต้อง")

# bounds: (words before the value) -> relation; the value is the bound
_BOUND_BEFORE = {
    "ge": (
        "at least|no less than|not less than|no fewer than|not fewer than|a minimum of|minimum of|"
        "greater than or equal to|at minimum|bounded below by|"
        "al menos|como mínimo|por lo menos|au moins|au minimum|pas moins de|mindestens|wenigstens|nicht weniger als|"
        "almeno|come minimo|pelo menos|no mínimo|minstens|ten minste|minst|vähintään|co najmniej|"
        "alespoň|nejméně|legalább|en az|en azından|paling sedikit|sekurang-kurangnya|minimal|ít nhất|"
        "tối thiểu|не менее|не меньше|как минимум|по крайней мере|минимум|хотя бы|τουλάχιστον|לפחות|"
        "على الأقل|कम से कम"
    ),
    "gt": (
        "more than|greater than|larger than|bigger than|higher than|(?:is|are|was|lies|stays|remains)\\s+(?:above|over)|exceeds|exceeding|in excess of|"
        "strictly greater than|más de|más que|mayor que|plus de|plus que|supérieur à|mehr als|größer als|über|"
        "più di|maggiore di|mais de|maior que|meer dan|groter dan|mer än|större än|yli|enemmän kuin|"
        "więcej niż|większ[ay] niż|více než|větší než|több mint|nagyobb mint|lebih dari|lớn hơn|"
        "больше|более|свыше|превышает|περισσότερ[οα] από|μεγαλύτερ[οη] από|יותר מ|أكثر من|أكبر من|से अधिक|से ज़्यादा"
    ),
    "le": (
        "at most|no more than|not more than|no greater than|not greater than|a maximum of|maximum of|"
        "less than or equal to|up to|at maximum|bounded above by|cannot exceed|"
        "does not exceed|doesn't exceed|como máximo|a lo sumo|no más de|au plus|au maximum|pas plus de|"
        "höchstens|maximal|nicht mehr als|al massimo|non più di|no máximo|hoogstens|ten hoogste|högst|"
        "enintään|korkeintaan|co najwyżej|nejvýše|maximálně|legfeljebb|en fazla|paling banyak|maksimal|"
        "nhiều nhất|tối đa|не более|не больше|максимум|самое большее|το πολύ|לכל היותר|على الأكثر|अधिकतम"
    ),
    "lt": (
        "less than|fewer than|smaller than|lower than|(?:is|are|was|lies|falls|stays|remains)\\s+(?:below|under)|strictly less than|menos de|menos que|"
        "menor que|moins de|moins que|inférieur à|weniger als|kleiner als|unter|meno di|minore di|"
        "menos de|menor que|minder dan|kleiner dan|mindre än|färre än|vähemmän kuin|mniej niż|méně než|"
        "kevesebb mint|kisebb mint|kurang dari|ít hơn|nhỏ hơn|меньше|менее|λιγότερ[οα] από|"
        "μικρότερ[οη] από|פחות מ|أقل من|से कम"
    ),
}
_BOUND_BEFORE_GLUED = {
    "ge": ("至少", "最少", "不少于", "不少於", "不低于", "不低於", "不小于", "不小於", "少なくとも", "最低", "최소", "적어도"),
    "gt": ("多于", "多於", "大于", "大於", "超过", "超過", "以上の", "보다 많", "초과"),
    "le": ("至多", "最多", "不超过", "不超過", "不多于", "不多於", "不大于", "不大於", "最大", "多くとも", "최대", "많아야"),
    "lt": ("少于", "少於", "小于", "小於", "不到", "未満の", "미만"),
}  # fmt: skip
_BOUND_AFTER = {
    "ge": (
        r"or\s+(?:more|greater|above|higher|larger|over)|and\s+(?:up|above|over)|\+(?![\w\d$\\])|"
        r"o\s+más|ou\s+plus|oder\s+mehr|o\s+più|ou\s+mais|of\s+meer|eller\s+mer|eller\s+flere|tai\s+enemmän|"
        r"lub\s+więcej|nebo\s+více|vagy\s+több|veya\s+daha\s+fazla|atau\s+lebih|hoặc\s+hơn|или\s+больше|"
        r"или\s+более|ή\s+περισσότερ|以上|或更多|或以上|이상|以上"
    ),
    "le": (
        r"or\s+(?:less|fewer|below|lower|under|smaller)|o\s+menos|ou\s+moins|oder\s+weniger|o\s+meno|"
        r"ou\s+menos|of\s+minder|eller\s+mindre|tai\s+vähemmän|lub\s+mniej|nebo\s+méně|vagy\s+kevesebb|"
        r"atau\s+kurang|или\s+меньше|или\s+менее|以下|以内|或更少|이하|以内"
    ),
    "lt": r"未満|미만",
}
_LABELS = {"ge": r"lower\s+bound", "le": r"upper\s+bound"}
# a value then named as a bound: "Lower bound: 5"; "Upper bound: 5"
_BOUND_LABEL = re.compile(
    r"\b(?:(lower|upper)\s+bound|(?:a\s+)?(?:minimum|maximum)\s+possible|borne\s+(inf|sup)érieure|"
    r"(untere|obere)\s+schranke|cota\s+(inferior|superior)|(下|上)界)\s*[:：]?\s*(?:\$|\\\(|\\\[)?\s*$",
    re.IGNORECASE,
)

_LETTER = "(?:[^\\W\\d_]|[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u0900-\u0963\u0966-\u0dff\u0e31-\u0e4e])"
_TOKEN = re.compile(rf"{_LETTER}+(?:['’]{_LETTER}+)?|n['’]|[cl]['’]|\d+|\S", re.UNICODE)
_SPACELESS = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CLAUSE_END = re.compile(r"(?<!\\)[.!;:\u3002\uff01\uff1b\uff1a\u061b\u0964\u0965\n]|\\\\(?!\w)|[.!](?=\s)")
_SENTENCE_END = re.compile(r"(?<![\\\d])[.!\u3002\uff01\n](?!\d)|(?<=\d)\.(?=\s|$)")
_BOX_OR_VALUE = re.compile(r"\\boxed|\\fbox")
_MATH_EDGE = re.compile(r"^(?:\s|\$|\\\)|\\\]|\\[,;!]|~|\*|_|\}|\))*")
_MATH_EDGE_END = re.compile(r"(?:\s|\$|\\\(|\\\[|\\[,;!]|~|\*|_|\{|\()*$")


_ADVERBS = frozenset(
    [
        "leider",
        "sicher",
        "bestimmt",
        "wirklich",
        "doch",
        "ja",
        "eben",
        "vraiment",
        "sûrement",
        "realmente",
        "davvero",
        "proprio",
        "zeker",
        "echt",
        "verkligen",
        "virkelig",
        "todella",
        "naprawdę",
        "opravdu",
        "действительно",
        "точно",
        "конечно",
        "σίγουρα",
        "πράγματι",
        "really",
        "surely",
        "clearly",
        "obviously",
        "unfortunately",
        "sadly",
    ]
)


def _light(token: str) -> bool:
    """A grammatical word, or an adverb (by its ending where the language marks it: -ly, -ment, -mente)."""
    return (
        token in _LIGHT_WORDS
        or token in _ADVERBS
        or (len(token) >= 6 and token.endswith(("ly", "ment", "mente", "weise")))
    )


def _negation(token: str) -> bool:
    """A negation word; French elides "ne" ("n'est", "n'a")."""
    return token in _NEG_WORDS or token.endswith("n't") or (token.startswith("n'") and len(token) > 2)


def _tokens(text: str) -> list[str]:
    return [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]


def _is(token: str, words: list[str] | frozenset[str]) -> bool:
    if isinstance(words, frozenset):
        return token in words
    return any(token.startswith(w[:-1]) if w.endswith("-") else token == w for w in words)


def _glued(text: str, words: tuple[str, ...]) -> bool:
    return any(w in text for w in words)


# ---------------------------------------------------------------------------------------------------------
# the clause around an answer


def _clause_before(text: str, start: int) -> str:
    """From the last clause break (or contrast word) before ``start`` to ``start``, math edges stripped."""
    lo = max(0, start - WINDOW)
    before = text[lo:start]
    cut = 0
    for m in _CLAUSE_END.finditer(before):
        cut = m.end()
    before = before[cut:]
    before = _MATH_EDGE_END.sub("", before)
    # a contrast starts a new clause: "not 4 but", "no es 4 sino"
    toks = list(_TOKEN.finditer(before))
    for t in reversed(toks):
        if t.group().lower() in _CONTRAST:
            before = before[t.end() :]
            break
    for w in _CONTRAST_GLUED:
        k = before.rfind(w)
        if k >= 0 and _SPACELESS.search(w):
            before = before[k + len(w) :]
    # a comma before a value-free tail is a clause break too ("Since 7 is not prime, the answer is")
    k = max(before.rfind(","), before.rfind("\uff0c"), before.rfind("\u3001"))
    if k >= 0:
        before = before[k + 1 :]
    return before


def _clause_after(text: str, end: int) -> str:
    """From ``end`` to the next clause break, math edges stripped (commas kept: "\\boxed{5}, not 7")."""
    after = text[end : end + WINDOW]
    after = after[_MATH_EDGE.match(after).end() :].lstrip(":\uff1a\u2014\u2013- ")  # type: ignore[union-attr]
    m = _CLAUSE_END.search(after)
    return after[: m.start()] if m else after


def _sentence_before(text: str, start: int) -> str:
    lo = max(0, start - 2 * WINDOW)
    before = text[lo:start]
    cut = 0
    for m in re.finditer(r"[.!?;\u3002\uff01\uff1f\uff1b\n](?=\s|$|[^\d])", before):
        cut = m.end()
    return before[cut:]


# ---------------------------------------------------------------------------------------------------------
# the rules


def _negated_before(clause: str) -> bool:
    """A negation with only grammatical words between it and the answer: "is not", "n'est pas", "不是"."""
    tail = clause[-12:]
    if _SPACELESS.search(tail) and _glued(tail.replace(" ", ""), _NEG_GLUED):
        return not any(_glued(tail, g) for g in _BOUND_BEFORE_GLUED.values())
    toks = _tokens(clause)[-6:]
    for i in range(len(toks) - 1, -1, -1):
        t = toks[i]
        if _negation(t) or _is(t, _WRONG_WORDS):
            between = toks[i + 1 :]
            if any(b in _EXCLUSIVE for b in between):
                return False
            return all(_light(b) or _negation(b) for b in between)
        if not _light(t) and not t.startswith("'"):
            return False
    return False


def _denied_after(clause: str) -> bool:
    """A denial predicate right after the answer ("is wrong", "är fel"), or a negation of it."""
    head = clause[:16].replace(" ", "")
    if _SPACELESS.search(head[:6]):
        if _glued(head[:10], _WRONG_GLUED):
            return True
        if _glued(head[:10], _NEG_GLUED):
            return True
    toks = _tokens(clause)[:8]
    for i, t in enumerate(toks):
        if _is(t, _WRONG_WORDS):
            return True
        if _negation(t):
            rest = [r for r in toks[i + 1 :] if not _negation(r) and r not in _ADVERBS]
            nxt = rest[0] if rest else ""
            if not nxt or nxt in (".", "!", ")", "]", "。"):
                return True  # "\\boxed{5} değil", "\\boxed{5}, or not"
            if nxt in _EXCLUSIVE or nxt.isdigit() or nxt in ("$", "\\", "-", "("):
                return False  # "\\boxed{5}, not 7", "\\boxed{5} and not only"
            return any(_is(r, _RIGHT_WORDS) for r in rest[:4]) or (
                _light(nxt) and all(_light(r) for r in rest[:3]) and len(rest) <= 3
            )
        if t in _NEG_AFTER and any(_is(r, _RIGHT_WORDS) for r in toks[i + 1 : i + 4]):
            return True  # "\\boxed{5} si sahihi", "\\boxed{5} ez da zuzena"
        if _is(t, _RIGHT_WORDS) and i + 1 < len(toks) and _negation(toks[i + 1]):
            return True  # "klopt niet", "stimmt nicht"
        if not _light(t) and t not in (",", "—", "–", "-", ":", "(") and not _symbol(t):
            return False
    return False


def _symbol(token: str) -> bool:
    """A lone arrow, pointer or other symbol between an answer and what is said of it ("\\boxed{5} 👈 not this")."""
    return len(token) == 1 and unicodedata.category(token).startswith("S") and _mark(token) == 0


@lru_cache(maxsize=4096)
def _mark(ch: str) -> int:
    """-1 for a cross, prohibition or thumbs-down glyph, 1 for a check mark or thumbs up, 0 otherwise."""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return 0
    words = name.split()
    if (
        "CROSS MARK" in name
        or "SALTIRE" in name
        or "DIAGONAL CROSS" in name
        or "X" in words
        or "PROHIBITED" in name
        or "NO ENTRY" in name
        or words[0] == "NO"
        or "NO GOOD" in name
        or "THUMBS DOWN" in name
        or "OCTAGONAL SIGN" in name
        or "SQUARED NG" in name
        or "SQUARED SOS" in name
        # derision and doubt: a pile of poo, a clown, a red (fail) light, a thinking or shrugging or upside-down face
        or "PILE OF POO" in name
        or "CLOWN" in name
        or name == "LARGE RED CIRCLE"
        or "THINKING FACE" in name
        or "SHRUG" in name
        or "UPSIDE-DOWN FACE" in name
        or "RAISED EYEBROW" in name
    ):
        return -1 if unicodedata.category(ch).startswith("S") else 0
    if "CHECK MARK" in name or "BALLOT BOX WITH CHECK" in name or "THUMBS UP" in name or words[-1] == "CHECK":
        return 1
    return 0


def _skip(ch: str) -> bool:
    """What stands between an answer and its mark: spaces, brackets, dashes, arrows, pointers, emoji modifiers."""
    if ch.isspace() or ch in "$()[]{}<-|:=>~*_\u2014\u2013\u200d\ufe0f\ufe0e":
        return True
    if "\U0001f3fb" <= ch <= "\U0001f3ff":  # skin tones
        return True
    cat = unicodedata.category(ch)
    if cat in ("Mn", "Me", "Cf", "Pd", "Ps", "Pe"):
        return True
    if cat.startswith("S"):
        try:
            name = unicodedata.name(ch)
        except ValueError:
            return False
        return "ARROW" in name or "POINTING" in name or ("SIGN" in name.split()[-1:] and "GENDER" in name)
    return False


def _first_mark(chars: str) -> int:
    for ch in chars:
        m = _mark(ch)
        if m:
            return m
        if ch in ("\u2642", "\u2640"):  # the gender of an emoji sequence
            continue
        if not _skip(ch):
            return 0
    return 0


def _marked_wrong(text: str, span: tuple[int, int]) -> bool:
    """A cross glyph right after the answer, or before it on its line with no value between."""
    after = text[span[1] : span[1] + 24]
    after = after[_MATH_EDGE.match(after).end() :]  # type: ignore[union-attr]
    if after.startswith("\\)") or after.startswith("\\]"):
        after = after[2:]
    if _first_mark(after) == -1:
        return True
    line = text[max(0, text.rfind("\n", 0, span[0]) + 1, span[0] - 40) : span[0]]
    for ch in reversed(line):
        if ch.isdigit():
            return False
        m = _mark(ch)
        if m:
            return m == -1
    return False


_QUESTION_PARTICLE = re.compile(
    r"^\s*(?:\u3067\u3059\u304b|\u3067\u3057\u3087\u3046\u304b|\u307e\u3059\u304b|\u306e\u304b|\u304b\u306a|\u304b)"
    r"(?:\s|[\u3002.]|$)"  # ですか でしょうか ますか のか かな か
    r"|^\s*(?:\uc785\ub2c8\uae4c|\uc778\uac00\uc694|\uc77c\uae4c\uc694|\uc77c\uae4c|\uc778\uac00|\ub098\uc694|\uac00\uc694)"
)  # 입니까 인가요 일까요 일까 인가 나요 가요


@lru_cache(maxsize=1024)
def _question_char(ch: str) -> bool:
    if ch in "?;\u037e\u055e\u061f\u1367\u2047\u2048\u2049\u203d\u2e2e\ufe16\ufe56\uff1f":
        return ch != ";"
    try:
        return "QUESTION MARK" in unicodedata.name(ch) and not unicodedata.name(ch).startswith("INVERTED")
    except ValueError:
        return False


def _asked(text: str, span: tuple[int, int]) -> bool:
    """The answer's sentence is a question (a question mark of any script after it, before the sentence ends)."""
    after = text[span[1] : span[1] + WINDOW]
    m = _SENTENCE_END.search(after)
    rest = after[: m.start()] if m else after
    if _BOX_OR_VALUE.search(rest):
        rest = rest[: _BOX_OR_VALUE.search(rest).start()]  # type: ignore[union-attr]
    if any(_question_char(ch) for ch in rest):
        return True
    if ";" in rest and re.search("[\u0370-\u03ff]", text[max(0, span[0] - WINDOW) : span[1] + 20]):
        return True  # Greek asks with ";"
    if _QUESTION_PARTICLE.match(after[_MATH_EDGE.match(after).end() :]):  # type: ignore[union-attr]
        return True
    before = _sentence_before(text, span[0])
    return "\u00bf" in before or "\u055e" in before[-12:]  # "¿Es ...", Armenian marks the asked word


_MEASURED_ERROR = frozenset(
    [
        "relative",
        "absolute",
        "percent",
        "percentage",
        "standard",
        "mean",
        "squared",
        "rounding",
        "margin",
        "maximum",
        "truncation",
        "approximation",
        "measurement",
        "systematic",
        "random",
        "type",
        "sampling",
    ]
)


def _attributed(text: str, span: tuple[int, int]) -> bool:
    """The sentence before the answer gives it to someone else or to a mistake, and nothing endorses it."""
    sentence = _MATH_EDGE_END.sub("", _sentence_before(text, span[0]))
    if not sentence.strip():
        return False
    after = _clause_after(text, span[1])
    toks = _tokens(sentence)
    colon = max((k for k, t in enumerate(toks[:-1]) if t in (":", "\uff1a")), default=-1)
    toks = toks[
        colon + 1 :
    ]  # "Acknowledging the flawed steps: the final answer is": what the colon introduces
    for k in range(
        len(toks) - 1, -1, -1
    ):  # "Many students get 7, but the answer is": the clause after the contrast
        if toks[k] in _CONTRAST:
            toks = toks[k + 1 :]
            break
    both = toks + _tokens(after)
    endorsed = any(_is(t, _ENDORSE) for t in both) or _glued(sentence + after, _ENDORSE_GLUED)
    if endorsed or (toks and toks[0] == "as"):  # "As the teacher said, the answer is ..."
        return False
    spaceless = _SPACELESS.search(sentence + after) is not None
    # to a mistake: an error word, and the sentence is about the answer (or the error labels the value)
    error = [i for i, t in enumerate(toks) if _is(t, _ERROR) and not (i and toks[i - 1] in _MEASURED_ERROR)]
    if error or (spaceless and _glued(sentence, _ERROR_GLUED)):
        if any(_is(t, _ERROR_LINK) for t in both) or (
            spaceless and _glued(sentence + after, _ERROR_LINK_GLUED)
        ):
            return True
        tail = _tokens(_MATH_EDGE_END.sub("", sentence))
        if tail and tail[-1] in (":", "\uff1a", "\u2014", "-") and len(tail) <= 4:
            return True  # "Wrong: \\boxed{5}", "错解：", "Trap answer:"
        if error and error[-1] == len(toks) - 1:
            return True  # "Beware the tempting \\boxed{5}"
    # to someone else: an answerer with a verb of saying or getting, a person with a verb of saying
    who = ""
    for i, t in enumerate(toks):
        if _is(t, _ANSWERERS):
            who = "answerer"
        elif _is(t, _PERSONS) or (
            t in _SOME and i + 1 < len(toks) and toks[i + 1] in ("would", "might", "may", "could", "will")
        ):
            who = who or "person"
        elif who and (_is(t, _SPEECH) or (who == "answerer" and t in _GOT)):
            return True
    return spaceless and _glued(sentence, _OTHERS_GLUED) and _glued(sentence + after, _SPEECH_GLUED)


def _table_verdict(text: str, span: tuple[int, int]) -> bool:
    """The answer sits in a table row (or a list item) whose verdict cell denies it."""
    line_end = text.find("\n", span[1])
    line_end = len(text) if line_end < 0 else line_end
    rest = text[span[1] : line_end]
    line_start = text.rfind("\n", 0, span[0]) + 1
    head = text[line_start : span[0]].strip(" $")
    if "|" not in head and "|" not in rest:
        return False
    for cell in rest.split("|")[1:]:
        cell = cell.strip(" $*_")
        if not cell:
            continue
        toks = _tokens(cell)
        if _first_mark(cell) == -1:
            return True
        if toks and (
            toks[0] in ("no", "nein", "non", "nie", "нет", "否", "x", "×") or _is(toks[0], _WRONG_WORDS)
        ):
            return True
        if _glued(cell, _WRONG_GLUED) or _denied_after(cell):
            return True
    return False


_CONTRADICTION_AFTER = re.compile(
    r"^\s*(?:\\(?:Rightarrow|implies|to|rightarrow|Longrightarrow|longrightarrow)|[\u2192\u21d2\u27f9\u27f6\u2794\u279c]|->|=>|leads\s+to)"
    r"\s*(?:\$\s*)?(?:a\s+)?(?:\\bot\b|\u22a5|\\text\{\s*contradiction|\\lightning|\u21af)",
    re.IGNORECASE,
)


def stance_denied(text: str, span: tuple[int, int]) -> bool:
    """Whether the response does not claim the answer at ``text[span]`` (see the module docstring)."""
    before = _clause_before(text, span[0])
    if _negated_before(before) and bound_of(text, span) is None:
        return True
    after = _clause_after(text, span[1])
    if _denied_after(after):
        return True
    if _CONTRADICTION_AFTER.match(text, span[1]) or _CONTRADICTION_AFTER.match(
        text[span[1] : span[1] + WINDOW].lstrip("$ ")
    ):
        return True
    if _arrow_verdict(after):
        return True
    return (
        _marked_wrong(text, span)
        or _asked(text, span)
        or _attributed(text, span)
        or _table_verdict(text, span)
        or tentative(text, span)
        or unchecked_item(text, span[0])
        or footnote_denies(text[span[1] : span[1] + 400])
    )


def _arrow_verdict(after: str) -> bool:
    """ "\\boxed{5} → rejected", "⇒ contradiction", "→ Widerspruch": an arrow to a verdict."""
    a = after.lstrip(" $")
    for arrow in ("\\Rightarrow", "\\implies", "\\to", "\\rightarrow", "\\Longrightarrow", "->", "=>"):
        if a.startswith(arrow):
            a = a[len(arrow) :]
            break
    else:
        if a[:1] and "ARROW" in unicodedata.name(a[0], ""):
            a = a[1:]
        else:
            return False
    a = a.lstrip(" $")
    toks = _tokens(a)[:3]
    return bool(toks) and (
        any(_is(t, _WRONG_WORDS) for t in toks) or _glued(a[:6], _WRONG_GLUED) or a[:1] in "\u22a5"
    )


def bound_of(text: str, span: tuple[int, int]) -> str | None:
    """The relation ("ge", "gt", "le", "lt") when the answer at ``text[span]`` is stated as a bound, else None."""
    before = text[max(0, span[0] - WINDOW) : span[0]]
    cut = 0
    for m in _CLAUSE_END.finditer(before):
        cut = m.end()
    clause = _MATH_EDGE_END.sub("", before[cut:])
    low = clause.lower()
    if re.search(
        r"\b(?:add|adds|added|adding|sum|sums|summed|summing|round|rounds|rounded|rounding|come|comes|came|"
        r"amount|amounts|total|totals|works?|ends?|ended|goes|go|went|rises?|rose)\s+up\s+to\s*$",
        low,
    ):
        low = low[: low.rfind("up")]
    for rel, words in _BOUND_BEFORE.items():
        if re.search(rf"(?:^|[^\w])(?:{words})\s*(?:\w+\s+){{0,1}}$", low) and not re.search(
            r"(?:^|\W)(?:exactly|precisely|genau|exactement|exactamente|esattamente|恰好|正好)\W*$", low
        ):
            return rel
    tail = clause[-8:].replace(" ", "")
    for rel, glued in _BOUND_BEFORE_GLUED.items():
        if any(tail.endswith(g) or (g in tail and len(tail) - tail.rfind(g) - len(g) <= 3) for g in glued):
            return rel
    label = _BOUND_LABEL.search(before)
    if label is not None:
        return "ge" if re.search(r"lower|inf|untere|inferior|下", label.group(), re.IGNORECASE) else "le"
    after = text[span[1] : span[1] + 40]
    after = after[_MATH_EDGE.match(after).end() :]  # type: ignore[union-attr]
    for rel, pattern in _BOUND_AFTER.items():
        if re.match(rf"(?:{pattern})", after, re.IGNORECASE):
            return rel
        if re.match(rf"(?:\S{{0,3}}\s*)(?:{pattern})", after) and _SPACELESS.search(after[:6]):
            return rel  # "\\boxed{5} 种以上"
    return None


def as_bound(content: str, rel: str) -> str:
    """The set a bound describes: "at least 5" is ``[5,\\infty)``, "fewer than 5" is ``(-\\infty,5)``."""
    return {
        "ge": f"[{content},\\infty)",
        "gt": f"({content},\\infty)",
        "le": f"(-\\infty,{content}]",
        "lt": f"(-\\infty,{content})",
    }[rel]


# a value put up for testing, not claimed: "Candidate: \\boxed{5}", "Tentatively \\boxed{5}", "Say x = \\boxed{5}"
_TENTATIVE = re.compile(
    r"(?:\b(?:candidate(?:\s+(?:answer|value|solution))?s?|tentative(?:ly)?|provisional(?:ly)?|trial(?:\s+value)?|"
    r"conjecture|first\s+guess|my\s+guess|guess)\s*[:=]?\s*(?:\$?\s*[A-Za-z]\s*=\s*)?"
    r"|^\s*(?:let'?s\s+)?say,?\s+(?:\$?\s*[A-Za-z]\s*=\s*)?)(?:\$|\\\(|\\\[)?\s*$"
    # a slot filler: "Placeholder: ", "TODO: replace ", "[placeholder] ", "Dummy answer for formatting only: ",
    # "Draft answer: ", "Preliminary answer: " (a word of that kind with no value between it and the answer)
    r"|(?<!not\s)(?<!not\sa\s)(?<!no\s)\b(?:placeholder|dummy\s+(?:answer|value|result)|stub|tbd|tbc|todo|fixme|wip|"
    r"(?:draft|preliminary|bogus)(?:\s+(?:answer|value|result|guess|estimate))?\s*[:\]]|(?:draft|preliminary)\s+(?:answer|value|result|guess)|"
    r"unverified|unconfirmed|filler|random\s+guess|wild\s+guess)\b[^\d$\\=]{0,40}?"
    r"(?:\$|\\\(|\\\[)?\s*$"
    # hearsay: "Legend has it the answer is", "Rumoured answer:", "Per a forum post I cannot verify:"
    r"|\b(?:legend|rumou?r|hearsay)\s+(?:has\s+it|says|is)\b[^\d$\\=]{0,40}?(?:\$|\\\(|\\\[)?\s*$"
    r"|(?<!as\s)\b(?:supposedly|reportedly|allegedly|rumou?red|purported(?:ly)?|alleged|claimed|so-called)\b[^\d$\\=]{0,30}?"
    r"(?:\$|\\\(|\\\[)?\s*$"
    r"|\b(?:per|according\s+to)\s+(?:a|an|the|some)\s+(?:\w+\s+)?(?:post|forum|rumou?r|thread|comment|tweet|"
    r"source|website|site|blog)\b[^\d$\\=]{0,40}?(?:\$|\\\(|\\\[)?\s*$"
    # a denied proposition: "It is not true that $x = ", "It is false that ", "Anything but "
    r"|\b(?:not\s+(?:true|the\s+case)|false|untrue|wrong|incorrect)\s+that\b[^\d\\]{0,12}"
    r"(?:\$?\s*[A-Za-z]\s*=\s*)?(?:\$|\\\(|\\\[)?\s*$"
    r"|\b(?:anything|everything|any\s+value|anyone)\s+but\s*(?:\$|\\\(|\\\[)?\s*$"
    r"|\b(?:refuted|disproved|excluded|rejected|eliminated|ruled\s+out|debunked)\s*[:\uff1a]\s*(?:\$|\\\(|\\\[)?\s*$",
    re.IGNORECASE,
)


def tentative(text: str, span: tuple[int, int]) -> bool:
    """The answer is labelled as a candidate under test ("Candidate: \\boxed{5}. Let me verify")."""
    return _TENTATIVE.search(_sentence_before(text, span[0])) is not None


# after the answer, the response disowns what it wrote: "That quote from the forum is wrong", "This is only
# the required format", "I could not solve it", "my computation is unfinished"
_DISOWNED_LATER = re.compile(
    r"\b(?:that|this|the|these|those)\s+(?:\w+\s+){0,3}?(?:quote|quoted\s+\w+|claim|statement|post|template|"
    r"suggestion|boxed\s+value|box|answer\s+above|value\s+above|result\s+above)\b[^.;\n]{0,30}?\b(?:is|was|are|were)\s+"
    r"(?:\w+\s+){0,2}?(?:wrong|incorrect|false|invalid|bogus|mistaken|a\s+misprint|not\s+(?:correct|right|true|valid))\b"
    r"|\b(?:I|we)\s+(?:could\s*not|couldn't|cannot|can't|was\s+unable\s+to|were\s+unable\s+to|am\s+unable\s+to|"
    r"did\s*not|didn't|have\s*not|haven't|failed\s+to)\s+(?:solve|finish|complete|fix|get\s+that\s+far|"
    r"(?:find|found|determine|determined|compute|computed)\s+the\s+(?:correct|actual|right|true|real|final)\b)"
    r"|\b(?:my|the|our)\s+(?:computation|calculation|solution|work|derivation|proof)\s+(?:is|was)\s+"
    r"(?:still\s+)?(?:unfinished|incomplete|not\s+(?:finished|complete|done))"
    r"|\bI\s+have\s+no\s+(?:answer|solution)\b"
    # the same in other languages, and an attempt that failed: "(Ich habe es nicht gelöst.)", "(Je n'ai pas résolu
    # le problème.)", "(Я не решил.)", "（解けませんでした）", "（我没有算出来）", "My own attempt did not converge"
    r"|\bnicht\s+(?:gel\u00f6st|l\u00f6sen\s+k\u00f6nnen)|\bn'ai\s+pas\s+(?:r\u00e9solu|pu\s+r\u00e9soudre|trouv\u00e9)"
    r"|\bno\s+(?:lo\s+|la\s+)?(?:resolv\u00ed|pude\s+resolver)|\bn\u00e3o\s+(?:o\s+|a\s+)?(?:resolvi|consegui)"
    r"|\bnon\s+(?:l'ho\s+|ho\s+)?risolto|\u043d\u0435\s+(?:\u0440\u0435\u0448\u0438\u043b|\u0441\u043c\u043e\u0433|\u0440\u0435\u0448\u0438\u043b\u0430)"
    r"|\u89e3\u3051\u307e\u305b\u3093|\u89e3\u3051\u306a\u304b\u3063\u305f|\u6ca1\u6709?\u7b97\u51fa|\u6ca1\u6709?\u89e3\u51fa|\u4e0d\u4f1a\u505a"
    r"|\b(?:my|our)\s+(?:own\s+)?(?:attempt|computation|method|iteration|derivation|solution)s?\s+"
    r"(?:did\s*(?:n't|\s+not)|failed\s+to)\s+(?:converge|work|succeed|finish)"
    r"|\b(?:only|just)\s+(?:the\s+|a\s+)?(?:required\s+|expected\s+|answer\s+)?(?:format|template|placeholder)\b"
    r"|\bthis\s+is\s+(?:the|a)\s+(?:\w+\s+){0,2}?(?:template|placeholder)\b"
    r"|\b(?:actual|correct|true|real|exact)\s+(?:value|answer|minimum|maximum)\s+is\s+(?:still\s+)?"
    r"(?:unknown|open|undetermined|not\s+known)",
    re.IGNORECASE,
)


def disowned_later(tail: str) -> bool:
    """Whether the text after the last answer disowns it (see ``_DISOWNED_LATER``)."""
    return _DISOWNED_LATER.search(tail) is not None


_PHRASE_BOUND = re.compile(
    r"^\s*(?:\\geq?|\\geqslant|\u2265|\u2a7e|>=)\s*(?![=])|^\s*(?:\\leq?|\\leqslant|\u2264|\u2a7d|<=)\s*"
    r"|^\s*(?:\\gt|>)\s*|^\s*(?:\\lt|<)\s*"
)


def phrase_bound(answer: str) -> str | None:
    """The relation when an answer phrase's answer is a bound ("at least 5", "≥ 5", "5 or more", "至少5")."""
    m = _PHRASE_BOUND.match(answer)
    if m:
        sym = m.group().strip()
        if sym.startswith(("\\ge", "\u2265", "\u2a7e", ">=")):
            return "ge"
        if sym.startswith(("\\le", "\u2264", "\u2a7d", "<=")):
            return "le"
        return "gt" if sym in (">", "\\gt") else "lt"
    v = re.search(r"[-\d$\\(]", answer)
    if v is None:
        return None
    end = re.match(r"[-\d.,$\\{}^_/]+", answer[v.start() :])
    stop = v.start() + (end.end() if end else 1)
    return bound_of(answer, (v.start(), stop))


def negated_lead(answer: str) -> bool:
    """An answer phrase's answer opens with a negation of the value after it ("Đáp án: không phải 5")."""
    m = re.search(r"[-\d$\\(]", answer)
    if m is None or m.start() == 0:
        return False
    return _negated_before(answer[: m.start()])


def trailing_marks(answer: str) -> tuple[str, bool]:
    """An answer phrase's answer without the pictographs after it ("5 ✅", "5 🎉"), and whether one is a cross."""
    end = len(answer)
    crossed = False
    while end > 0:
        ch = answer[end - 1]
        if ch.isspace() or ch in "\u200d\ufe0f\ufe0e" or "\U0001f3fb" <= ch <= "\U0001f3ff":
            end -= 1
        elif unicodedata.category(ch) == "So":
            crossed = crossed or _mark(ch) == -1
            end -= 1
        else:
            break
    return (answer[:end] if end > 0 else answer), crossed
