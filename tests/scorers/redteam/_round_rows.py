"""The row writer of the red-team round builders (``build_round3.py`` ... ``build_round6.py``): ids
``<prefix>-a-<class>-NN`` / ``<prefix>-c-<class>-NN``, numbered per class and kind in the builder's order."""

from collections import Counter
from collections.abc import Collection


class RoundRows:
    """``attack`` and ``control`` append rows to ``rows``. A class in ``with_prompt_only`` is judged with the
    prompt only (``modes=["with"]``) unless the row names its modes."""

    def __init__(self, prefix: str, prompt: str = "Find x.", with_prompt_only: Collection[str] = ()) -> None:
        self.prefix, self.prompt, self.with_prompt_only = prefix, prompt, with_prompt_only
        self.rows: list[dict] = []
        self._n: Counter = Counter()

    def _add(
        self, kind: str, cls: str, gold, response: str, why: str, prompt=None, rules=None, modes=None
    ) -> None:
        self._n[(kind, cls)] += 1
        if cls in self.with_prompt_only and modes is None:
            modes = ["with"]
        row = {
            "id": f"{self.prefix}-{'a' if kind == 'attack' else 'c'}-{cls}-{self._n[(kind, cls)]:02d}",
            "kind": kind,
            "class": cls,
            "prompt": self.prompt if prompt is None else prompt,
            "gold": gold,
            "response": response,
            ("why_wrong" if kind == "attack" else "why_right"): why,
        }
        if rules:
            row["rules"] = rules
        if modes:
            row["modes"] = modes
        self.rows.append(row)

    def attack(self, cls: str, gold, response: str, why: str, **kw) -> None:
        self._add("attack", cls, gold, response, why, **kw)

    def control(self, cls: str, gold, response: str, why: str, **kw) -> None:
        self._add("control", cls, gold, response, why, **kw)
