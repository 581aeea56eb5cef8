"""Say when a chosen threshold turns the slot into a constant, and what the system becomes.

A threshold at or below the lowest score of the evaluation set makes the candidate vote P on
every instance; one above the highest score (``inf`` in a sweep) makes it vote N on every
instance. Such a candidate carries no information: the system's output is then its output
with the slot **forced** to that label, which is exactly what the cost sheet's forced run
(the interventional rates ``e_P(x), e_N(x)``) describes. A sweep can pick such a point as its
optimum (in a majority of 3, always-P turns the system into an OR of the other two models,
which may be the cheapest system) and it must say so.

:func:`constant_vote` says whether a confusion is constant; :func:`forced_system_text` says
what the system becomes with the slot forced to a label, from the sheet only: the fusion rule
when the sheet records it (the ``fusioner`` of a data sheet's provenance, or the network a
network sheet was derived from, when its file still hashes to the sheet's ``sha256``), reduced
exactly (a vote "``k`` of ``n``" with the slot forced to P is "``k - 1`` of the other
``n - 1``", forced to N "``k`` of the other ``n - 1``"; a weighted vote's threshold drops by the
slot's weight), and always the system's rates with the slot forced, from the sheet.
:func:`constant_slot_notes` writes the sweep's messages and :class:`ConstantSlotWarning` is
the warning they are raised with.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_network("majority3", cc.CostMatrix(fn=5, fp=1))
>>> print(forced_system_text(sheet, "P"))  # doctest: +NORMALIZE_WHITESPACE
the system's output is then its output with the slot forced to P: for a majority of 3, an OR
of the other two (images, lab_tests); with the slot forced to P the system has TPR 0.955 and
FPR 0.28 (the sheet's rates e_P(P) = 0.045, e_N(P) = 0.28)

An OR of images (sensitivity 0.85, specificity 0.80) and lab_tests (0.70, 0.90), independent
given the class: TPR = 1 - 0.15 x 0.30, FPR = 1 - 0.80 x 0.90.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from causalcost.confusion import Confusion
from causalcost.errors import CausalCostError, CausalCostWarning, ValidationError
from causalcost.sheet.costsheet import CostSheet

__all__ = ["ConstantSlotWarning", "constant_vote", "forced_system_text", "constant_slot_notes"]

_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
          9: "nine", 10: "ten"}
_TOLERANCE = 1e-12  # as the weighted vote's comparison (causalcost.network.fusioners)


class ConstantSlotWarning(CausalCostWarning):
    """A chosen operating point makes the slot vote one label on every instance: the system is
    then the system with the slot forced to that label (the message says what that is)."""


def constant_vote(confusion: Confusion) -> str | None:
    """``"P"`` when the confusion predicts P on every instance, ``"N"`` when on none, else None.

    Examples
    --------
    >>> from causalcost.confusion import Confusion
    >>> constant_vote(Confusion(tp=3, fn=0, fp=4, tn=0)), constant_vote(Confusion(0, 3, 0, 4))
    ('P', 'N')
    >>> constant_vote(Confusion(tp=2, fn=1, fp=0, tn=4)) is None
    True
    """
    predicted = confusion.tp + confusion.fp
    total = predicted + confusion.fn + confusion.tn
    if total == 0:
        return None
    if predicted == total:
        return "P"
    return "N" if predicted == 0 else None


# ------------------------------------------------------------------------ the rule, from the sheet
@dataclass(frozen=True)
class _Rule:
    """A vote over the models: positive when ``sum(weight of positive voters) >= threshold``.

    ``others`` maps each other model (its name, or ``None`` entries when the sheet does not
    name them) to its weight; ``slot_weight`` is the slot's. ``n is None`` for AND / OR whose
    number of models the sheet does not record (their reductions do not need it).
    """

    name: str  # how the message names the rule: "a majority of 3", "an AND"
    kind: str  # "count" (equal weights), "and", "or" (count unknown), "weighted"
    threshold: float = 0.0
    n: int | None = None
    others: tuple[str, ...] | None = None
    weights: Mapping[str, float] | None = None
    slot_weight: float = 1.0


def _from_description(text: str, slot: str) -> _Rule | None:
    """The rule of a data sheet's ``provenance["fusioner"]`` (a Fusioner's description)."""
    if text.startswith("AND:"):
        return _Rule("an AND", "and")
    if text.startswith("OR:"):
        return _Rule("an OR", "or")
    match = re.fullmatch(r"majority of (\d+)(?:, ties go (negative|positive))?", text)
    if match:
        n = int(match.group(1))
        need = n // 2 + 1 if n % 2 or match.group(2) != "positive" else n // 2
        return _Rule(f"a {text}", "count", need, n)
    match = re.fullmatch(r"(\d+) of (\d+)", text)
    if match:
        return _Rule(f"a {text} vote", "count", int(match.group(1)), int(match.group(2)))
    match = re.fullmatch(r"weighted vote (\{.*\}) >= (\S+)", text)
    if match:
        try:
            weights = ast.literal_eval(match.group(1))
            threshold = float(match.group(2))
        except (ValueError, SyntaxError):
            return None
        if not isinstance(weights, dict) or slot not in weights:
            return None
        return _weighted(text, weights, threshold, slot)
    return None


def _weighted(text: str, weights: Mapping[str, Any], threshold: float, slot: str) -> _Rule:
    others = {str(k): float(v) for k, v in weights.items() if k != slot}
    return _Rule(f"a {text}", "weighted", threshold, len(weights), tuple(others), others,
                 float(weights[slot]))


def _from_fusioner(fusioner: Any, slot: str) -> _Rule | None:
    """The rule of a network's :class:`~causalcost.network.fusioners.Fusioner` over the slot."""
    if fusioner is None or not fusioner.is_vote or slot not in fusioner.inputs:
        return None
    names = tuple(fusioner.inputs)
    weights = dict(zip(names, fusioner.weights))
    others = tuple(m for m in names if m != slot)
    if fusioner.rule == "weighted":
        return _weighted(fusioner.description, weights, float(fusioner.threshold), slot)
    name = {"and": f"an AND of {len(names)}", "or": f"an OR of {len(names)}",
            "majority": f"a {fusioner.description}"}.get(fusioner.rule,
                                                         f"a {fusioner.description} vote")
    return _Rule(name, "count", float(fusioner.threshold), len(names), others)


