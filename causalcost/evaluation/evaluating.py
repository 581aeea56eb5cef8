"""Judge one candidate for the slot with nothing but its confusion and a cost sheet, for any
number of labels: :func:`evaluate` returns a :class:`~causalcost.evaluation.report.Report`.

For two labels the binary closed forms are the fast path
(:mod:`causalcost.evaluation.binary_path`); for K labels the general route
(:mod:`causalcost.evaluation.general`), which tests check equals the fast path at K = 2.
:func:`~causalcost.compare` ranks several candidates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from causalcost.confusion import Confusion
from causalcost.errors import ValidationError
from causalcost.evaluation.report_value import Report
from causalcost.sheet.costsheet import CostSheet

__all__ = ["evaluate", "sheet_warnings"]


def sheet_warnings(sheet: CostSheet) -> tuple[str, ...]:
    """What every report on ``sheet`` must say about the sheet itself.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160),
    ...                                   cc.Confusion(0, 100, 0, 200), cc.CostMatrix(fn=5, fp=1),
    ...                                   slot="clinical_history", description="thesis set")
    >>> print(sheet_warnings(sheet)[0])  # doctest: +ELLIPSIS
    the monotone assumption was declared by the system owner, not checked: ...
    """
    out = []
    m = sheet.monotonicity
    if sheet.assumption == "monotone" and m is not None and m.get("source") == "declared":
        out.append(f"the monotone assumption was declared by the {m.get('by')}, not checked: the "
                   "worst and best cases hold only if the system never fails because the slot is "
                   "right")
    if not sheet.verified:
        out.append(f"the sheet was read from version {sheet.read_version}, which has no digest: "
                   "its content cannot be verified against what was issued")
    if sheet.signature is not None and not sheet.signature_checked:
        out.append(f"the sheet is signed (key {sheet.signed_by}) but its signature was not "
                   "checked: install the optional dependency (pip install 'causalcost[sign]')")
    return tuple(out)


def evaluate(sheet: CostSheet | Any, candidate: Confusion | Mapping[str, float] | Any = None,
             *, confidence: float | None = None, same_instances: bool = False,
             row_fingerprint: str | None = None, y_true: Any = None, scores: Any = None,
             positive: Any = None, costs: Any = None) -> Report | Any:
    """Evaluate one candidate for the sheet's slot.

    Parameters
    ----------
    sheet : CostSheet
        The slot's cost sheet, of any number of labels K.
    candidate : Confusion, mapping, (K, K) array, labelled frame or (y_true, y_pred)
        The candidate's confusion ``N[c, j]`` (rows the true class; for two labels also a
        mapping of ``tp``, ``fn``, ``fp``, ``tn``), or its predictions on ``y_true``'s rows
        (a pandas Series pairs by its index); labelled candidates are matched to the sheet's
        labels by name. By default it is taken as counted on other instances than the
        sheet's forced runs (the common two-split case): the worst and best cases use the
        probability form on its class sizes, and a warning says so.
    confidence : float, optional
        Add intervals on every cost (:func:`~causalcost.cost_intervals`), the worst case that
        holds on the candidate's own instances with this probability
        (:func:`~causalcost.high_confidence_bound`) and its mirror, the high-confidence best
        case.
    same_instances : bool, default False
        Declare that the candidate was counted on the very rows of the sheet's forced runs:
        then the worst and best cases are exact (count form, or the kinds bound of a sheet
        from data). Never inferred from equal class sizes.
    row_fingerprint : str, optional
        Prove it instead: :func:`~causalcost.row_fingerprint` of the rows the candidate was
        counted on, matched against the fingerprint the sheet records
        (:func:`~causalcost.sheet_from_data` with ``row_ids=``); a different fingerprint
        proves other rows.
    y_true, scores, positive : optional
        A :class:`~causalcost.ScoreSheet` prices a candidate from its **scores**: give
        ``candidate=(y_true, scores)`` or ``y_true=`` and ``scores=`` (``positive=`` names the
        positive label of ``y_true`` when it is not bool or 0/1); the result is then a
        :class:`~causalcost.evaluation.score_report.ScoreReport`
        (:func:`~causalcost.evaluation.score_judge.evaluate_scores`). Score runs of K > 2
        labels (or a score sheet of K labels) take the candidate's probability vectors as
        ``scores=`` (shape ``(rows, K)`` or a DataFrame whose columns are the labels), on the
        runs' own rows without ``y_true`` (exact worst and best case, and the real system
        cost) or with the ``y_true`` of other rows
        (:func:`~causalcost.evaluation.score_vector_judge.evaluate_vectors`).
    costs : CostMatrix or (K, K) array, optional
        Score runs of K labels only (they carry no costs): the system's costs, rows the true
        class; by default every mistake costs 1.

    Returns
    -------
    Report or ScoreReport
        For two labels by the binary closed forms (with witnesses and the Clopper-Pearson
        intervals, :mod:`causalcost.evaluation.binary_path`); for K labels by the general
        route (:mod:`causalcost.evaluation.general`), the same numbers at K = 2.

    Raises
    ------
    SheetError
        If the candidate's class sizes contradict the sheet's class counts on the same
        instances (or a prior of 0/1).
    ValidationError
        ``same_instances`` or ``row_fingerprint`` on a sheet without forced runs, or that
        contradict each other.
    CountError
        If the sheet is in the count form and the candidate's cells are not integers.
    TypeError
        If ``sheet`` is not a CostSheet or ``candidate`` not a confusion.
    InfeasibleInputError, OverflowInputError
        K labels: a class the candidate has but the sheet never saw; sums that overflow.

    Examples
    --------
    Thesis §4, example 2 (OR fusioner): cost function 1 gives 375, cost function 2 gives 275.

    >>> import causalcost as cc
    >>> sheet = cc.derive_sheet(cc.ErrorRates(0.0, 0.75, 1.0, 0.5), cc.CostMatrix(fn=5, fp=1),
    ...                      slot="clinical_history", class_counts=(100, 200),
    ...                      monotonicity="declared", provenance={"source": "thesis §4"})
    >>> r = evaluate(sheet, cc.Confusion(tp=40, fn=60, fp=100, tn=100))
    >>> r.to_dict()["eval1"], r.to_dict()["eval2"], r.to_dict()["assumption"]
    (375.0, 275.0, 'monotone')
    >>> other = evaluate(sheet, cc.Confusion(tp=40, fn=50, fp=100, tn=110), confidence=0.95)
    >>> other.form, other.high_confidence.worst_cost >= other.worst_cost
    ('probability', True)
    >>> print(other.instances)
    probability form: the sheet's rates were not counted on instances of its own (no forced runs)

    Three labels, the candidate as a 3 x 3 confusion (rows the true class):

    >>> import numpy as np
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1.0      # the system outputs what the slot says
    >>> sheet = cc.derive_sheet(t, [[0, 1, 1], [1, 0, 1], [5, 5, 0]], slot="m",
    ...                         labels=["a", "b", "c"], assumption="none",
    ...                         created="2026-01-01T00:00:00+00:00")
    >>> r = evaluate(sheet, [[8, 2, 0], [1, 9, 0], [1, 0, 9]])
    >>> r.eval1, r.worst_cost, r.best_cost, r.labels
    (8.0, 8.0, 8.0, ('a', 'b', 'c'))
    """
    from causalcost.evaluation.score_inputs import is_score_runs, is_score_slot

    if is_score_slot(sheet):  # priced from the candidate's scores
        if is_score_runs(sheet) and sheet.k == 2:  # through the runs' own sheet
            from causalcost.evaluation.score_runs_judge import evaluate_on_runs

            return evaluate_on_runs(sheet, candidate, y_true=y_true, scores=scores,
                                    positive=positive, costs=costs, confidence=confidence,
                                    same_instances=same_instances,
                                    row_fingerprint=row_fingerprint)
        from causalcost.evaluation.score_judge import evaluate_scores

        return evaluate_scores(sheet, candidate, y_true=y_true, scores=scores,
                               positive=positive, confidence=confidence,
                               same_instances=same_instances, row_fingerprint=row_fingerprint,
                               costs=costs)
    if costs is not None:
        raise ValidationError("costs= prices score runs of K labels; a cost sheet prices with "
                              "its own costs")
    if not isinstance(sheet, CostSheet):
        raise TypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    if y_true is not None or scores is not None or positive is not None:
        raise ValidationError("y_true=, scores= and positive= price a score slot's candidate "
                              "with a ScoreSheet; for this cost sheet give the candidate as a "
                              "confusion or as (y_true, y_pred)")
    if candidate is None:
        raise ValidationError("candidate: give the candidate's confusion or (y_true, y_pred)")
    from causalcost.evaluation.general import is_label_sheet

    if is_label_sheet(sheet):  # K labels, or two not named P, N: the general route
        from causalcost.evaluation.general import evaluate_general

        return evaluate_general(sheet, candidate, confidence=confidence,
                                same_instances=same_instances, row_fingerprint=row_fingerprint)
    from causalcost.evaluation.binary_path import evaluate_binary

    return evaluate_binary(sheet, candidate, sheet_warnings(sheet), confidence=confidence,
                           same_instances=same_instances, row_fingerprint=row_fingerprint)
