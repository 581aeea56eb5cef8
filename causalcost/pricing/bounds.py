"""Worst and best system cost of a slot model, from its confusion alone (thesis §3.3, slides).

Cost function 1 is exact only when the slot's errors are independent of the rest of the system.
Without that, two candidates with the same confusion matrix can lead the system to very
different results, so we ask instead: over every way the system could behave on each instance,
and every placement of the model's hits and mistakes on the instances, what are the worst and
the best system confusion?

Per class write ``fc`` / ``fw`` for the system's failures with the slot forced to the correct /
wrong class and ``nc`` / ``nw`` for the instances the model gets right / wrong (positives:
``fc = F_P(P)``, ``fw = F_P(N)``, ``nc = tp``, ``nw = fn``; negatives: ``fc = F_N(N)``,
``fw = F_N(P)``, ``nc = tn``, ``nw = fp``). Each instance is of one *kind*:

==============  =======================================  ===================
kind            system fails on it ...                   allowed under
==============  =======================================  ===================
``never``       never                                    both assumptions
``wrong_only``  only when the slot is wrong              both assumptions
``always``      whatever the slot says                   both assumptions
``right_only``  only when the slot is right              ``"none"`` only
==============  =======================================  ===================

A system is *monotone* in the slot (the specification: evidence for the right class never
hurts) when no instance is ``right_only``. Then ``fc <= fw`` and::

    worst errors = min(fw, fc + nw)      best errors = max(fc, fw - nc)

Without the assumption (``"none"``) the sets failing under each forced value are unrelated::

    worst errors = min(fc, nc) + min(fw, nw)      best = max(0, fc - nw) + max(0, fw - nc)

Every integer in between is attained, and cost function 1's estimate always lies between the
two. Costs follow because a mistake never costs less than a hit: the system's cost grows with its
errors in each class. A :class:`Witness` records an instance-level assignment attaining a bound.

Three forms: the **count form** (:func:`bound`, slides) takes the system's confusion matrices
with the slot forced to P and to N on the *same* instances as the model's confusion; the
**probability form** (:func:`bound_from_rates`, thesis) uses ``F = e x n`` from the network's
interventional rates, so its results are expected counts and may be fractional; the **kinds
form** (``bound(kinds=..., model=...)``, :mod:`~causalcost.pricing.kinds`) takes the four kinds
counted per class on the model's instances and is exact for them, with no assumption.

The count and kinds forms compute in Python integers, so counts of any size (beyond ``2**53``,
where floats skip integers) give exact confusions; costs are floats, and a cost that overflows
float64 is refused (:class:`~causalcost.errors.OverflowInputError`), never returned as ``inf``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from causalcost.confusion import EXACT_LIMIT, Confusion, CostMatrix, _cost, _exact
from causalcost.errors import InputTypeError, MonotonicityError, ValidationError
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.bounds_many import bound_many, bound_many_from_rates
from causalcost.pricing.closed_forms import (
    _UNIT,
    ASSUMPTIONS,
    _check_assumption,
    _check_monotonicity,
    _check_type,
    _extremes_exact,
    _failures_from_counts,
    _rates_of,
    _ratio,
    class_assumptions,
)
from causalcost.pricing.costs import (
    _expected_from_counts,
    expected_cost_matrix,
    expected_system_confusion,
)
from causalcost.pricing.kinds import (
    _check_sizes,
    _forced,
    _kind_extremes,
    _kind_witness,
    _read_kinds,
)
from causalcost.pricing.witness import (
    KIND_LABELS,
    KINDS,
    ClassWitness,
    Witness,
    _class_witness,
    _rest,
)

__all__ = [
    "ASSUMPTIONS",
    "KINDS",
    "KIND_LABELS",
    "Bound",
    "ClassWitness",
    "Witness",
    "best_case_confusion",
    "bound",
    "bound_from_rates",
    "bound_many",
    "bound_many_from_rates",
    "worst_case_confusion",
]

_Case = tuple[tuple[Any, Any], Witness]  # ((system FN, system FP), witness)


# --------------------------------------------------------------------------------- scalar API
def _assemble(cases: dict[str, _Case], rates: ErrorRates, model: Confusion, costs: CostMatrix,
              assumption: str, form: str, fails: tuple[Any, Any, Any, Any] | None = None
              ) -> Bound:
    """The Bound from the worst and best (FN, FP) and their witnesses; costs checked finite.

    ``fails`` (integer failure counts of the count and kinds forms) make the expected row
    exact when a class holds more than 2**53 instances; otherwise it is cost function 1 on
    the float ``rates``, as :func:`bound_many` computes it."""
    out = {}
    for case, ((fn, fp), wit) in cases.items():
        conf = Confusion(tp=_rest(model.positives, fn), fn=fn, fp=fp,
                         tn=_rest(model.negatives, fp))
        out[case] = (conf, _cost(conf.cells(), costs, f"{case}-case system cost"), wit)
    (worst, worst_cost, worst_wit), (best, best_cost, best_wit) = out["worst"], out["best"]
    if fails is not None and max(model.positives, model.negatives) > EXACT_LIMIT:
        # integer counts beyond 2**53, where float rates F / n lose whole instances (tp =
        # 2**53 + 1 came out one less): exact rationals, rounded once
        expected, expected_cost = _expected_from_counts(fails, model, costs)
    else:  # float64, as bound_many and the sheets compute it (the same numbers, bit for bit)
        expected = expected_system_confusion(rates, model)
        expected_cost = expected_cost_matrix(rates, costs).evaluate(model)
    return Bound(worst=worst, best=best, worst_cost=worst_cost, best_cost=best_cost,
                 expected=expected, expected_cost=expected_cost,
                 assumption=assumption, form=form, worst_witness=worst_wit,
                 best_witness=best_wit, costs=costs, model=model)


def _build(fails: tuple[Any, Any, Any, Any], rates: ErrorRates, model: Confusion,
           costs: CostMatrix, assumption: str, form: str) -> Bound:
    fcp, fwp, fcn, fwn = fails
    tp, fn, fp, tn = (_exact(v) for v in model.cells())
    on_p, on_n = class_assumptions(costs, assumption)  # the one monotone rule, per cost
    said = "monotone" if (on_p, on_n) == ("monotone", "monotone") else "none"
    cases = {}
    for i, case in enumerate(("worst", "best")):
        errors = (_extremes_exact(fcp, fwp, tp, fn, on_p)[i],
                  _extremes_exact(fcn, fwn, tn, fp, on_n)[i])
        wit = Witness(_class_witness(fcp, fwp, tp, fn, on_p, i == 0),
                      _class_witness(fcn, fwn, tn, fp, on_n, i == 0), said)
        cases[case] = (errors, wit)
    return _assemble(cases, rates, model, costs, assumption, form,
                     fails if form == "counts" else None)


def _count_rates(fails: tuple[int, int, int, int], model: Confusion) -> ErrorRates:
    """Cost function 1's rates ``F / n`` from count-form failures (0 for an empty class)."""
    n_p, n_n = model.positives, model.negatives
    return ErrorRates(_ratio(fails[0], n_p), _ratio(fails[1], n_p), _ratio(fails[3], n_n),
                      _ratio(fails[2], n_n))