def _network_rule(sheet: CostSheet) -> _Rule | None:
    """The fusioner of the network a network sheet was derived from, if its file is unchanged."""
    p = sheet.provenance
    if not isinstance(p.get("network"), str) or not isinstance(p.get("sha256"), str):
        return None
    from causalcost.network.netfile import file_digest, load_network, network_path

    try:
        path = network_path(p["network"])
        if file_digest(path) != p["sha256"]:
            return None
        system = load_network(path)
    except (CausalCostError, OSError):
        return None
    return _from_fusioner(system.fusioner, sheet.slot)


def sheet_rule(sheet: CostSheet) -> _Rule | None:
    """The system's fusion rule as the sheet records it, or None when it does not."""
    described = sheet.provenance.get("fusioner")
    if isinstance(described, str):
        return _from_description(described, sheet.slot)
    if sheet.provenance.get("source") == "network":
        return _network_rule(sheet)
    return None


# ------------------------------------------------------------------------------ the reduction
def _count(m: int) -> str:
    return _WORDS.get(m, str(m))


def _named(rule: _Rule) -> str:
    return f" ({', '.join(rule.others)})" if rule.others else ""


def _reduce(rule: _Rule, label: str) -> str:
    """What ``rule`` computes from the other models when the slot votes ``label`` always."""
    if rule.kind == "and":
        return ("an AND of the other models" if label == "P"
                else "a constant N: the system never votes P")
    if rule.kind == "or":
        return ("a constant P: the system always votes P" if label == "P"
                else "an OR of the other models")
    if rule.kind == "weighted":
        assert rule.weights is not None
        t = rule.threshold - (rule.slot_weight if label == "P" else 0.0)
        reachable = sum(w for w in rule.weights.values() if w > 0)
        lowest = sum(w for w in rule.weights.values() if w < 0)
        if lowest >= t - _TOLERANCE:  # even no positive voter reaches the threshold
            return "a constant P: the system always votes P"
        if t - _TOLERANCE > reachable:
            return "a constant N: the system never votes P"
        return f"the weighted vote {dict(rule.weights)} >= {t:g} of the other models"
    assert rule.n is not None
    m = rule.n - 1
    need = math.ceil(rule.threshold - _TOLERANCE) - (1 if label == "P" else 0)
    if need <= 0:
        return "a constant P: the system always votes P"
    if need > m:
        return "a constant N: the system never votes P"
    if m == 1:
        return f"the other model's vote alone{_named(rule)}"
    if need == m:
        return f"an AND of the other {_count(m)}{_named(rule)}"
    if need == 1:
        return f"an OR of the other {_count(m)}{_named(rule)}"
    majority = " (a majority of them)" if need == m // 2 + 1 else ""
    return f"a {need}-of-{m} vote of the other {_count(m)}{_named(rule)}{majority}"


