"""Is a system monotone in its slot for given costs? One definition, checked exactly, any K.

**The monotone assumption** (the only definition in causalcost): per instance of true class
``c`` with response vector ``r`` (its output with the slot forced to each label),
``C[c, r(c)] <= C[c, r(j)]`` for every label ``j``: the slot being right never makes the
system's output dearer. For K = 2 with labels (P, N) and a mistake dearer than a hit in each
class (``c_FN > c_TP``, ``c_FP > c_TN``) this is the binary specification "no instance fails
only when the slot is right" (no ``right_only`` kind). In a class whose mistake costs what its
hit costs, the rule constrains nothing for that class (every output costs the same), for every
K: the bounds then use the assumption-free extremes in that class.

:func:`check_monotonicity` decides it for a declared system (any K);
:func:`require_monotone` refuses a source that is not monotone for given costs (for the sheet
and the bounds: ``assumption="monotone"`` must never rest on a false assumption).

For a
deterministic fusioner the response vector of an instance is fixed by the other models'
votes, so the check runs over every class ``c`` and every configuration of the other models'
votes with nonzero probability (count or score vectors for fusioners that read only those),
and names the first violation. Plurality with 0/1 costs passes; with general costs and
K >= 3 it can fail (the note's example). A stochastic pgmpy table is refused (its response
vectors are not fixed by the votes).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from causalcost.errors import MonotonicityError, ValidationError
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.pricing.inputs import as_table_array, check_costs, check_counts

__all__ = ["CostMonotonicity", "check_monotonicity", "dominance_violation", "require_monotone"]


def CostMonotonicity(is_monotone: bool, violation: str | None, checked: int,  # noqa: N802
                     ) -> MonotonicityCheck:
    """Deprecated: :func:`check_monotonicity` returns a
    :class:`~causalcost.MonotonicityCheck` for every K (``violation`` in words for K labels,
    ``checked`` the configurations); this builds one (slot and system node unnamed) and warns.
    """
    import warnings

    warnings.warn("CostMonotonicity is deprecated: check_monotonicity returns a "
                  "causalcost.MonotonicityCheck for every K", DeprecationWarning, stacklevel=2)
    return MonotonicityCheck("", "", is_monotone, violation, checked)


def _configurations(system: Any, c: int, slot: int):  # noqa: ANN202 - generator
    """Yield (description, outputs per forced label) for every reachable configuration."""
    from causalcost.inference.label_votes import MAX_CONFIGURATIONS, score_distribution

    f, k, labels = system.fusioner, system.k, system.labels
    support = np.zeros((len(system.models), k), dtype=bool)
    for p, z in system.latent_configurations(c):
        if p > 0:
            support |= system.vote_rates(c, z) > 0
    others = [i for i in range(len(system.models)) if i != slot]
    if f.kind in ("plurality", "priority", "k_of_n", "weighted"):
        w = list(f.score_weights)  # exact integers: ties are exact
        rates = support[others].astype(float)
        dist = score_distribution(rates, [w[i] for i in others] if f.kind == "weighted"
                                  else None)
        for key in dist:
            outs = []
            for j in range(k):
                scores = list(key)
                scores[j] += w[slot] if f.kind == "weighted" else 1
                outs.append(f.from_counts(scores, j))
            what = "scores" if f.kind == "weighted" else "votes"
            unit = f.score_unit if f.kind == "weighted" else 1
            desc = f"other models' {what} " + str({labels[s]: (int(v * unit) if (
                v * unit) == int(v * unit) else float(v * unit)) for s, v in enumerate(key) if v})
            yield desc, outs
        return
    configurations = int(np.prod([np.count_nonzero(support[i]) for i in others]))
    if configurations > MAX_CONFIGURATIONS:
        raise ValidationError(
            f"checking this fusioner means {configurations:,} vote configurations (more than "
            f"{MAX_CONFIGURATIONS:,}); use a rule that reads only the vote counts, or the "
            "assumption-free or kinds bound")
    for combo in itertools.product(*(np.flatnonzero(support[i]) for i in others)):
        votes = [0] * len(system.models)
        for i, v in zip(others, combo):
            votes[i] = int(v)
        outs = []
        for j in range(k):
            votes[slot] = j
            outs.append(f.output(votes, j))
        desc = "other models' votes " + str({system.models[i]: labels[v]
                                             for i, v in zip(others, combo)})
        yield desc, outs


def _is_labelled(system: object) -> bool:
    """Whether ``system`` is a K-label system (its check is per cost, by configurations)."""
    return getattr(system, "declaration", None) is not None


def check_monotonicity(system: Any, costs: object = None,
                       slot: str | None = None) -> Any:
    """Check, exactly, that forcing the slot to the right label never makes the output dearer.

    One definition for every K (see the module): per instance, ``C[c, r(c)] <= C[c, r(j)]``.

    Parameters
    ----------
    system : System
        A binary or K-label system.
    costs : (K, K) array or CostMatrix, optional
        ``C[c, s]`` (true class, system output); default 0/1 (count errors). For a binary
        system the check is the error-based one, which equals the rule for every cost matrix
        whose mistakes cost more than its hits; a binary check that finds a violation is
        conservative where a class's mistake costs nothing more than its hit.
    slot : str, optional
        Default: the system's slot. (``check_monotonicity(system, "slot")`` also works.)

    Returns
    -------
    MonotonicityCheck
        ``is_monotone`` and ``violation`` (K labels: in words, per cost); pass it to
        :func:`~causalcost.bound` as ``monotonicity=``.

    Examples
    --------
    The note's example: plurality of 4 models, ties to the first label, is monotone for 0/1
    costs but not when outputting ``z`` on an ``x`` instance is dearer than ``y``:

    >>> import causalcost as cc
    >>> b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    >>> for m in "abcd":
    ...     _ = b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    >>> s = b.set_fusioner("plurality").build(slot="d")
    >>> check_monotonicity(s, 1 - np.eye(3)).is_monotone
    True
    >>> r = check_monotonicity(s, [[0, 1, 5], [1, 0, 1], [1, 1, 0]])
    >>> r.is_monotone
    False
    >>> import textwrap
    >>> print(textwrap.fill(r.violation, 70))
    class 'x', other models' votes {'y': 1, 'z': 2}: slot right ('x')
    gives output 'z' (cost 5), slot forced to 'y' gives 'y' (cost 1)
    """
    if isinstance(costs, str) and slot is None:  # the binary call check_monotonicity(s, slot)
        costs, slot = None, costs
    if not _is_labelled(system):
        from causalcost.inference.intervene import check_monotonicity as binary_check

        return binary_check(system, slot)
    slot = system.require_slot(slot)
    c_arr = check_costs(1 - np.eye(system.k) if costs is None else _matrix(costs), system.k)
    i = system.models.index(slot)
    labels = system.labels
    checked = 0
    if system.fusioner.table is not None and not np.all(
            np.isin(system.fusioner.table, (0.0, 1.0))):
        return MonotonicityCheck(slot, system.system_node, False, (
            "the system node's table is not deterministic, so an instance's response vector is "
            "not fixed by the votes; monotonicity cannot be established"), 0)
    for c in range(system.k):
        for desc, outs in _configurations(system, c, i):
            checked += 1
            right = c_arr[c, outs[c]]
            for j in range(system.k):
                if c_arr[c, outs[j]] < right:
                    return MonotonicityCheck(slot, system.system_node, False, (
                        f"class {labels[c]!r}, {desc}: slot right ({labels[c]!r}) gives output "
                        f"{labels[outs[c]]!r} (cost {right:g}), slot forced to {labels[j]!r} "
                        f"gives {labels[outs[j]]!r} (cost {c_arr[c, outs[j]]:g})"), checked)
    return MonotonicityCheck(slot, system.system_node, True, None, checked)


def _matrix(value: object) -> object:
    """A (K, K) matrix from an array or an object with ``to_numpy()`` (binary cost matrices:
    ``[[c_tp, c_fn], [c_fp, c_tn]]``)."""
    if hasattr(value, "to_numpy"):
        return value.to_numpy()  # type: ignore[attr-defined]
    if hasattr(value, "cells") and not isinstance(value, np.ndarray):
        tp, fn, fp, tn = value.cells()  # type: ignore[attr-defined]
        return [[tp, fn], [fp, tn]]
    return value


def dominance_violation(table: np.ndarray, costs: np.ndarray,
                        labels: tuple[str, ...] | None = None, tol: float = 1e-12
                        ) -> str | None:
    """A necessary condition of the monotone rule on rates ``T[c, j, s]``, or what breaks it.

    If every instance has ``C[c, r(c)] <= C[c, r(j)]``, then for every class ``c``, label
    ``j`` and cost level ``t`` the share of outputs costing at least ``t`` is no smaller
    forced to ``j`` than forced to ``c``. A table that breaks this comes from no monotone
    system (the converse does not hold: aggregate rates cannot prove monotonicity).

    >>> t = np.zeros((2, 2, 2)); t[0, 0] = [0.5, 0.5]; t[0, 1] = [1, 0]; t[1, :, 1] = 1
    >>> dominance_violation(t, 1 - np.eye(2), ("P", "N"))
    "class 'P': forced to the right label 0.5 of the outputs cost 1 or more, forced to 'N' only 0"
    """
    k = table.shape[0]
    names = labels or tuple(str(i) for i in range(k))
    for c in range(k):
        if np.isnan(table[c]).any():  # a forced run never saw the class: nothing to compare
            continue
        for level in sorted(set(costs[c].tolist())):
            dear = costs[c] >= level
            right = float(table[c, c, dear].sum())
            for j in range(k):
                other = float(table[c, j, dear].sum())
                if other < right - tol:
                    return (f"class {names[c]!r}: forced to the right label {right:.6g} of the "
                            f"outputs cost {level:g} or more, forced to {names[j]!r} only "
                            f"{other:.6g}")
    return None


def require_monotone(source: Any, costs: object = None, *, slot: str | None = None) -> Any:
    """Refuse a source that is not monotone in the slot for ``costs``; return what proved it.

    Call this before using ``assumption="monotone"`` (the bounds and the sheet do).

    Parameters
    ----------
    source : System, table, or forced-run counts
        A declared system (binary or K-label): checked exactly with
        :func:`check_monotonicity`. A table carrying its system's check (``.monotonicity``)
        or its system (``.system``): that check. A K-label table ``T[c, j, s]`` or forced-run
        counts ``F[j, c, s]`` alone: only the necessary condition
        :func:`dominance_violation` can be checked (aggregate rates never prove the rule).
    costs : (K, K) array or CostMatrix, optional
        Default 0/1.
    slot : str, optional
        For a system: the slot (default its own).

    Returns
    -------
    check or None
        The check that proved monotonicity, or ``None`` when the source cannot prove it (the
        necessary condition held).

    Raises
    ------
    MonotonicityError
        The source is not monotone for these costs (the message names the violation).

    Examples
    --------
    >>> import causalcost as cc
    >>> b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    >>> for m in "abcd":
    ...     _ = b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    >>> s = b.set_fusioner("plurality").build(slot="d")
    >>> require_monotone(s, 1 - np.eye(3)).is_monotone
    True
    >>> require_monotone(s, [[0, 1, 5], [1, 0, 1], [1, 1, 0]])
    Traceback (most recent call last):
    ...
    causalcost.errors.MonotonicityError: the system is not monotone in the slot for these costs (class 'x', other models' votes {'y': 1, 'z': 2}: slot right ('x') gives output 'z' (cost 5), slot forced to 'y' gives 'y' (cost 1)); pass assumption='none' (the assumption-free bounds) or give the instance kinds
    """  # noqa: E501
    check = None
    if hasattr(source, "require_slot"):  # a declared system
        check = check_monotonicity(source, costs, slot)
    elif getattr(source, "monotonicity", None) is not None:
        check = source.monotonicity
    elif getattr(source, "system", None) is not None:
        check = check_monotonicity(source.system, costs, slot)
    if check is not None:
        if not check.is_monotone:
            raise MonotonicityError(
                f"the system is not monotone in the slot for these costs ({check.violation}); "
                "pass assumption='none' (the assumption-free bounds) or give the instance kinds")
        return check
    if hasattr(source, "probabilities") and hasattr(source, "to_numpy"):
        table = as_table_array(source)
    else:
        forced = check_counts("forced", source, 3).astype(float)
        sizes = forced.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.where(sizes[:, :, None] > 0, forced / np.where(sizes > 0, sizes, 1)[
                :, :, None], np.nan)
        table = np.transpose(rates, (1, 0, 2))
    k = table.shape[0]
    c_arr = check_costs(1 - np.eye(k) if costs is None else _matrix(costs), k)
    broken = dominance_violation(table, c_arr, getattr(source, "labels", None))
    if broken:
        raise MonotonicityError(
            f"no system monotone in the slot for these costs gives these rates ({broken}); "
            "pass assumption='none' (the assumption-free bounds)")
    return None
