"""Differential testing of scorers: one scorer against another, or against labels.

:func:`audit` scores the same samples with scorer ``A`` and either scorer ``B`` or a list of labels,
and returns an :class:`AuditReport`: agreement, the 2x2 confusion matrix (``B``/labels as the
reference), false-positive and false-negative rates of ``A``, failure counts of each side, and the
top disagreements with their explanations (:mod:`._explain`).

A verdict is "correct" by the one accuracy definition shared with ``score`` and ``report``
(:func:`rewardloop._summary.is_correct`: the scorer's ``acc`` when it reports one, else full marks; so
DAPO's +1/-1 and the usual 1/0 both work, and a 0.1 format score is wrong). Failed samples (timeouts, parse errors ...) are never counted as wrong answers:
they are reported apart and left out of the confusion matrix. Labels may be bools, 0/1, or numbers
(positive = correct); a missing label leaves its sample out.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError
from ..scorers import Scorer
from ..types import Sample, Score, ScoreBatch
from ._explain import Explanation, explanation_from_score

__all__ = ["AuditReport", "Disagreement", "audit", "label_value", "verdict_of"]


def verdict_of(score: Score) -> bool | None:
    """True (correct) / False (wrong) for an ok score (:func:`rewardloop._summary.is_correct`); None for a
    failed one."""
    from .._summary import is_correct

    return is_correct(score)


def label_value(value: Any) -> bool | None:
    """A label as a verdict: bools, numbers (positive = correct), "true"/"false"/"1"/"0"; else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return None if value != value else value > 0
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "yes", "no"):
        return value.strip().lower() in ("true", "1", "yes")
    return None


@dataclass(frozen=True)
class Disagreement:
    """One sample on which the two sides disagree, with both explanations (``b`` is None against labels)."""

    index: int
    a: Explanation
    b: Explanation | None
    reference: bool
    kind: str  # "false_positive" (A says correct, reference says wrong) or "false_negative"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "reference": self.reference,
            "a": self.a.to_dict(),
            "b": None if self.b is None else self.b.to_dict(),
        }