def _rates_text(sheet: CostSheet, label: str) -> str:
    miss, alarm = sheet.rates.rate("P", label), sheet.rates.rate("N", label)
    return (f"with the slot forced to {label} the system has TPR {1 - miss:.4g} and FPR "
            f"{alarm:.4g} (the sheet's rates e_P({label}) = {miss:.4g}, e_N({label}) = "
            f"{alarm:.4g})")


def forced_system_text(sheet: CostSheet, label: str) -> str:
    """What the system becomes when the slot votes ``label`` on every instance, from the sheet.

    Parameters
    ----------
    sheet : CostSheet
        The slot's sheet: its rates, and the fusion rule when it records one.
    label : {"P", "N"}

    Returns
    -------
    str
        The reduced rule when the sheet records the rule (exactly), and the system's TPR and
        FPR with the slot forced to ``label`` (the sheet's interventional rates).

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.derive_sheet(cc.ErrorRates(0.3, 0.6, 0.4, 0.1), cc.CostMatrix(fn=5, fp=1),
    ...                         slot="s", prior=0.5, monotonicity="declared",
    ...                         provenance={"source": "test"})
    >>> print(forced_system_text(sheet, "N"))  # doctest: +NORMALIZE_WHITESPACE
    the system then behaves as with the slot forced to N (the sheet does not record the
    fusion rule); with the slot forced to N the system has TPR 0.4 and FPR 0.1 (the sheet's
    rates e_P(N) = 0.6, e_N(N) = 0.1)
    """
    if label not in ("P", "N"):
        raise ValidationError(f"label must be 'P' or 'N', got {label!r}")
    rule = sheet_rule(sheet)
    if rule is None:
        return (f"the system then behaves as with the slot forced to {label} (the sheet does "
                f"not record the fusion rule); {_rates_text(sheet, label)}")
    return (f"the system's output is then its output with the slot forced to {label}: for "
            f"{rule.name}, {_reduce(rule, label)}; {_rates_text(sheet, label)}")


def constant_slot_notes(sheet: CostSheet, points: Iterable[tuple[str, float, str | None]],
                        instances: int) -> tuple[str, ...]:
    """What the system becomes at each chosen threshold that makes the slot constant.

    Parameters
    ----------
    sheet : CostSheet
    points : iterable of (criterion name, threshold, constant)
        ``constant`` as :func:`constant_vote` returns it.
    instances : int
        The size of the evaluation set.

    Returns
    -------
    tuple of str
        One message per (label, threshold) some points share; empty when no point is
        constant.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_network("thesis_or", cc.CostMatrix(fn=5, fp=1))
    >>> notes = constant_slot_notes(sheet, [("lowest expected system cost", 0.1, "P"),
    ...                                     ("highest accuracy", 0.5, None)], 40)
    >>> print(notes[0])  # doctest: +NORMALIZE_WHITESPACE
    the threshold 0.1, chosen by lowest expected system cost, makes the slot
    'clinical_history' vote P on all 40 instances of the evaluation set (the threshold is at or
    below the lowest score): the system's output is then its output with the slot forced to P:
    for an OR of 2, a constant P: the system always votes P; with the slot forced to P the
    system has TPR 1 and FPR 1 (the sheet's rates e_P(P) = 0, e_N(P) = 1)
    """
    chosen: dict[tuple[str, float], list[str]] = {}
    for name, threshold, label in points:
        if label is not None:
            chosen.setdefault((label, threshold), []).append(name)
    notes = []
    for (label, threshold), names in chosen.items():
        where = ("at or below the lowest score" if label == "P"
                 else "above the highest score")
        notes.append(f"the threshold {threshold:.4g}, chosen by {' and '.join(names)}, makes "
                     f"the slot {sheet.slot!r} vote {label} on all {instances} instances of "
                     f"the evaluation set (the threshold is {where}): "
                     f"{forced_system_text(sheet, label)}")
    return tuple(notes)