def _bound_from_kinds(kinds: object, model: Confusion, costs: CostMatrix,
                      assumption: str | None) -> Bound:
    _check_type("model", model, Confusion)
    counts = _read_kinds(kinds)
    _check_sizes(counts, model)
    on_p, on_n = class_assumptions(costs, "none" if assumption is None else assumption)
    right_only = counts["P"][3] * (on_p == "monotone") + counts["N"][3] * (on_n == "monotone")
    if right_only:
        raise MonotonicityError(
            f"the kinds hold {right_only} right_only instance(s) (the system fails there only "
            "when the slot is right), so the system is not monotone in the slot; the kinds "
            "bound needs no assumption: drop assumption= (or pass assumption='none')")
    forced_p, forced_n = _forced(counts)
    fails = _failures_from_counts(forced_p, forced_n, model, "none")  # integer model counts
    hits = {"P": _exact(model.tp), "N": _exact(model.tn)}
    cases = {}
    for i, case in enumerate(("worst", "best")):
        errors = tuple(_kind_extremes(counts[c], hits[c])[i] for c in ("P", "N"))
        wit = Witness(_kind_witness(counts["P"], hits["P"], i == 0),
                      _kind_witness(counts["N"], hits["N"], i == 0), "none")
        cases[case] = (errors, wit)
    return _assemble(cases, _count_rates(fails, model), model, costs, "none", "kinds", fails)


