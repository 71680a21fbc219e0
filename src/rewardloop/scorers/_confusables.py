"""Look-alikes of Latin letters: the single-letter entries of Unicode's confusables (UTS #39).

Derived from ``confusables.txt`` of Unicode 14.0.0 (Unicode Security Mechanisms, UTS #39; Unicode terms of use):
every entry that maps ONE non-ASCII letter (general category L*) to ONE ASCII letter, without the letters that
NFKC already folds to ASCII (full-width and mathematical alphanumerics: :func:`unicodedata.normalize` does those)
and without right-to-left letters (bidi class R or AL: they cannot sit inside a left-to-right word unseen).
438 letters. Used by :mod:`rewardloop.scorers._equiv_visible` to read a word that LOOKS like an ASCII
word as that word ("wr\\u043eng" is "wrong").
"""

from __future__ import annotations

__all__ = ["CONFUSABLE_LETTERS", "LATIN_OF"]

# fmt: off
_FROM = (
    "\u0131\u0184\u018d\u0196\u01a6\u01bd\u01c0\u0251\u0261\u0263"
    "\u0269\u026a\u026f\u028b\u028f\u037a\u037f\u0391\u0392\u0395"
    "\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5"
    "\u03a7\u03b1\u03b3\u03b9\u03bd\u03bf\u03c1\u03c3\u03c5\u03d2"
    "\u03dc\u03f1\u03f2\u03f3\u03f9\u03fa\u0405\u0406\u0408\u0410"
    "\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423"
    "\u0425\u042c\u0430\u0433\u0435\u043e\u0440\u0441\u0443\u0445"
    "\u0455\u0456\u0458\u0461\u0474\u0475\u04ae\u04af\u04bb\u04bd"
    "\u04c0\u04cf\u0501\u050c\u051b\u051c\u051d\u054d\u054f\u0555"
    "\u0561\u0563\u0566\u0570\u0578\u057c\u057d\u0581\u0584\u0585"
    "\u0b20\u0d20\u101d\u10e7\u10ff\u1200\u12d0\u13a0\u13a1\u13a2"
    "\u13a5\u13a9\u13aa\u13ab\u13ac\u13b3\u13b7\u13bb\u13bd\u13c0"
    "\u13c2\u13c3\u13cf\u13d2\u13d4\u13d5\u13d9\u13da\u13de\u13df"
    "\u13e2\u13e6\u13e7\u13f3\u13f4\u142f\u144c\u146d\u146f\u1472"
    "\u148d\u14aa\u1541\u157c\u157d\u1587\u15af\u15b4\u15c5\u15de"
    "\u15ea\u15f0\u15f7\u16b7\u16c1\u16d5\u16d6\u1d04\u1d0f\u1d11"
    "\u1d1c\u1d20\u1d21\u1d22\u1d26\u1d83\u1d8c\u1e9d\u1eff\u1fbe"
    "\u213d\u2c85\u2c8e\u2c92\u2c94\u2c98\u2c9a\u2c9e\u2c9f\u2ca2"
    "\u2ca3\u2ca4\u2ca5\u2ca6\u2ca8\u2cac\u2cd0\u2d38\u2d39\u2d4f"
    "\u2d54\u2d55\u2d5d\ua4d0\ua4d1\ua4d2\ua4d3\ua4d4\ua4d6\ua4d7"
    "\ua4d9\ua4da\ua4dc\ua4dd\ua4df\ua4e0\ua4e1\ua4e2\ua4e3\ua4e6"
    "\ua4e7\ua4ea\ua4eb\ua4ec\ua4ee\ua4f0\ua4f2\ua4f3\ua4f4\ua647"
    "\ua6df\ua731\ua798\ua799\ua79f\ua7b2\ua7b3\ua7b4\uab32\uab35"
    "\uab3d\uab47\uab48\uab4e\uab52\uab5a\uab75\uab81\uab83\uab93"
    "\uaba9\uabaa\uabaf\U00010282\U00010286\U00010287\U0001028a\U00010290\U00010292\U00010295"
    "\U00010296\U00010297\U000102a0\U000102a1\U000102a2\U000102a5\U000102ab\U000102b0\U000102b1\U000102b2"
    "\U000102b4\U000102cf\U00010301\U00010302\U00010309\U00010311\U00010315\U00010317\U00010404\U00010415"
    "\U0001041b\U00010420\U0001042c\U0001043d\U00010448\U000104b4\U000104c2\U000104ce\U000104ea\U000104f6"
    "\U00010513\U00010516\U00010518\U0001051c\U0001051d\U00010525\U00010526\U00010527\U00011706\U0001170a"
    "\U0001170e\U0001170f\U000118a0\U000118a2\U000118a3\U000118a4\U000118a6\U000118a9\U000118ae\U000118b2"
    "\U000118b5\U000118b8\U000118bc\U000118c0\U000118c1\U000118c2\U000118c3\U000118c4\U000118c8\U000118d7"
    "\U000118d8\U000118dc\U00016f08\U00016f0a\U00016f16\U00016f28\U00016f35\U00016f3a\U00016f40\U00016f42"
    "\U00016f43\U0001d6a4\U0001d6a8\U0001d6a9\U0001d6ac\U0001d6ad\U0001d6ae\U0001d6b0\U0001d6b1\U0001d6b3"
    "\U0001d6b4\U0001d6b6\U0001d6b8\U0001d6bb\U0001d6bc\U0001d6be\U0001d6c2\U0001d6c4\U0001d6ca\U0001d6ce"
    "\U0001d6d0\U0001d6d2\U0001d6d4\U0001d6d6\U0001d6e0\U0001d6e2\U0001d6e3\U0001d6e6\U0001d6e7\U0001d6e8"
    "\U0001d6ea\U0001d6eb\U0001d6ed\U0001d6ee\U0001d6f0\U0001d6f2\U0001d6f5\U0001d6f6\U0001d6f8\U0001d6fc"
    "\U0001d6fe\U0001d704\U0001d708\U0001d70a\U0001d70c\U0001d70e\U0001d710\U0001d71a\U0001d71c\U0001d71d"
    "\U0001d720\U0001d721\U0001d722\U0001d724\U0001d725\U0001d727\U0001d728\U0001d72a\U0001d72c\U0001d72f"
    "\U0001d730\U0001d732\U0001d736\U0001d738\U0001d73e\U0001d742\U0001d744\U0001d746\U0001d748\U0001d74a"
    "\U0001d754\U0001d756\U0001d757\U0001d75a\U0001d75b\U0001d75c\U0001d75e\U0001d75f\U0001d761\U0001d762"
    "\U0001d764\U0001d766\U0001d769\U0001d76a\U0001d76c\U0001d770\U0001d772\U0001d778\U0001d77c\U0001d77e"
    "\U0001d780\U0001d782\U0001d784\U0001d78e\U0001d790\U0001d791\U0001d794\U0001d795\U0001d796\U0001d798"
    "\U0001d799\U0001d79b\U0001d79c\U0001d79e\U0001d7a0\U0001d7a3\U0001d7a4\U0001d7a6\U0001d7aa\U0001d7ac"
    "\U0001d7b2\U0001d7b6\U0001d7b8\U0001d7ba\U0001d7bc\U0001d7be\U0001d7c8\U0001d7ca"
)
_TO = (
    "ibglRslagyiiwuyiJABEZHlKMNOPTYXayivopouYFpcjCMSlJABEKMHOPCTY"
    "XbareopcyxsijwVvYyhelidGqWwUSOwqqhnnugfoOooyoUODRTiYAJEWMHYG"
    "hZbRWSVSLCPKdGBVUPdbJLxHxRbFADDMBXlKMcoouvwzrgyfyiyrHlKMNOoP"
    "pCcTYXLVElOQXBPdDTGKJCZFMNLSRVHWXYAElOUiVsFfuJXBeforruuyirwz"
    "vscBEFlXOPSTABCFOMTYXHBClMTXOCLSocsROUouNOKCVFLXvwwwVFLYEZEL"
    "OUTvsFizoouyVTLlRSAUYiABEZHlKMNOPTYXayivopoupABEZHlKMNOPTYXa"
    "yivopoupABEZHlKMNOPTYXayivopoupABEZHlKMNOPTYXayivopoupABEZHl"
    "KMNOPTYXayivopoupF"
)
# fmt: on

#: the look-alike letters, and the table folding each to the ASCII letter it looks like
CONFUSABLE_LETTERS = frozenset(_FROM)
LATIN_OF = str.maketrans(_FROM, _TO)
