"""Old import path of the K-label judge: one ``evaluate``, one ``compare`` and one
:class:`~causalcost.Report` now serve every K (this module only re-exports them).

``LabelReport`` is a deprecated alias of :class:`~causalcost.Report`.
"""

from __future__ import annotations

from typing import Any

from causalcost.evaluation.comparison import compare as compare_labels
from causalcost.evaluation.evaluating import evaluate as evaluate_labels
from causalcost.evaluation.general import is_label_sheet, refuse_labels

__all__ = ["compare_labels", "evaluate_labels", "is_label_sheet", "refuse_labels"]


def __getattr__(name: str) -> Any:
    if name == "LabelReport":
        import warnings

        from causalcost.evaluation.report_value import Report

        warnings.warn("causalcost.evaluation.label_report.LabelReport is deprecated; use "
                      "causalcost.Report (one report for any number of labels)",
                      DeprecationWarning, stacklevel=2)
        return Report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