def bound(forced_p: Any = None, forced_n: Any = None, model: Any = None,
          costs: Any = _UNIT, *, kinds: Any = None, assumption: str | None = None,
          monotonicity: object | None = None, same_instances: bool | None = None,
          labels: list[str] | None = None) -> Bound:
    """Worst and best system confusion and cost of a slot model, for any number of labels.

    Give either the forced runs (``forced_p`` and ``forced_n``, the slides' count form) or the
    instance kinds (``kinds=``, exact, :mod:`~causalcost.pricing.kinds`), and the model.

    Parameters
    ----------
    forced_p, forced_n : Confusion
        The system's confusion with the slot forced to P / to N, on the model's instances.
    model : Confusion
        The candidate's confusion on the same instances (integer counts).
    costs : CostMatrix, default ``CostMatrix(fn=1, fp=1)``
        The system's cost matrix (counting errors by default).
    kinds : DataFrame, keyword-only
        Instead of the forced runs: per class (index ``"P"``, ``"N"``) the number of the
        model's instances of each kind (integer columns ``never, wrong_only, always,
        right_only``; see :func:`~causalcost.pricing.kinds.count_kinds`). The bounds are then
        exact for those instances and need no assumption (``assumption="none"``,
        ``form="kinds"``); never looser than the forced-run bounds.
    assumption : {"monotone", "none"}, default "monotone" (forced runs) / "none" (kinds)
        ``"monotone"``: the system never fails on an instance only because the slot is right
        (the specification; tighter bounds). ``"none"``: bounds valid for any system. With
        ``kinds``, ``"monotone"`` is accepted only if no instance is ``right_only``.
    monotonicity : object, optional
        Result of the network's monotonicity check (attributes ``is_monotone`` and
        ``violation``). If it says the system is not monotone, ``"monotone"`` is refused.
    same_instances, labels : keyword-only, K-label inputs only
        See :func:`_general`.

    Returns
    -------
    Bound
        ``expected`` is cost function 1 with rates ``F / n`` from the forced runs (those the
        kinds imply, in the kinds form).

    Notes
    -----
    The monotone assumption is one rule for every K (:mod:`~causalcost.pricing.monotonicity`):
    per instance ``C[c, r(c)] <= C[c, r(j)]``. For K = 2 it forbids ``right_only`` instances
    in a class whose mistake costs more than its hit, and nothing in a class whose mistake
    costs what its hit costs (that class takes the assumption-free extremes).

    Raises
    ------
    CountError
        If a count is not an integer (negative counts are refused by ``Confusion``).
    InfeasibleInputError
        If the three matrices (or the kinds and the model) count different class totals, or,
        under ``"monotone"``, the system fails more often with the slot forced to the correct
        class than the wrong one.
    MonotonicityError
        If ``monotonicity`` (or a ``right_only`` kind) says the system is not monotone and
        ``assumption="monotone"``.
    OverflowInputError
        If a cost overflows float64 (costs too large for the counts): rescale the costs.
    ValidationError
        If ``assumption`` is unknown.
    InputTypeError
        If both or neither of the forced runs and ``kinds`` are given, or an argument has the
        wrong type.

    Examples
    --------
    >>> b = bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0))
    >>> b.worst, b.best
    (Confusion(tp=0, fn=100, fp=0, tn=0), Confusion(tp=50, fn=50, fp=0, tn=0))
    >>> bound(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0), Confusion(50, 50, 0, 0),
    ...       assumption="none").best_cost
    50.0

    The same instances as kinds (thesis §3.3: 50 positives fail only when the slot is wrong,
    50 always fail):

    >>> from causalcost.pricing.kinds import kinds_frame
    >>> k = bound(kinds=kinds_frame({"wrong_only": 50, "always": 50}, {}),
    ...           model=Confusion(50, 50, 0, 0))
    >>> k.worst_cost, k.best_cost, k.form, k.assumption
    (100.0, 50.0, 'kinds', 'none')

    K labels (any K, rows the true class): ``bound(forced, candidate, costs)`` with forced
    runs ``F[j, c, s]`` (a (K, K, K) array, or a table ``T[c, j, s]``), the candidate's
    confusion ``N[c, j]`` and costs ``C[c, s]``; see :func:`_general`. A K = 2 array gives the
    binary :class:`Bound` (with ``tp/fn/fp/tn`` and witnesses) through the closed forms above.

    >>> import numpy as np
    >>> forced = np.zeros((3, 3, 3), dtype=int)
    >>> for j in range(3):
    ...     forced[j, :, 0] += 2
    ...     forced[j, :, j] += 1
    >>> b = bound(forced, [[3, 0, 0], [1, 2, 0], [0, 1, 2]], 1 - np.eye(3), same_instances=True)
    >>> b.worst_cost, b.best_cost, b.labels
    (6.0, 4.0, ('0', '1', '2'))
    """
    if not _is_binary_input(forced_p, kinds):
        candidate = forced_n if forced_n is not None else model
        matrix = model if forced_n is not None and model is not None else costs
        return _general(forced_p, candidate, None if matrix is _UNIT else matrix, kinds=kinds,
                        assumption=assumption, same_instances=same_instances, labels=labels,
                        monotonicity=monotonicity)
    if isinstance(forced_p, (ErrorRates, InterventionalTable)):
        return bound_from_rates(forced_p, forced_n if forced_n is not None else model,
                                model if forced_n is not None and model is not None else costs,
                                assumption=assumption or "monotone", monotonicity=monotonicity)
    if assumption is not None:
        _check_assumption(assumption)
    given = forced_p is not None or forced_n is not None
    if kinds is not None:
        if given:
            raise InputTypeError("give either the forced runs (forced_p and forced_n) or kinds=, "
                                 "not both")
        _check_type("costs", costs, CostMatrix)
        return _bound_from_kinds(kinds, model, costs, assumption)  # type: ignore[arg-type]
    if forced_p is None or forced_n is None or model is None:
        raise InputTypeError("bound needs forced_p and forced_n (the system's confusion with the "
                             "slot forced to P and to N) or kinds=, and the model's confusion")
    assumption = assumption or "monotone"
    _check_monotonicity(monotonicity, assumption)
    _check_type("costs", costs, CostMatrix)
    fails = _failures_from_counts(forced_p, forced_n, model, class_assumptions(costs, assumption))
    return _build(fails, _count_rates(fails, model), model, costs, assumption, "counts")


