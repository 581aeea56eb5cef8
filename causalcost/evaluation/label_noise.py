"""What a candidate costs the system when the labels it was counted against are not all right.

The candidate's confusion is counted against labels, and some labels are wrong (article 003).
With at least a fraction ``label_accuracy`` of them right, the true confusion is any one of a
polygon of confusions (:func:`~causalcost.stats.noisy_labels.confusion_range`); every cost the
sheet gives -- ``Eval1``, the worst and the best case -- is then a range, and
:func:`label_noise_range` computes it exactly: "worst case between X and Y given labels that
are 96 % right".

Exact, because each cost is piecewise linear in the true confusion: ``Eval1`` is linear, and
the worst and best cases are sums of minima and maxima of linear functions of the cells and
class sizes (:mod:`~causalcost.pricing.closed_forms`). On the polygon the pieces meet along
straight lines ("kinks"), so each cost takes its extremes at a corner of the polygon, where a
kink line crosses an edge, or where two kink lines cross. All those points are priced at once
(:func:`~causalcost.pricing.bounds_many.bound_many_from_rates`) and the extremes read off
(:mod:`~causalcost.evaluation.noise_polygon`).

A sheet of K labels gets the same result type (:class:`LabelNoiseRange`) by another route: the
candidate corrected for each label transition ``P(observed label | true class)`` of a set
(symmetric noise up to a rate, the way to given error rates, or a given list), priced by the
sheet, and the lowest and highest cost over the set; with ``label_accuracy`` also Eval1's
range with no assumption on the label errors (:func:`eval1_any_errors`). See
:func:`label_noise_range`; the routes are :mod:`~causalcost.evaluation.noise_polygon` and
:mod:`~causalcost.evaluation.noise_transitions`.

The sheet's rates are taken to be about the true class (a sheet derived from a network is;
one counted on data with the same noisy labels would need its forced runs corrected too, with
:func:`~causalcost.stats.noisy_labels.correct_confusion`, before it is derived). The worst and
best cases use the probability form on the true class sizes, which the noise changes.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> r = label_noise_range(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100), 0.96)
>>> print(r)  # doctest: +NORMALIZE_WHITESPACE
Given labels that are at least 96% right (at most 12 of 300 wrong):
  Eval1 between 260 and 380 (as counted 320, estimate 307.391)
  worst case between 320.4 and 459.6 (as counted 390, estimate 375.652)
  best case between 190 and 310 (as counted 250, estimate 239.13)
  estimate: corrected for independent label errors, one rate for both classes
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from causalcost.evaluation.noise_result import LabelNoiseRange
from causalcost.evaluation.noise_transitions import eval1_any_errors

if TYPE_CHECKING:
    from causalcost.confusion import Confusion
    from causalcost.sheet.costsheet import CostSheet

__all__ = ["LabelNoiseRange", "eval1_any_errors", "label_noise_range"]


def label_noise_range(sheet: CostSheet, candidate: Confusion, label_accuracy: float | None = None,
                      *, label_errors: Any = None, transitions: Any = None,
                      steps: int | None = None) -> LabelNoiseRange:
    """Eval1 and the worst and best system cost of a candidate as ranges over label noise.

    Parameters
    ----------
    sheet : CostSheet
        The slot's cost sheet (its rates about the true class).
    candidate : Confusion
        The candidate's confusion, counted against the labels.
    label_accuracy : float, optional
        At least this fraction of the labels is right, in (0.5, 1]. The range makes no
        assumption on how the labels' errors relate to the candidate's.
    label_errors : LabelErrors, pair of float or Confusion, optional
        The labels' error rates per true class (or a label audit,
        :class:`~causalcost.stats.noisy_labels.LabelErrors`): the ``estimate`` then corrects
        the candidate with them (independent errors), and without ``label_accuracy`` the range
        uses the label accuracy they imply on the corrected class sizes. Without them the
        estimate uses one rate ``1 - label_accuracy`` for both classes.
    transitions : sequence, optional
        K labels only: the range over exactly these label transitions (each a
        :class:`~causalcost.stats.noisy_labels.LabelTransition` or K x K matrix of
        ``P(observed label | true class)``).
    steps : int, optional
        K labels only: how many evenly spaced members of a continuous family of transitions
        are priced (default 101).

    Returns
    -------
    LabelNoiseRange
        For two labels the exact range (:attr:`~LabelNoiseRange.confusions` the polygon),
        for K labels the range over a set of transitions (:attr:`~LabelNoiseRange.transitions`).

    Notes
    -----
    **K labels.** A sheet of K labels gets the K-label form of the independent-errors
    correction: each label transition ``P(observed label | true class)`` in a set turns the
    candidate's counts into a corrected confusion
    (:func:`~causalcost.stats.noisy_labels.correct_confusion`), which the sheet prices; the
    range is the lowest and highest cost over the set. The set is ``transitions`` when given;
    otherwise, with ``label_accuracy``, labels right with probability ``a`` and wrong evenly
    for every ``a`` from 1 down to ``label_accuracy`` (a symmetric noise rate from 0 up to
    ``1 - label_accuracy``); otherwise the way ``(1 - t) I + t E`` from clean labels to
    ``label_errors`` ``E`` (``t`` from 0 to 1). A continuous family is priced at ``steps``
    evenly spaced members (the costs between two of them can pass the range by the change
    over one step); a given list is priced exactly. A transition whose correction would need
    negative counts cannot have produced the counts and is left out (``note`` says how many).
    Unlike the binary range, which holds for any relation between the labels' errors and the
    candidate's, the K-label range assumes they are independent given the true class.

    Raises
    ------
    LabelNoiseError
        If the labels are no better than a coin, or ``label_errors`` would need negative counts.
    ValidationError
        If neither ``label_accuracy`` nor ``label_errors`` is given.

    Examples
    --------
    Labels that miss 5 % of the positives and flag 2 % of the negatives:

    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> r = label_noise_range(sheet, cc.Confusion(tp=80, fn=20, fp=30, tn=170),
    ...                       label_errors=(0.05, 0.02))
    >>> round(r.label_accuracy, 4), [round(v, 2) for v in r.range_of("worst_cost")]
    (0.9699, [175.81, 284.19])
    >>> r.frame.loc["worst_cost", ["observed", "estimate"]].round(2).tolist()
    [230.0, 214.52]

    Three labels, labels at least 90 % right and wrong evenly:

    >>> import numpy as np
    >>> from causalcost.sheet.derivation import derive_labelled_sheet
    >>> follows = np.stack([np.stack([np.eye(3)[j]] * 3) for j in range(3)], axis=1)
    >>> sheet = derive_labelled_sheet(follows, [[0, 1, 1], [1, 0, 1], [5, 5, 0]], slot="m",
    ...                               labels=["a", "b", "c"], created="2026-01-01T00:00:00+00:00")
    >>> r = label_noise_range(sheet, [[80, 10, 10], [5, 40, 5], [2, 3, 45]], 0.9)
    >>> [round(v, 3) for v in r.range_of("eval1")]
    [35.818, 55.0]
    """
    if getattr(sheet, "k", 2) == 2 and transitions is None and steps is None:
        # two labels: the exact range over every relabelling (the first label the positive)
        from causalcost.evaluation.candidates import as_confusion
        from causalcost.evaluation.noise_polygon import exact_range

        labels = getattr(sheet, "label_names", None)
        if labels is not None and not isinstance(candidate, Mapping):
            candidate = as_confusion(candidate, "candidate", labels=list(labels))
        return exact_range(sheet, candidate, label_accuracy, label_errors)
    from causalcost.evaluation.noise_transitions import transition_range

    return transition_range(sheet, candidate, label_accuracy, label_errors, transitions, steps)
