"""The general route of the bounds, for any number of labels K >= 2.

:func:`~causalcost.pricing.bounds.bound` calls this module for K > 2 and its binary closed
forms for K = 2 (the tests check that both agree). Orientation, once:
forced runs ``F[j, c, s]`` (slot forced to label ``j``, true class ``c``, system output
``s``), the candidate's confusion ``N[c, j]`` (true, predicted), costs ``C[c, s]`` (true,
system output; a right output never costs more than a wrong one in its row). Classes are
independent, so every bound is a sum over classes. An instance of class ``c`` has a response
vector ``r`` (its output under each forced label); the candidate's prediction picks one
coordinate.

* **Assumption-free** (``assumption="none"``): the coordinates of ``r`` are unconstrained, so
  the ``N[c, j]`` instances predicted ``j`` can take the ``N[c, j]`` costliest outputs of
  forced run ``j``::

      worst_c = sum_j top_{N[c, j]}(costs of forced run j's outputs on class c)

  (best: the cheapest). In the probability form "top" takes expected mass greedily. K = 2
  gives ``min(fc, nc) + min(fw, nw)``.
* **Monotone** (``assumption="monotone"``): per instance ``C[c, r(c)] <= C[c, r(j)]`` for
  every ``j`` (the slot being right never hurts). Only the pairs ``(r(c), r(j))`` are
  constrained, so the extremes are a small linear program per class
  (:mod:`~causalcost.pricing.programs`); any integer solution is realisable, so
  the integer optimum is the exact count-form bound. K = 2 gives ``min(fw, fc + nw)`` and
  ``max(fc, fw - nc)`` in a class whose mistake costs more than its hit; in a class where it
  costs the same, the rule constrains nothing (every response has the same cost) and the
  assumption-free extremes apply. This is the one definition of the monotone assumption,
  for every K.
* **Kinds** (``kinds=``): with every instance's response vector counted
  (:mod:`~causalcost.pricing.responses`), the assignment of predictions is a
  transportation problem: exact, integral, no assumption.

Count forms are exact: integer counts stay Python ints, costs are summed as fractions and
rounded once. The probability form under ``"monotone"`` is a linear program solved by HiGHS
in floating point: accurate to about ``1e-7`` of the class sizes times the costs. A cost that
overflows float64 is refused (:class:`~causalcost.errors.OverflowInputError`), never
returned as ``inf``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from causalcost.errors import (
    CountError,
    InfeasibleInputError,
    InputTypeError,
    MonotonicityError,
    OverflowInputError,
)
from causalcost.errors import ValidationError as _ValidationError
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.inputs import (  # noqa: F401 - is_table is used here and re-exported
    LP_COUNT_LIMIT,
    as_table_array,
    check_costs,
    check_counts,
    check_labels,
    is_table,
)
from causalcost.pricing.programs import monotone_class, transport_class
from causalcost.pricing.responses import read_kinds

__all__ = ["general_bound", "is_table"]

ASSUMPTIONS = ("none", "monotone")


def _take(mass: list[Any], order: list[int], amount: Any) -> list[Any]:
    """Take ``amount`` from ``mass`` following ``order`` (greedy; exact for ints)."""
    taken = [mass[0] * 0 for _ in mass]
    left = amount
    for s in order:
        if left <= 0:
            break
        got = min(mass[s], left)
        taken[s] = got
        left -= got
    return taken


def _free_class(forced: np.ndarray, n_row: np.ndarray, cost_row: np.ndarray,
                ) -> tuple[list[Any], list[Any]]:
    """Assumption-free worst and best output counts of one class (``forced[j, s]``)."""
    k = len(cost_row)
    dear = sorted(range(k), key=lambda s: (-cost_row[s], s))
    cheap = sorted(range(k), key=lambda s: (cost_row[s], s))
    cases = []
    for order in (dear, cheap):
        outputs = [forced[0, 0] * 0 for _ in range(k)]
        for j in range(k):
            for s, v in enumerate(_take(list(forced[j]), order, n_row[j])):
                outputs[s] = outputs[s] + v
        cases.append(outputs)
    return cases[0], cases[1]


def _cost(conf: np.ndarray, costs: np.ndarray, what: str) -> float:
    """``sum C * conf`` in exact rationals, rounded once; refused if it overflows float64."""
    exact = sum((Fraction(v) if isinstance(v, (int, np.integer)) else Fraction(float(v)))
                * Fraction(float(w)) for v, w in zip(conf.flat, costs.flat) if v)
    try:
        value = float(exact)
    except OverflowError:
        value = float("inf")
    if not np.isfinite(value):
        raise OverflowInputError(
            f"costs too large: the {what} system cost overflows float64 (about "
            f"{float(np.max(np.abs(costs))):.3g} per instance); rescale the costs (divide them "
            "all by the same factor)")
    return value


def _check_monotonicity(monotonicity: object | None) -> None:
    if monotonicity is None:
        return
    if not hasattr(monotonicity, "is_monotone"):
        raise InputTypeError("monotonicity must be a check result with attributes is_monotone "
                             f"and violation, got {type(monotonicity).__name__}")
    if not monotonicity.is_monotone:  # type: ignore[attr-defined]
        raise MonotonicityError(
            "the monotonicity check found the system is not monotone in the slot "
            f"({getattr(monotonicity, 'violation', None)}), so the monotone bound does not "
            "hold; pass assumption='none' or give kinds=")


def _rates(forced: Any, k: int) -> np.ndarray:
    """``T[c, j, s]`` from forced-run counts ``F[j, c, s]`` or a table (probability form)."""
    if is_table(forced):
        return as_table_array(forced)
    f = check_counts("forced", forced, 3, k).astype(float)
    sizes = f.sum(axis=2)  # [j, c]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(sizes[:, :, None] > 0, f / np.where(sizes > 0, sizes, 1)[:, :, None], 0.0)
    return np.transpose(t, (1, 0, 2))


def _assemble(worst: np.ndarray, best: np.ndarray, t: np.ndarray, n: np.ndarray,
              costs: np.ndarray, labels: tuple[str, ...], assumption: str, form: str,
              ) -> Bound:
    expected = np.einsum("cj,cjs->cs", n.astype(float), t)
    return Bound(
        labels=labels, worst=worst, best=best, worst_cost=_cost(worst, costs, "worst-case"),
        best_cost=_cost(best, costs, "best-case"), expected=expected,
        expected_cost=_cost(expected, costs, "expected"), assumption=assumption, form=form,
        worst_witness=None, best_witness=None, model=n, costs=costs)


def _from_kinds(kinds: object, n: np.ndarray, costs: np.ndarray, labels: tuple[str, ...] | None,
                assumption: str) -> Bound:
    k = n.shape[0]
    if not all(isinstance(v, int) for v in n.flat):
        raise CountError("model must hold whole numbers with kinds= (they count instances)")
    read = read_kinds(kinds, k, labels)
    sizes, rows = read.class_sizes(), n.sum(axis=1)
    for c in range(k):
        if sizes[c] != rows[c]:
            raise InfeasibleInputError(
                f"class {read.labels[c]!r}: the kinds count {sizes[c]} instances and the model "
                f"{rows[c]}; both must be counted on the same instances")
    if max([*sizes, 0]) > LP_COUNT_LIMIT:
        raise _ValidationError(f"class sizes beyond {LP_COUNT_LIMIT} are too large for the "
                               "exact transportation solve")
    if assumption == "monotone":
        for (c, r), count in read.counts.items():
            bad = [j for j in range(k) if costs[c, r[c]] > costs[c, r[j]]]
            if bad:
                raise MonotonicityError(
                    f"the kinds hold {count} instance(s) of class {read.labels[c]!r} with "
                    f"response vector {[read.labels[s] for s in r]}: forced to the right label "
                    f"the output costs more than forced to {read.labels[bad[0]]!r}, so the "
                    "system is not monotone in the slot; the kinds bound needs no "
                    "assumption: pass assumption='none'")
    worst = np.zeros((k, k), dtype=object)
    best = np.zeros((k, k), dtype=object)
    for c in range(k):
        vectors, supplies = read.by_class(c)
        (_, w), (_, b) = transport_class(vectors, supplies, list(n[c]), costs[c])
        worst[c], best[c] = w, b
    forced = read.forced()
    t = _rates(forced, k) if forced.sum() else np.zeros((k, k, k))
    return _assemble(worst, best, t, n, costs, read.labels, "none", "kinds")


def general_bound(forced: object = None, model: object = None, costs: object = None, *,
                  kinds: object = None, assumption: str = "none",
                  same_instances: bool = False, labels: list[str] | None = None,
                  monotonicity: object | None = None) -> Bound:
    """Worst and best system confusion and cost of a slot model by the general route, any K.

    :func:`causalcost.bound` is the public call (it takes this route for K > 2 and the
    binary closed forms for K = 2); this function takes the general route for every K, so
    the tests can check the closed forms against it.

    Parameters
    ----------
    forced : array (K, K, K) or table
        Counts ``F[j, c, s]``: class-``c`` instances with system output ``s`` when the slot is
        forced to label ``j``. A table object ``T[c, j, s]`` (``to_numpy()`` and
        ``probabilities``) is taken as rates (probability form).
    model : array (K, K)
        The candidate's confusion ``N[c, j]`` (true, predicted).
    costs : array (K, K), default 0/1 (``1 - eye(K)``)
        The system's costs ``C[c, s]`` (true, system output); ``C[c, c] <= C[c, s]``. The
        programs compare costs in float64: costs of one row closer than about 1e-9 of the
        row's range, or differing only in subnormal numbers (below 2.2e-308), count as equal.
    kinds : keyword-only
        Instead of ``forced``: the instance kinds counted on the candidate's instances (any
        representation of :mod:`~causalcost.pricing.responses`). Exact, no assumption.
    assumption : {"none", "monotone"}
        ``"monotone"``: the slot being right never makes an instance dearer (tighter).
    same_instances : bool
        ``True``: the candidate was counted on the forced runs' own instances; integer counts,
        exact count form (class sizes must agree). ``False``: probability form, the forced
        runs' rates on the candidate's class sizes (results may be fractional).
    labels : list of str, optional
        Label names for the result (default ``"0" .. "K-1"``; from the kinds frame with kinds).
    monotonicity : object, optional
        A check result (``is_monotone``, ``violation``), e.g. from
        :func:`~causalcost.pricing.monotonicity.check_monotonicity`;
        if it says not monotone, ``"monotone"`` is refused.

    Returns
    -------
    Bound
        ``worst``, ``best`` and ``expected`` (K x K system confusions) and their costs.

    Raises
    ------
    CountError
        Negative or non-finite counts, or fractional ones in a count form.
    CostMatrixError
        A non-finite cost or a right output dearer than a wrong one.
    InfeasibleInputError
        Class sizes that disagree (count and kinds forms), a class the forced runs never saw
        while the candidate did (probability form), or forced runs no monotone system gives.
    MonotonicityError
        ``"monotone"`` against a failed check or a non-monotone kind.
    ValidationError, InputTypeError
        Wrong shapes, an unknown assumption, both or neither of ``forced`` and ``kinds``.

    Examples
    --------
    Three labels; forced to ``j``, the system outputs ``j`` on 1 instance of each class and
    label 0 on the 2 others:

    >>> forced = np.zeros((3, 3, 3), dtype=int)
    >>> for j in range(3):
    ...     forced[j, :, 0] += 2
    ...     forced[j, :, j] += 1
    >>> model = [[3, 0, 0], [1, 2, 0], [0, 1, 2]]
    >>> b = general_bound(forced, model, 1 - np.eye(3), same_instances=True)
    >>> b.worst_cost, b.best_cost
    (6.0, 4.0)
    >>> general_bound(forced, model, 1 - np.eye(3), same_instances=True,
    ...               assumption="monotone").worst_cost
    6.0
    """
    if assumption not in ASSUMPTIONS:
        raise _ValidationError(f"assumption ({assumption!r}) must be one of 'none' or "
                               "'monotone'")
    if model is None:
        raise InputTypeError("bound needs the candidate's K x K confusion (model=)")
    if (forced is None) == (kinds is None):
        raise InputTypeError("give either forced (the forced runs, (K, K, K)) or kinds=, "
                             "not both and not neither")
    n = check_counts("model", model, 2)
    k = n.shape[0]
    costs_arr = check_costs(1 - np.eye(k) if costs is None else costs, k)
    if kinds is not None:
        return _from_kinds(kinds, n, costs_arr, labels, assumption)
    names = check_labels(labels if labels is not None else getattr(forced, "labels", None), k)
    if assumption == "monotone":
        _check_monotonicity(monotonicity)
    if assumption == "monotone":  # rates no monotone system gives: refused for every class
        _check_dominance(forced, costs_arr, names)
    if same_instances:
        return _count_form(forced, n, costs_arr, names, assumption)
    return _probability_form(forced, n, costs_arr, names, assumption)


def _check_dominance(forced: object, costs: np.ndarray, names: tuple[str, ...]) -> None:
    """Refuse forced runs (or a table) that no system monotone for ``costs`` gives."""
    from causalcost.pricing.monotonicity import dominance_violation

    k = costs.shape[0]
    if is_table(forced):
        t = as_table_array(forced)
    else:
        f = check_counts("forced", forced, 3, k).astype(float)
        sizes = f.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.transpose(f / sizes[:, :, None], (1, 0, 2))  # NaN: a class never seen
    broken = dominance_violation(t, costs, names)
    if broken:
        raise InfeasibleInputError(
            f"no system that is monotone in the slot for these costs has these forced runs "
            f"({broken}); use assumption='none'")


def _count_form(forced: object, n: np.ndarray, costs: np.ndarray, names: tuple[str, ...],
                assumption: str) -> Bound:
    k = n.shape[0]
    if is_table(forced):
        raise InputTypeError("same_instances=True needs forced-run counts, not a table of "
                             "rates; pass same_instances=False for the probability form")
    f = check_counts("forced", forced, 3, k, integer=True)
    n = check_counts("model", n, 2, k, integer=True)
    rows = n.sum(axis=1)
    for j in range(k):
        for c in range(k):
            if f[j, c].sum() != rows[c]:
                raise InfeasibleInputError(
                    f"forced[{j}] counts {f[j, c].sum()} instances of class {names[c]!r} and "
                    f"the model {rows[c]}; with same_instances=True the forced runs and the "
                    "model must be counted on the same instances")
    if assumption == "monotone" and max([*rows, 0]) > LP_COUNT_LIMIT:
        raise _ValidationError(f"class sizes beyond {LP_COUNT_LIMIT} are too large for the "
                               "exact monotone solve; use assumption='none'")
    worst = np.zeros((k, k), dtype=object)
    best = np.zeros((k, k), dtype=object)
    for c in range(k):
        if rows[c] == 0:  # no instance of this class: nothing to price (rows stay 0)
            continue
        if assumption == "none":
            worst[c], best[c] = _free_class(f[:, c, :], n[c], costs[c])
        else:
            (_, worst[c]), (_, best[c]) = monotone_class(f[:, c, :], n[c], costs[c], c,
                                                          integer=True)
    return _assemble(worst, best, _rates(f, k), n, costs, names, assumption, "counts")


def _probability_form(forced: object, n: np.ndarray, costs: np.ndarray,
                      names: tuple[str, ...], assumption: str) -> Bound:
    k = n.shape[0]
    t = _rates(forced, k)
    if not is_table(forced):
        seen = check_counts("forced", forced, 3, k).astype(float).sum(axis=2)  # [j, c]
        for c in range(k):
            if n[c].sum() > 0 and not np.all(seen[:, c] > 0):
                j = int(np.flatnonzero(seen[:, c] == 0)[0])
                raise InfeasibleInputError(
                    f"forced[{j}] holds no instance of class {names[c]!r}, so its rates are "
                    "unknown while the model has instances of that class")
    nf = n.astype(float)
    worst = np.zeros((k, k))
    best = np.zeros((k, k))
    for c in range(k):
        size = nf[c].sum()
        if size == 0:  # no instance of this class: nothing to price (rows stay 0)
            continue
        mass = t[c] * size  # [j, s]: expected outputs of forced run j on the candidate's class
        if assumption == "none":
            worst[c], best[c] = _free_class(mass, nf[c], costs[c])
        else:
            (_, worst[c]), (_, best[c]) = monotone_class(mass, nf[c], costs[c], c,
                                                          integer=False)
    return _assemble(worst, best, t, nf, costs, names, assumption, "probability")