def bound_from_rates(rates: ErrorRates | InterventionalTable, model: Confusion,
                     costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                     monotonicity: object | None = None) -> Bound:
    """Worst and best system confusion from interventional rates (probability form, thesis).

    The forced failure counts are taken as ``F = e x n`` with ``n`` the model's class sizes, so
    they are expected counts and every result may be fractional.

    Parameters
    ----------
    rates : ErrorRates or InterventionalTable
        The slot's interventional error rates.
    model : Confusion
        The candidate's confusion (fractional cells allowed).
    costs, assumption, monotonicity
        As in :func:`bound`.

    Returns
    -------
    Bound

    Raises
    ------
    InfeasibleInputError
        Under ``"monotone"``, if ``e_P(P) > e_P(N)`` or ``e_N(N) > e_N(P)``.
    MonotonicityError, OverflowInputError, ValidationError, InputTypeError
        As in :func:`bound`.

    Examples
    --------
    >>> b = bound_from_rates(ErrorRates(0.5, 1.0, 0.0, 0.0), Confusion(50, 50, 0, 0))
    >>> b.worst_cost, b.expected_cost, b.best_cost
    (100.0, 75.0, 50.0)
    """
    _check_assumption(assumption)
    _check_monotonicity(monotonicity, assumption, rates)
    _check_type("costs", costs, CostMatrix)
    _check_type("model", model, Confusion)
    r = _rates_of(rates, class_assumptions(costs, assumption))
    n_p, n_n = model.positives, model.negatives
    fails = (r.fn_forced_p * n_p, r.fn_forced_n * n_p, r.fp_forced_n * n_n, r.fp_forced_p * n_n)
    return _build(fails, r, model, costs, assumption, "probability")