@dataclass(frozen=True)
class AuditReport:
    """The outcome of :func:`audit`. ``confusion`` keys: ``tp fp tn fn`` (A's verdict vs the reference)."""

    scorer_a: str
    reference: str  # "scorer:<name>" or "labels:<column>"
    n: int
    compared: int
    confusion: dict[str, int]
    failed_a: dict[str, int]
    failed_b: dict[str, int]
    missing_labels: int
    disagreements: list[Disagreement] = field(default_factory=list)
    stages_a: dict[str, int] = field(default_factory=dict)

    @property
    def agreement(self) -> float | None:
        c = self.confusion
        return (c["tp"] + c["tn"]) / self.compared if self.compared else None

    @property
    def fpr(self) -> float | None:
        c = self.confusion
        return c["fp"] / (c["fp"] + c["tn"]) if c["fp"] + c["tn"] else None

    @property
    def fnr(self) -> float | None:
        c = self.confusion
        return c["fn"] / (c["fn"] + c["tp"]) if c["fn"] + c["tp"] else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "scorer_a": self.scorer_a,
            "reference": self.reference,
            "n": self.n,
            "compared": self.compared,
            "agreement": self.agreement,
            "false_positive_rate": self.fpr,
            "false_negative_rate": self.fnr,
            "confusion": dict(self.confusion),
            "failed_a": dict(self.failed_a),
            "failed_b": dict(self.failed_b),
            "missing_labels": self.missing_labels,
            "stages_a": dict(self.stages_a),
            "disagreements": [d.to_dict() for d in self.disagreements],
        }

    def to_text(self) -> str:
        c = self.confusion
        lines = [
            f"audit: {self.scorer_a} vs {self.reference} on {self.n} samples ({self.compared} compared)",
            f"agreement            {_pct(self.agreement)}",
            f"false-positive rate  {_pct(self.fpr)}   (A says correct, reference says wrong)",
            f"false-negative rate  {_pct(self.fnr)}   (A says wrong, reference says correct)",
            "",
            "                     reference correct   reference wrong",
            f"  A correct          {c['tp']:>17}   {c['fp']:>15}",
            f"  A wrong            {c['fn']:>17}   {c['tn']:>15}",
        ]
        if any(self.failed_a.values()) or any(self.failed_b.values()) or self.missing_labels:
            lines.append("")
            lines.append(
                f"failures of A: {self.failed_a or 'none'};  of the reference: {self.failed_b or 'none'}"
            )
            if self.missing_labels:
                lines.append(f"samples without a usable label: {self.missing_labels}")
        for d in self.disagreements:
            lines += ["", f"--- #{d.index} {d.kind.replace('_', ' ')} ---", d.a.to_text()]
            if d.b is not None:
                lines += ["  reference:", _indent(d.b.to_text())]
        return "\n".join(lines)

    def to_html(self) -> str:
        """A self-contained HTML page (inline CSS, no scripts, no external resources)."""
        from ._report import page
        from ._report import table as _table

        c = self.confusion
        summary = [
            ("samples", f"{self.n} ({self.compared} compared)"),
            ("agreement", _pct(self.agreement)),
            ("false-positive rate of A", _pct(self.fpr)),
            ("false-negative rate of A", _pct(self.fnr)),
            ("failures of A", _counts(self.failed_a)),
            ("failures of the reference", _counts(self.failed_b)),
            ("samples without a label", str(self.missing_labels)),
            ("deciding stages of A", _counts(self.stages_a)),
        ]
        body = ["<h2>Summary</h2>", _table(["", ""], summary)]
        body += [
            "<h2>Confusion matrix</h2>",
            _table(
                ["", "reference: correct", "reference: wrong"],
                [("A: correct", c["tp"], c["fp"]), ("A: wrong", c["fn"], c["tn"])],
            ),
            f"<h2>Top disagreements ({len(self.disagreements)})</h2>",
        ]
        for d in self.disagreements:
            body.append(f"<h3>#{d.index}: {html.escape(d.kind.replace('_', ' '))}</h3>")
            body.append(f"<pre>{html.escape(d.a.to_text())}</pre>")
            if d.b is not None:
                body.append(
                    f"<p>reference ({html.escape(d.b.scorer)}):</p><pre>{html.escape(d.b.to_text())}</pre>"
                )
        title = f"rewardloop audit: {self.scorer_a} vs {self.reference}"
        return page(title, "\n".join(body))

    def to_json(self) -> str:
        from .._io import json_safe

        return json.dumps(json_safe(self.to_dict()), indent=2, ensure_ascii=False)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in d.items() if v) or "none"


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def audit(
    samples: Sequence[Sample],
    scorer_a: Scorer,
    *,
    scorer_b: Scorer | None = None,
    labels: Sequence[Any] | None = None,
    label_name: str = "labels",
    runner: Any = None,
    top: int = 10,
    scores_a: ScoreBatch | Sequence[Score] | None = None,
) -> AuditReport:
    """Score ``samples`` with ``scorer_a`` and compare with ``scorer_b`` or ``labels`` (exactly one).

    ``runner`` is a :class:`~rewardloop.Runner` (one is created and closed when omitted); ``top`` is
    how many disagreements to keep, false positives first (they are what a reward hacker finds).
    ``scores_a`` skips scoring A when its scores are already known.
    """
    if (scorer_b is None) == (labels is None):
        raise ConfigError("audit needs exactly one reference: another scorer (scorer_b) or labels")
    if labels is not None and len(labels) != len(samples):
        raise ConfigError(f"audit got {len(labels)} labels for {len(samples)} samples")
    own = runner is None
    if own:
        from ..execution import Runner

        runner = Runner(on_error=None)
    try:
        a = list(scores_a) if scores_a is not None else list(runner.run_sync(scorer_a, samples))
        b = list(runner.run_sync(scorer_b, samples)) if scorer_b is not None else None
    finally:
        if own:
            runner.close()
    reference = f"scorer:{scorer_b.name}" if scorer_b is not None else f"labels:{label_name}"
    return _compare(samples, scorer_a.name, a, b, labels, reference, scorer_b, top)


def _compare(
    samples: Sequence[Sample],
    name_a: str,
    a: list[Score],
    b: list[Score] | None,
    labels: Sequence[Any] | None,
    reference: str,
    scorer_b: Scorer | None,
    top: int,
) -> AuditReport:
    confusion = {"tp": 0, "fp": 0, "tn": 0, "fn": 0}
    failed_a: dict[str, int] = {}
    failed_b: dict[str, int] = {}
    stages: dict[str, int] = {}
    missing = 0
    found: list[tuple[int, bool, bool]] = []
    for i, score in enumerate(a):
        stage = score.info.get("stage")
        if stage:
            stages[str(stage)] = stages.get(str(stage), 0) + 1
        va = verdict_of(score)
        if b is not None:
            ref = verdict_of(b[i])
            if ref is None:
                failed_b[b[i].status.value] = failed_b.get(b[i].status.value, 0) + 1
        else:
            assert labels is not None, "audit needs a second scorer or labels"
            ref = label_value(labels[i])
            missing += ref is None
        if va is None:
            failed_a[score.status.value] = failed_a.get(score.status.value, 0) + 1
        if va is None or ref is None:
            continue
        key = ("t" if va == ref else "f") + ("p" if va else "n")
        confusion[key] += 1
        if va != ref:
            found.append((i, va, ref))
    found.sort(key=lambda t: (not t[1], t[0]))  # false positives first
    kept = []
    for i, va, ref in found[: max(0, top)]:
        exp_b = (
            explanation_from_score(samples[i], b[i], scorer_b.name) if b is not None and scorer_b else None
        )
        kind = "false_positive" if va else "false_negative"
        kept.append(Disagreement(i, explanation_from_score(samples[i], a[i], name_a), exp_b, ref, kind))
    compared = sum(confusion.values())
    return AuditReport(
        name_a, reference, len(a), compared, confusion, failed_a, failed_b, missing, kept, stages
    )
