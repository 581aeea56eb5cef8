"""Judge one candidate for the slot: :func:`evaluate` returns a :class:`Report`, for any
number of labels.

The public import path of the report and the call that makes it: the value object is
:mod:`causalcost.evaluation.report_value`, the call :mod:`causalcost.evaluation.evaluating`
(the binary closed forms its fast path, :mod:`causalcost.evaluation.binary_path`; the general
route :mod:`causalcost.evaluation.general`).

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100)).eval1
320.0
"""

from causalcost.evaluation.evaluating import evaluate, sheet_warnings
from causalcost.evaluation.ranking import COMPARE_COLUMNS
from causalcost.evaluation.report_value import METRIC_COLUMNS, Report

__all__ = ["COMPARE_COLUMNS", "METRIC_COLUMNS", "Report", "evaluate", "sheet_warnings"]