def worst_case_confusion(forced_p: Confusion, forced_n: Confusion, model: Confusion,
                         costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                         monotonicity: object | None = None) -> Confusion:
    """The worst system confusion; ``bound(...).worst``.

    Examples
    --------
    >>> worst_case_confusion(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                      Confusion(50, 50, 0, 0))
    Confusion(tp=0, fn=100, fp=0, tn=0)
    """
    return bound(forced_p, forced_n, model, costs, assumption=assumption,
                 monotonicity=monotonicity).worst


def best_case_confusion(forced_p: Confusion, forced_n: Confusion, model: Confusion,
                        costs: CostMatrix = _UNIT, *, assumption: str = "monotone",
                        monotonicity: object | None = None) -> Confusion:
    """The best system confusion; ``bound(...).best``.

    Examples
    --------
    >>> best_case_confusion(Confusion(50, 50, 0, 0), Confusion(0, 100, 0, 0),
    ...                     Confusion(50, 50, 0, 0))
    Confusion(tp=50, fn=50, fp=0, tn=0)
    """
    return bound(forced_p, forced_n, model, costs, assumption=assumption,
                 monotonicity=monotonicity).best


def _is_binary_input(forced: Any, kinds: Any) -> bool:
    """Whether the call is in the binary vocabulary (Confusions, rates, the kinds frame):
    K-label calls give response-vector kinds or (K, K, K) forced runs / a table."""
    from causalcost.pricing.inputs import is_table
    from causalcost.pricing.responses import Kinds

    if kinds is not None:
        if isinstance(kinds, Kinds):
            return False
        columns = getattr(kinds, "columns", None)
        if columns is not None:
            return not {"class", "count"} <= set(map(str, columns))
        return not (isinstance(kinds, dict) and kinds
                    and all(isinstance(key, tuple) for key in kinds))
    if isinstance(forced, InterventionalTable):
        return forced.is_binary  # a table of K > 2 labels takes the general route
    if forced is None or isinstance(forced, (Confusion, ErrorRates)):
        return True
    if is_table(forced):
        return False
    try:
        return np.ndim(forced.to_numpy() if hasattr(forced, "to_numpy") else forced) != 3
    except (TypeError, ValueError):
        return True


