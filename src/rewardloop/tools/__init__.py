"""Tools that inspect rewards rather than produce them: ``explain``, ``audit`` and the HTML ``report``.

* :func:`explain` — one sample's verdict decomposed: extracted answer, normalised forms of both sides,
  the stage that decided, per-stage timings.
* :func:`audit` — differential testing of a scorer against another scorer or against labels:
  agreement, confusion matrix, false-positive / false-negative rates, top disagreements (JSON + HTML).
* :func:`build_report` — a self-contained HTML report with plots of a scored file (needs the
  ``report`` extra: matplotlib).
* :func:`compare_scored` — the flips between a scored file and the same rollouts scored again
  (``rewardloop rescore``): right→wrong, wrong→right, ok→failure, with counts and examples.

Importing this package is cheap; scoring and plotting libraries load on first use.
"""

from ._audit import AuditReport, Disagreement, audit, label_value, verdict_of
from ._explain import Explanation, explain, explanation_from_score
from ._report import ReportData, build_comparison, build_report, dotted_field, report_data
from ._rescore import RescoreReport, compare_scored

__all__ = [
    "AuditReport",
    "Disagreement",
    "Explanation",
    "ReportData",
    "RescoreReport",
    "audit",
    "build_comparison",
    "build_report",
    "compare_scored",
    "dotted_field",
    "explain",
    "explanation_from_score",
    "label_value",
    "report_data",
    "verdict_of",
]
