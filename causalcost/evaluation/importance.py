"""Which slot to improve: the system cost with each slot as is, perfect, constant, or removed.

For every model of the system, :func:`slot_importance` prices five versions of the system on
one log (one row per instance: the truth and every model's prediction):

* ``as_is``: the system as deployed (every model as logged);
* ``perfect``: the slot replaced by a perfect model, ``do(slot = class)``: on positives the
  system votes as in the run with the slot forced to P, on negatives as with it forced to N,
  so its confusion is ``(tp, fn)`` of the forced-P run and ``(fp, tn)`` of the forced-N run;
* ``constant_p`` / ``constant_n``: the slot replaced by a constant (the two forced runs);
* ``removed``: the slot's vote taken out of the fusioner, where the rule says what that means
  (see :data:`REMOVAL`); NaN where it does not, with the reason in :attr:`SlotImportance.notes`.

This is ensemble "model importance" by leave-one-out and by replacement (Kim et al. 2024),
done exactly on the log (each version is the real fusioner re-run on every row, counted by
:func:`~causalcost.forced_runs`), priced with the system's cost matrix, and split by class.

**Intervals.** On a log, each class's cost is linear in that class's error rate (the FN rate
on positives, the FP rate on negatives), so a Wilson interval on the rate (statsmodels, via
:func:`~causalcost.proportion_interval`) maps exactly onto an interval on the class's cost at
the same level. The total cost's interval is the sum of the two class intervals each taken at
level ``sqrt(confidence)``: the classes' rows are independent, so both hold together with
probability at least ``confidence``. They are intervals on the cost of a future log of the same
class sizes drawn from the same population, for the system version in that row.

**From a network.** :func:`slot_importance` also takes a :class:`~causalcost.System`: the
costs are then expected costs for ``n`` instances with the network's class prior, computed from
each model's exact interventional table (``perfect`` uses ``e_P(P)`` on positives and ``e_N(N)``
on negatives, i.e. ``do(slot = class)``); ``as_is`` is the network's observed confusion;
``removed`` is not defined (the fusioner node's table would have to change) and there are no
intervals (exact).

Examples
--------
>>> import causalcost as cc
>>> imp = slot_importance(cc.load_network("thesis_and"), costs=cc.CostMatrix(fn=5, fp=1), n=300)
>>> imp.to_frame()[["perfect_cost", "constant_n_cost"]].round(6)
... # doctest: +NORMALIZE_WHITESPACE
                  perfect_cost  constant_n_cost
model
images                   250.0            500.0
clinical_history         100.0            500.0

A perfect ``clinical_history`` leaves the 20 % of positives ``images`` misses (100 = 100 x 0.2 x
5); a perfect ``images`` leaves the half ``clinical_history`` misses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from causalcost.confusion import CLASSES, Confusion, CostMatrix
from causalcost.confusion import format_number as _fmt
from causalcost.data.forced_runs import forced_runs
from causalcost.data.votes import resolve_fusioner
from causalcost.display import format_cells, html_block, html_table, wrapped
from causalcost.errors import InputTypeError, ValidationError
from causalcost.inference.exact import class_prior, exact_table_of, observed_confusion
from causalcost.network.fusioners import Fusioner, make_fusioner
from causalcost.network.system import System
from causalcost.stats.intervals import proportion_interval

__all__ = ["SlotImportance", "slot_importance", "VERSIONS", "REMOVAL"]

#: The system versions priced for each slot, in column order.
VERSIONS = ("as_is", "perfect", "constant_p", "constant_n", "removed")

#: What "the slot's votes removed" means for each fusioner rule.
REMOVAL = {
    "and": "AND of the other models (not defined for a single model)",
    "or": "OR of the other models (not defined for a single model)",
    "majority": "majority of the other models; with an even number of them a tie goes as "
                "removal_tie says (not defined without it)",
    "k_of_n": "not defined: k of the other n-1 is another rule (and k-1 of n-1 yet another); "
              "constant_n is the slot counted as a permanent N vote",
    "weighted": "not defined: the threshold was set for all voters; constant_n is the slot's "
                "weight never added",
    "function": "not defined: a function of the models' votes needs every vote",
}


@dataclass(frozen=True)
class SlotImportance:
    """The system cost with each slot as is, perfect, constant P / N, and removed.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per model (index ``model``, in the fusioner's input order): ``as_is_cost``,
        ``perfect_cost``, ``constant_p_cost``, ``constant_n_cost``, ``removed_cost`` (NaN where
        not defined), then ``perfect_gain = as_is_cost - perfect_cost`` (what a perfect model
        in the slot would save) and ``removal_loss = removed_cost - as_is_cost`` (what the
        slot's votes are worth; NaN where removal is not defined). From a log also
        ``<version>_ci_low`` / ``<version>_ci_high`` for each version.
    per_class : pandas.DataFrame
        One row per (model, version, class): ``n`` (instances of the class), ``errors`` (FN on
        positives, FP on negatives), ``error_rate``, ``cost`` (the class's share of the
        system cost) and, from a log, ``rate_ci_low``, ``rate_ci_high``, ``cost_ci_low``,
        ``cost_ci_high`` (Wilson, at ``confidence``).
    confusions : dict of (model, version) to Confusion
        The system's confusion in every version.
    costs : CostMatrix
    confidence : float or None
        The intervals' level (``None`` from a network: exact, no intervals).
    source : str
        ``"log"`` or ``"network"``.
    notes : dict of str to str
        Why ``removed`` is not defined, per model, where it is not.
    """

    frame: pd.DataFrame
    per_class: pd.DataFrame
    confusions: Mapping[tuple[str, str], Confusion]
    costs: CostMatrix
    confidence: float | None
    source: str
    notes: Mapping[str, str] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame`."""
        return self.frame.copy()

    def versions(self) -> list[str]:
        """The cost columns of :attr:`frame`, one per system version, in order."""
        return [c for c in self.frame.columns if c.endswith("_cost")]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``source``, ``costs``, ``confidence``, ``notes``, ``models`` (one record
        per row of :attr:`frame`, NaN as null, with the confusion of each version) and
        ``per_class`` (one record per row of :attr:`per_class`)."""
        def plain(value: Any) -> Any:
            value = value.item() if hasattr(value, "item") else value
            return None if isinstance(value, float) and not math.isfinite(value) else value

        models = []
        for name, row in self.frame.iterrows():
            record = {"model": name, **{k: plain(v) for k, v in row.items()}}
            record["confusions"] = {v: ({k: plain(c) for k, c in m.to_dict().items()}
                                        if hasattr(m, "to_dict") else m.tolist())
                                    for (n, v), m in self.confusions.items() if n == name}
            models.append(record)
        per_class = [{**dict(zip(self.per_class.index.names, key)),
                      **{k: plain(v) for k, v in row.items()}}
                     for key, row in self.per_class.iterrows()]
        costs = self.costs.to_dict() if hasattr(self.costs, "to_dict") else \
            self.costs.tolist()  # type: ignore[attr-defined]
        return {"source": self.source, "costs": costs,
                "confidence": self.confidence, "notes": dict(self.notes), "models": models,
                "per_class": per_class}

    def _lines(self) -> list[str]:
        f = self.frame
        best = f["perfect_gain"].idxmax()
        costs = format_cells(self.costs) if isinstance(self.costs, CostMatrix) else ";".join(
            ",".join(_fmt(float(v)) for v in row) for row in self.costs)  # type: ignore[attr-defined]
        constants = ", ".join(c[len("constant_"):-len("_cost")] for c in self.versions()
                              if c.startswith("constant_"))
        lines = [f"Slot importance ({self.source}, costs {costs}): the system cost with each "
                 f"slot as is, perfect, constant ({constants}), removed",
                 f"  a perfect {best!r} saves the most: {_fmt(f.loc[best, 'perfect_gain'])}"]
        if self.confidence is not None:
            k = self.per_class.index.get_level_values("class").nunique()
            root = "sqrt(confidence)" if k == 2 else f"confidence^(1/{k})"
            lines.append(f"  intervals: Wilson at {self.confidence:.0%} per class; the total's "
                         f"is the sum of the class intervals at {root}")
        lines += [f"  removed {m!r}: {why}" for m, why in self.notes.items()]
        return lines

    def __repr__(self) -> str:
        columns = [*self.versions(), "perfect_gain", "removal_loss"]
        shown = self.frame[columns].to_string(float_format=lambda v: f"{v:.6g}", line_width=99)
        return "\n".join(wrapped([*self._lines(), shown]))

    def _repr_html_(self) -> str:
        return html_block("Slot importance", [line.strip() for line in self._lines()],
                          html_table(self.frame, caption="System cost by slot version"),
                          html_table(self.per_class, caption="By class"))


# ---------------------------------------------------------------------------- pricing
def perfect_confusion(forced_p: Confusion, forced_n: Confusion) -> Confusion:
    """The system with a perfect slot, ``do(slot = class)``, from the two forced runs.

    >>> perfect_confusion(Confusion(80, 20, 40, 160), Confusion(0, 100, 0, 200))
    Confusion(tp=80, fn=20, fp=0, tn=200)
    """
    return Confusion(tp=forced_p.tp, fn=forced_p.fn, fp=forced_n.fp, tn=forced_n.tn)


def _class_rows(m: Confusion, costs: CostMatrix, confidence: float | None,
                ) -> list[dict[str, Any]]:
    """Per class: n, errors, rate, cost (and Wilson intervals on both)."""
    rows = []
    for cname, n, errors, wrong, right in (("P", m.positives, m.fn, costs.fn, costs.tp),
                                           ("N", m.negatives, m.fp, costs.fp, costs.tn)):
        rate = errors / n if n else math.nan
        row: dict[str, Any] = {"class": cname, "n": n, "errors": errors, "error_rate": rate,
                               "cost": errors * wrong + (n - errors) * right}
        if confidence is not None:
            if n:
                low, high = proportion_interval(int(errors), int(n), confidence)
            else:
                low, high = math.nan, math.nan
            ends = sorted((n * (low * wrong + (1 - low) * right),
                           n * (high * wrong + (1 - high) * right)))
            row.update(rate_ci_low=low, rate_ci_high=high, cost_ci_low=ends[0],
                       cost_ci_high=ends[1])
        rows.append(row)
    return rows


def _total_interval(m: Confusion, costs: CostMatrix, confidence: float) -> tuple[float, float]:
    """Sum of the class intervals, each at ``sqrt(confidence)`` (joint level >= confidence)."""
    rows = _class_rows(m, costs, math.sqrt(confidence))
    present = [r for r in rows if r["n"]]
    return (sum(r["cost_ci_low"] for r in present), sum(r["cost_ci_high"] for r in present))


def _build(confusions: dict[tuple[str, str], Confusion], models: Sequence[str],
           costs: CostMatrix, confidence: float | None, source: str,
           notes: dict[str, str]) -> SlotImportance:
    rows, per_class = {}, []
    for name in models:
        row: dict[str, float] = {}
        for version in VERSIONS:
            m = confusions.get((name, version))
            row[f"{version}_cost"] = math.nan if m is None else m.cost(costs)
            if m is not None:
                per_class += [{"model": name, "version": version, **r}
                              for r in _class_rows(m, costs, confidence)]
        row["perfect_gain"] = row["as_is_cost"] - row["perfect_cost"]
        row["removal_loss"] = row["removed_cost"] - row["as_is_cost"]
        if confidence is not None:
            for version in VERSIONS:
                m = confusions.get((name, version))
                low, high = ((math.nan, math.nan) if m is None
                             else _total_interval(m, costs, confidence))
                row[f"{version}_ci_low"], row[f"{version}_ci_high"] = low, high
        rows[name] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.Index(list(rows), name="model", dtype=object)
    classes = pd.DataFrame(per_class).set_index(["model", "version", "class"])
    return SlotImportance(frame=frame, per_class=classes, confusions=confusions, costs=costs,
                          confidence=confidence, source=source, notes=notes)


# ---------------------------------------------------------------------------- from a log
def _removed_fusioner(fusioner: Fusioner, slot: str,
                      removal_tie: str | None) -> tuple[Fusioner | None, str | None]:
    """The fusioner without ``slot``'s vote, or None and the reason."""
    others = [m for m in fusioner.inputs if m != slot]
    rule = fusioner.rule
    if rule in ("and", "or", "majority") and not others:
        return None, "not defined: the slot is the system's only model"
    if rule in ("and", "or"):
        return make_fusioner(rule, others), None
    if rule == "majority":
        if len(others) % 2 == 0 and removal_tie is None:
            return None, (f"not defined: the majority of the other {len(others)} models can "
                          "tie; pass removal_tie='negative' or 'positive' (--removal-tie)")
        tie = removal_tie if len(others) % 2 == 0 else None
        return make_fusioner("majority", others, tie=tie), None
    return None, REMOVAL[rule]


def _from_log(data: Any, *, truth: str, fusioner: Any, models: Sequence[str] | None,
              positive: Any, costs: CostMatrix, confidence: float | None,
              removal_tie: str | None, options: Mapping[str, Any]) -> SlotImportance:
    fus, names = resolve_fusioner(fusioner, models, **options)
    if removal_tie not in (None, "negative", "positive"):
        raise ValidationError(f"removal_tie must be 'negative' or 'positive', got "
                              f"{removal_tie!r}")
    confusions: dict[tuple[str, str], Confusion] = {}
    notes: dict[str, str] = {}
    for slot in names:
        runs = forced_runs(data, truth=truth, slot=slot, fusioner=fus, positive=positive,
                           observed=True)
        assert runs.observed is not None
        confusions.update({(slot, "as_is"): runs.observed,
                           (slot, "perfect"): perfect_confusion(runs.forced_p, runs.forced_n),
                           (slot, "constant_p"): runs.forced_p,
                           (slot, "constant_n"): runs.forced_n})
        reduced, why = _removed_fusioner(fus, slot, removal_tie)
        if reduced is None:
            notes[slot] = str(why)
            continue
        rest = forced_runs(data, truth=truth, slot=reduced.inputs[0], fusioner=reduced,
                           positive=positive, observed=True)
        assert rest.observed is not None
        confusions[slot, "removed"] = rest.observed
    return _build(confusions, names, costs, confidence, "log", notes)


# ---------------------------------------------------------------------------- from a network
def _expected(e: Mapping[tuple[str, str], float], pos: float, neg: float, x_pos: str,
              x_neg: str) -> Confusion:
    """Expected system confusion with the slot set to ``x_pos`` on positives, ``x_neg`` on
    negatives."""
    fn, fp = pos * e["P", x_pos], neg * e["N", x_neg]
    return Confusion(tp=pos - fn, fn=fn, fp=fp, tn=neg - fp)


def _from_network(system: System, costs: CostMatrix, n: float) -> SlotImportance:
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not (n > 0 and math.isfinite(n)):
        raise ValidationError(f"n (instances the expected costs are for) must be a positive "
                              f"number, got {n!r}")
    prior = class_prior(system.with_slot(system.models[0]))
    pos, neg = prior * n, (1 - prior) * n
    confusions: dict[tuple[str, str], Confusion] = {}
    notes: dict[str, str] = {}
    for slot in system.models:
        one = system.with_slot(slot)
        rates = exact_table_of(one, slot).error_rates
        e = {(c, x): rates.rate(c, x) for c in CLASSES for x in CLASSES}

        confusions.update({(slot, "as_is"): observed_confusion(one, pos, neg),
                           (slot, "perfect"): _expected(e, pos, neg, "P", "N"),
                           (slot, "constant_p"): _expected(e, pos, neg, "P", "P"),
                           (slot, "constant_n"): _expected(e, pos, neg, "N", "N")})
        notes[slot] = ("not defined from a network: the fusioner node's table would have to "
                       "change; use a log")
    return _build(confusions, list(system.models), costs, None, "network", notes)


def slot_importance(log: Any, *, costs: CostMatrix, truth: str | None = None,
                    models: Sequence[str] | None = None, fusioner: str | Fusioner | None = None,
                    positive: Any = None, confidence: float | None = 0.95,
                    removal_tie: str | None = None, n: float = 1.0,
                    labels: Sequence[Any] | None = None,
                    **fusioner_options: Any) -> SlotImportance:
    """The system cost with each slot as is, perfect, constant P / N and removed.

    Parameters
    ----------
    log : data frame, path or System
        One row per instance with the truth and *every* model's predictions (any frame
        :func:`~causalcost.forced_runs` reads), or a network.
    costs : CostMatrix
        The system's cost matrix.
    truth, models, fusioner, positive, **fusioner_options
        As in :func:`~causalcost.forced_runs` (a log only).
    confidence : float or None, default 0.95
        Level of the Wilson intervals (a log only; ``None``: none).
    removal_tie : {"negative", "positive"}, optional
        For ``majority`` when removing a model leaves an even number: where a tie goes.
        Without it removal is not defined there (NaN, and a note says why).
    n : float, default 1
        From a network: the number of instances the expected costs are for.
    labels : sequence, optional
        A log of K labels: the system's labels (as :func:`~causalcost.forced_runs`);
        ``costs`` is then a K x K matrix (rows the true class, or an object with
        ``.to_numpy()``), the versions are ``as_is``, ``perfect``, ``constant_<label>`` for
        each label and ``removed`` (not defined for K-label rules: NaN, with a note), and
        each class's interval maps the Wilson interval of its error rate onto the cheapest
        and dearest wrong outputs (exact for two labels).

    Returns
    -------
    SlotImportance

    Raises
    ------
    ValidationError
        Missing ``truth``/``fusioner`` for a log, a bad ``removal_tie`` or ``n``; as
        :func:`~causalcost.forced_runs` for the data.

    Examples
    --------
    >>> import pandas as pd, causalcost as cc
    >>> log = pd.DataFrame({"y": [1, 1, 1, 1, 0, 0, 0, 0], "a": [1, 1, 0, 1, 0, 0, 1, 0],
    ...                     "b": [1, 0, 1, 1, 0, 1, 0, 0], "c": [0, 1, 1, 1, 1, 0, 0, 0]})
    >>> imp = slot_importance(log, truth="y", models=["a", "b", "c"], fusioner="majority",
    ...                       costs=cc.CostMatrix(fn=5, fp=1), confidence=None,
    ...                       removal_tie="negative")
    >>> imp.to_frame()[["as_is_cost", "perfect_cost", "removed_cost"]]
    ... # doctest: +NORMALIZE_WHITESPACE
           as_is_cost  perfect_cost  removed_cost
    model
    a             0.0           0.0          10.0
    b             0.0           0.0          10.0
    c             0.0           0.0          10.0

    Each pair of the three misses two of the four positives (removing one model leaves an AND
    of the other two, ties going negative): 2 x 5 = 10.
    """
    if labels is not None:  # K labels: the same table from the K forced runs of each slot
        if truth is None or fusioner is None:
            raise ValidationError("slot_importance on a log needs truth= and fusioner= (and "
                                  "models= for a rule name)")
        if positive is not None or removal_tie is not None:
            raise ValidationError("positive= and removal_tie= are for two labels; with labels= "
                                  "leave them out")
        return _from_log_labels(log, truth=truth, fusioner=fusioner, models=models,
                                labels=labels, costs=costs, confidence=confidence,
                                options=fusioner_options)
    if not isinstance(costs, CostMatrix):
        raise InputTypeError(f"costs must be a CostMatrix, got {type(costs).__name__}")
    if isinstance(log, System):
        return _from_network(log, costs, n)
    if truth is None or fusioner is None:
        raise ValidationError("slot_importance on a log needs truth= and fusioner= (and "
                              "models= for a rule name)")
    return _from_log(log, truth=truth, fusioner=fusioner, models=models, positive=positive,
                     costs=costs, confidence=confidence, removal_tie=removal_tie,
                     options=fusioner_options)


# ---------------------------------------------------------------------------- K labels
def _label_class_rows(m: Any, costs: Any, labels: Sequence[str], confidence: float | None,
                      ) -> list[dict[str, Any]]:
    """Per class: n, errors, rate, cost, and the Wilson interval of the rate mapped onto the
    cheapest and dearest wrong outputs (a cost interval at the same level)."""
    import numpy as np

    m, costs = np.asarray(m, dtype=float), np.asarray(costs, dtype=float)
    rows = []
    for c, label in enumerate(labels):
        n = float(m[c].sum())
        errors = n - float(m[c, c])
        right = float(costs[c, c])
        wrong = np.delete(costs[c], c)
        row: dict[str, Any] = {"class": label, "n": n, "errors": errors,
                               "error_rate": errors / n if n else math.nan,
                               "cost": float((m[c] * costs[c]).sum())}
        if confidence is not None:
            low, high = (proportion_interval(int(errors), int(n), confidence) if n
                         else (math.nan, math.nan))
            row.update(rate_ci_low=low, rate_ci_high=high,
                       cost_ci_low=n * ((1 - low) * right + low * float(wrong.min())),
                       cost_ci_high=n * ((1 - high) * right + high * float(wrong.max())))
        rows.append(row)
    return rows


def _from_log_labels(data: Any, *, truth: str, fusioner: Any, models: Sequence[str] | None,
                     labels: Sequence[Any], costs: Any, confidence: float | None,
                     options: Mapping[str, Any]) -> SlotImportance:
    import numpy as np

    from causalcost.cost_matrix import as_costs

    if models is None:
        raise ValidationError("slot_importance with labels= needs models= (the models' "
                              "prediction columns, in the fusioner's input order)")
    names = [str(v) for v in labels]
    matrix = np.asarray(as_costs(costs, names).to_numpy(), dtype=float)
    from causalcost.pricing.inputs import check_costs

    matrix = check_costs(matrix, len(names))
    versions = ["as_is", "perfect", *(f"constant_{v}" for v in names), "removed"]
    confusions: dict[tuple[str, str], Any] = {}
    rows, per_class, notes = {}, [], {}
    for slot in models:
        runs = forced_runs(data, truth=truth, models=list(models), slot=slot,
                           fusioner=fusioner, labels=list(labels), **options)
        forced = np.asarray(runs.forced)  # [j, c, s]
        confusions[slot, "as_is"] = runs.observed.to_numpy()
        confusions[slot, "perfect"] = np.stack([forced[c, c] for c in range(len(names))])
        for j, label in enumerate(names):
            confusions[slot, f"constant_{label}"] = forced[j]
        notes[slot] = ("not defined for a rule of K labels: the other models' plurality (or "
                       "priority, k of n, weights) is another system; the constant_<label> "
                       "versions show the slot replaced")
        row: dict[str, float] = {}
        for version in versions:
            m = confusions.get((slot, version))
            row[f"{version}_cost"] = math.nan if m is None else float((m * matrix).sum())
            if m is None:
                continue
            class_rows = _label_class_rows(m, matrix, names, confidence)
            per_class += [{"model": slot, "version": version, **r} for r in class_rows]
            if confidence is not None:
                joint = _label_class_rows(m, matrix, names, confidence ** (1 / len(names)))
                present = [r for r in joint if r["n"]]
                row[f"{version}_ci_low"] = sum(r["cost_ci_low"] for r in present)
                row[f"{version}_ci_high"] = sum(r["cost_ci_high"] for r in present)
        if confidence is not None:
            row["removed_ci_low"] = row["removed_ci_high"] = math.nan
        row["perfect_gain"] = row["as_is_cost"] - row["perfect_cost"]
        row["removal_loss"] = math.nan
        rows[slot] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index = pd.Index(list(rows), name="model", dtype=object)
    classes = pd.DataFrame(per_class).set_index(["model", "version", "class"])
    return SlotImportance(frame=frame, per_class=classes, confusions=confusions,
                          costs=matrix, confidence=confidence, source="log",  # type: ignore[arg-type]
                          notes=notes)