def _general(forced: Any, candidate: Any, costs: Any, *, kinds: Any, assumption: str | None,
             same_instances: bool | None, labels: list[str] | None,
             monotonicity: object | None) -> Bound:
    """:func:`bound` for K-label inputs (any K); the binary closed forms for K = 2.

    Parameters
    ----------
    forced : array (K, K, K), or a table
        Forced-run counts ``F[j, c, s]``, or a table object ``T[c, j, s]`` (rates, with
        ``to_numpy()`` and ``probabilities``).
    candidate : array (K, K) or object with ``to_numpy()``
        ``N[c, j]`` (true class, prediction).
    costs : array (K, K) or object with ``to_numpy()``, default 0/1
        ``C[c, s]``; objects with ``.labels`` are matched to ``labels`` by name.
    assumption : {"none", "monotone"}, default "none" for K-label inputs
        ``"monotone"`` given a table that carries its system (or its check) is refused if
        the system is not monotone for these costs
        (:func:`~causalcost.pricing.monotonicity.require_monotone`).
    same_instances : bool, default False
        ``True`` declares the candidate counted on the forced runs' own instances (exact count
        form); otherwise the probability form. Never guessed from class sizes.
    labels : list of str, optional
        Label names (default from the inputs' ``labels``, else ``"0" .. "K-1"``).
    """
    from causalcost.pricing.general import general_bound, is_table
    from causalcost.pricing.inputs import check_costs, check_counts, check_labels
    from causalcost.pricing.monotonicity import require_monotone
    from causalcost.pricing.views import (
        binary_confusion,
        binary_costs,
        binary_rates,
        matrix_of,
    )

    assumption = "none" if assumption is None else assumption
    _check_assumption(assumption)
    if candidate is None:
        raise InputTypeError("bound needs the candidate's K x K confusion N[c, j] (model=)")
    names = _labels_of(labels, forced, candidate, costs, kinds)
    n = check_counts("model", _aligned(candidate, names, "model"), 2)
    k = n.shape[0]
    cost_arr = check_costs(1 - np.eye(k) if costs is None else _aligned(costs, names, "costs"), k)
    names = check_labels(names if names is not None or k > 2 else ("P", "N"), k)
    if assumption == "monotone" and forced is not None and is_table(forced):
        require_monotone(forced, cost_arr)
    if kinds is not None and k == 2:  # the K = 2 view of response vectors: the four kinds
        from causalcost.pricing.responses import read_kinds

        read = read_kinds(kinds, 2, labels)
        b = bound(kinds=read.binary_frame(), model=binary_confusion(n),
                  costs=binary_costs(cost_arr), assumption=assumption)
        return replace(b, labels=read.labels)
    if k > 2 or kinds is not None:
        return general_bound(forced if is_table(forced) else matrix_of(forced), n, cost_arr,
                             kinds=kinds, assumption=assumption,
                             same_instances=bool(same_instances),
                             labels=list(names) if kinds is None or labels is not None else None,
                             monotonicity=monotonicity)
    # K = 2: the binary closed forms (fast path), the same numbers as the general route
    c = binary_costs(cost_arr)
    model = binary_confusion(n)
    if is_table(forced):
        if same_instances:
            raise InputTypeError("same_instances=True needs forced-run counts, not a table of "
                                 "rates; pass same_instances=False for the probability form")
        b = bound_from_rates(binary_rates(table=matrix_of(forced)), model, c,
                             assumption=assumption, monotonicity=monotonicity)
    elif same_instances:
        f = check_counts("forced", matrix_of(forced), 3, 2, integer=True)
        b = bound(binary_confusion(f[0]), binary_confusion(f[1]), model, c,
                  assumption=assumption, monotonicity=monotonicity)
    else:
        f = check_counts("forced", matrix_of(forced), 3, 2)
        needed = (bool(n[0].sum() > 0), bool(n[1].sum() > 0))
        b = bound_from_rates(binary_rates(forced=f, labels=names, needed=needed), model, c,
                             assumption=assumption, monotonicity=monotonicity)
    return replace(b, labels=names)


def _labels_of(labels: Any, *sources: Any) -> Any:
    """The labels given, else the first input's ``labels`` (kinds, forced runs, ...)."""
    if labels is not None:
        return tuple(map(str, labels)) if not isinstance(labels, str) else labels
    for source in sources:
        own = getattr(source, "labels", None)
        if own is not None:
            return tuple(map(str, own))
    return None


def _aligned(value: Any, names: Any, what: str) -> Any:
    """``value`` as a matrix in the order of ``names``, matched by name when it has labels."""
    from causalcost.pricing.views import matrix_of

    own = getattr(value, "labels", None)
    matrix = matrix_of(value)
    if own is None or names is None or tuple(map(str, own)) == tuple(names):
        return matrix
    own = tuple(map(str, own))
    if sorted(own) != sorted(names):
        raise ValidationError(f"{what} is over labels {list(own)}, the other inputs over "
                              f"{list(names)}; give every input over the same labels")
    order = [own.index(name) for name in names]
    return np.asarray(matrix, dtype=object)[np.ix_(order, order)]
