"""The explorer for a system declared by its K labels (``SystemBuilder(prior, labels=[...])``).

A system declared by its labels is a handful of numbers: the class prior (K probabilities),
each model's K x K confusion rates (rows the true class), its latents, and the fusion rule
with its options. :func:`label_explorer_settings` reads them off the system,
:func:`declared_label_system` rebuilds the system they describe with
:class:`~causalcost.SystemBuilder` and :func:`label_explorer_view` computes what the explorer
shows: the exact interventional table, the monotonicity check for the costs, both model cost
matrices, the bound (assumption-free when the system is not monotone for these costs) and the
picture under ``do(slot = label)``.

The controls: a model's rates change through :meth:`LabelExplorerSettings.with_accuracy`
(its recall on one class, the errors spread evenly over the other labels) or ``replace``
with a whole matrix. A model that depends on a latent keeps its declared rates per latent
state (its correlation with other models lives there): its row of ``confusions`` is the
marginal, shown but not changed. The high-confidence worst case needs counts on data, which
an explorer of a declared system has not: it is not offered for K labels.

Examples
--------
>>> import numpy as np, causalcost as cc
>>> eye = np.eye(3)
>>> system = (cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
...           .add_model("a", confusion=0.9 * eye + 0.05 * (1 - eye))
...           .add_model("b", confusion=0.8 * eye + 0.1 * (1 - eye))
...           .add_model("c", confusion=0.7 * eye + 0.15 * (1 - eye))
...           .set_fusioner("plurality", tie="slot").build(slot="c"))
>>> s = cc.explorer_settings(system)
>>> s.class_prior, s.fusioner, s.fusioner_options
((0.6, 0.3, 0.1), 'plurality', (('tie', 'slot'),))
>>> s.with_accuracy("a", "covid", 0.6).confusion_of("a")[2]
(0.2, 0.2, 0.6)
"""

from __future__ import annotations

import dataclasses
import html
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.display import format_number, html_block, html_side_by_side, html_table
from causalcost.errors import InputTypeError, ValidationError
from causalcost.explorer.band import band_svg
from causalcost.network.builder import SystemBuilder
from causalcost.network.system import System

__all__ = ["LabelExplorerSettings", "LabelExplorerView", "label_explorer_settings",
           "declared_label_system", "label_explorer_view", "LABEL_FUSIONER_CHOICES"]

#: The fusion rules a K-label explorer offers besides the system's own ("as declared").
LABEL_FUSIONER_CHOICES = ("as declared", "plurality", "weighted", "priority", "k_of_n")

_Matrix = tuple[tuple[float, ...], ...]


def _matrix(value: Any) -> _Matrix:
    arr = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=float)
    return tuple(tuple(float(v) for v in row) for row in np.atleast_2d(arr))


@dataclass(frozen=True)
class LabelExplorerSettings:
    """Everything the explorer's controls set, for a system declared by its K labels.

    Attributes
    ----------
    labels : tuple of str
    class_prior : tuple of float
        ``P(Class = label)``, one per label (sums to 1).
    confusions : tuple of (str, K x K tuple)
        Each model's confusion rates ``P(model = j | Class = c)`` (rows the true class), in
        the system's order; for a model with a latent, the marginal over the latent (kept).
    fusioner : str
        One of :data:`LABEL_FUSIONER_CHOICES`.
    fusioner_options : tuple of (str, object)
        The rule's options (``tie``, ``weights``, ``order``, ``label``, ``k``) as
        :meth:`causalcost.SystemBuilder.set_fusioner` takes them; ignored for
        ``"as declared"``.
    costs : CostMatrix
        K x K costs (rows the true class).
    candidate : Confusion
        The candidate's K x K confusion (rows the true class).
    intervention : str
        The label the slot is forced to in the picture.
    adjustable : bool
        False when the system cannot be re-declared (``reason`` says why): only the costs,
        the candidate and the intervention then change.
    reason : str
    fixed : tuple of str
        The models that depend on a latent: their rates per latent state stay as declared
        (their row of ``confusions`` is the marginal, and changing it is refused).
    """

    labels: tuple[str, ...]
    class_prior: tuple[float, ...]
    confusions: tuple[tuple[str, _Matrix], ...]
    fusioner: str
    fusioner_options: tuple[tuple[str, Any], ...]
    costs: CostMatrix
    candidate: Confusion
    intervention: str
    adjustable: bool = True
    reason: str = ""
    fixed: tuple[str, ...] = ()

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def replace(self, **changes: object) -> LabelExplorerSettings:
        """A copy with ``changes`` (field names), checked; matrices may be arrays."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValidationError(f"unknown explorer setting(s) {sorted(unknown)}; valid: "
                                  f"{[f.name for f in dataclasses.fields(self)]}")
        if "class_prior" in changes and not isinstance(changes["class_prior"], tuple):
            changes["class_prior"] = tuple(float(v) for v in changes["class_prior"])  # type: ignore[union-attr]
        if "confusions" in changes:
            changes["confusions"] = tuple((str(m), _matrix(c))
                                          for m, c in changes["confusions"])  # type: ignore[union-attr]
        if "fusioner_options" in changes and isinstance(changes["fusioner_options"], dict):
            changes["fusioner_options"] = tuple(changes["fusioner_options"].items())
        new = dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        new.check()
        return new

    def confusion_of(self, model: str) -> _Matrix:
        """One model's K x K confusion rates."""
        for m, c in self.confusions:
            if m == model:
                return c
        raise ValidationError(f"no model {model!r} among {[m for m, _ in self.confusions]}")

    def with_confusion(self, model: str, confusion: Any) -> LabelExplorerSettings:
        """A copy with one model's K x K confusion rates replaced."""
        self.confusion_of(model)
        return self.replace(confusions=tuple((m, _matrix(confusion) if m == model else c)
                                             for m, c in self.confusions))

    def with_accuracy(self, model: str, label: str, accuracy: float) -> LabelExplorerSettings:
        """A copy where ``model`` is right on class ``label`` with probability ``accuracy``
        and its errors on that class are spread evenly over the other labels (the slider's
        rule)."""
        if label not in self.labels:
            raise ValidationError(f"no label {label!r} among {list(self.labels)}")
        _probability(f"accuracy of {model!r} on {label!r}", accuracy)
        rows = [list(r) for r in self.confusion_of(model)]
        c = self.labels.index(label)
        off = (1.0 - float(accuracy)) / (self.k - 1)
        rows[c] = [float(accuracy) if j == c else off for j in range(self.k)]
        return self.with_confusion(model, rows)

    def check(self) -> None:
        """Raise :class:`ValidationError` naming the first setting out of range or shape."""
        k = self.k
        if k < 2 or len(set(self.labels)) != k:
            raise ValidationError(f"labels must be at least 2 distinct names, got {self.labels}")
        prior = np.asarray(self.class_prior, dtype=float)
        if prior.shape != (k,) or not np.isfinite(prior).all() or prior.min() < 0 or abs(
                prior.sum() - 1) > 1e-9 or prior.max() >= 1:
            raise ValidationError(f"class_prior must be {k} probabilities (one per label, "
                                  f"{list(self.labels)}) summing to 1 with at least two above 0, "
                                  f"got {self.class_prior!r}")
        for m, c in self.confusions:
            arr = np.asarray(c, dtype=float)
            if arr.shape != (k, k) or not np.isfinite(arr).all() or arr.min() < 0 or (
                    np.abs(arr.sum(axis=1) - 1) > 1e-9).any():
                raise ValidationError(f"the confusion rates of {m!r} must be {k} x {k} rows of "
                                      "probabilities summing to 1 (rows the true class), got "
                                      f"{c!r}")
        if self.fusioner not in LABEL_FUSIONER_CHOICES:
            raise ValidationError(f"fusioner must be one of {LABEL_FUSIONER_CHOICES}, got "
                                  f"{self.fusioner!r}")
        for name, value in (("costs", self.costs), ("candidate", self.candidate)):
            labels = getattr(value, "labels", None)
            if not isinstance(value, (CostMatrix, Confusion)) or labels is None or tuple(
                    map(str, labels)) != self.labels:
                raise ValidationError(f"{name} must be a {k} x {k} "
                                      f"{'CostMatrix' if name == 'costs' else 'Confusion'} with "
                                      f"the labels {list(self.labels)}, got {value!r}")
        if self.intervention not in self.labels:
            raise ValidationError(f"intervention must be one of {list(self.labels)}, got "
                                  f"{self.intervention!r}")
        if not isinstance(self.adjustable, bool):
            raise ValidationError(f"adjustable must be True or False, got {self.adjustable!r}")

    def declaration(self) -> tuple[object, ...]:
        """The part that defines the system (what a rebuild depends on)."""
        return (self.class_prior, self.confusions, self.fusioner, self.fusioner_options)


def _probability(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not (
            0 <= float(value) <= 1):
        raise ValidationError(f"{name} must be a number in [0, 1], got {value!r}")


def _options_of(system: System) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """The rule and the options that declare ``system``'s fusioner again."""
    f = system.fusioner
    labels = tuple(map(str, system.labels))
    if f is None or f.rule not in LABEL_FUSIONER_CHOICES or (
            f.rule == "weighted" and f.threshold is not None):
        return "as declared", ()
    options: list[tuple[str, Any]] = []
    if f.rule in ("plurality", "weighted"):
        tie = f.tie if f.tie == "slot" else tuple(labels[i] for i in f.tie)
        if tie == "slot" or tie != labels:
            options.append(("tie", tie))
    if f.rule == "weighted":
        weights = f.exact_weights if f.exact_weights is not None else f.weights
        options.append(("weights", tuple((m, w) for m, w in zip(f.models, weights))))
    if f.rule == "priority":
        options.append(("order", tuple(labels[i] for i in f.order)))
    if f.rule == "k_of_n":
        options += [("label", labels[f.label]), ("k", f.k)]
    return f.rule, tuple(options)


def _marginal(system: System, member: Any) -> np.ndarray:
    if member.latent is None:
        return np.asarray(member.rates[:, 0, :], dtype=float)
    lat = next(x for x in system.latents if x.name == member.latent)
    return np.einsum("cz,czj->cj", lat.probabilities, member.rates)


def label_explorer_settings(system: System, costs: Any = None,
                            candidate: Any = None) -> LabelExplorerSettings:
    """The explorer's settings for a system declared by its labels.

    Parameters
    ----------
    system : System
        With :attr:`~causalcost.System.declaration` (declared with ``labels=``).
    costs : CostMatrix or (K, K) array-like, optional
        Default: 1 for every mistake.
    candidate : Confusion or (K, K) array-like, optional
        Default: the slot model's own rates on 1,000 instances drawn at the class prior.
    """
    d = system.declaration
    if d is None:
        raise InputTypeError("label_explorer_settings needs a system declared by its labels "
                             "(SystemBuilder(prior, labels=[...]))")
    slot = system.require_slot()
    labels = tuple(map(str, d.labels))
    k = len(labels)
    confusions = tuple((m.name, _matrix(np.round(_marginal(system, m), 12)))
                       for m in d.members)
    fixed = tuple(m.name for m in d.members if m.latent is not None)
    rule, options = _options_of(system)
    reason = ""
    if system.fusioner is None or system.fusioner.rule == "table":
        reason = "the system node is a probability table, not a fusion rule"
    if costs is None:
        costs = CostMatrix(1 - np.eye(k), labels=list(labels))
    elif not isinstance(costs, CostMatrix):
        costs = CostMatrix(np.asarray(costs.to_numpy() if hasattr(costs, "to_numpy") else costs,
                                      dtype=float), labels=list(getattr(costs, "labels", labels)))
    costs = _by_name(costs, labels, CostMatrix, "costs")
    if candidate is None:
        prior = np.asarray(d.class_prior, dtype=float)
        sizes = np.round(1000 * prior)
        rates = np.asarray(dict(confusions)[slot])
        counts = np.round(sizes[:, None] * rates)
        counts[np.arange(k), np.arange(k)] += sizes - counts.sum(axis=1)  # rows keep size
        candidate = Confusion(np.maximum(counts, 0), labels=list(labels))
    elif not isinstance(candidate, Confusion):
        candidate = Confusion(np.asarray(candidate.to_numpy() if hasattr(candidate, "to_numpy")
                                         else candidate, dtype=float),
                              labels=list(getattr(candidate, "labels", labels)))
    candidate = _by_name(candidate, labels, Confusion, "candidate")
    settings = LabelExplorerSettings(
        labels=labels, class_prior=tuple(float(v) for v in d.class_prior),
        confusions=confusions, fusioner=rule, fusioner_options=options, costs=costs,
        candidate=candidate, intervention=labels[0], adjustable=not reason,
        reason=(f"{reason}: only the costs, the candidate and the intervention can change"
                if reason else ""), fixed=fixed)
    settings.check()
    return settings


def _by_name(value: Any, labels: tuple[str, ...], kind: type, name: str) -> Any:
    """``value`` in ``labels``' order (same set of labels reordered, else refused)."""
    own = tuple(map(str, value.labels))
    if own == labels:
        return value
    if set(own) != set(labels) or len(own) != len(labels):
        raise ValidationError(f"{name} has the labels {list(own)}, the system "
                              f"{list(labels)}")
    order = [own.index(lab) for lab in labels]
    arr = np.asarray(value.to_numpy(), dtype=float)[np.ix_(order, order)]
    return kind(arr, labels=list(labels))


def declared_label_system(base: System, settings: LabelExplorerSettings) -> System:
    """The system ``settings`` declare, built with ``SystemBuilder(prior, labels=...)``.

    ``base`` gives the names, the latents (with the rates per latent state of the models
    that depend on them) and, for ``fusioner="as declared"``, the rule. An unadjustable
    setting returns ``base`` itself.
    """
    if not settings.adjustable:
        return base
    d = base.declaration
    assert d is not None
    builder = SystemBuilder(list(settings.class_prior), labels=list(settings.labels),
                            class_node=base.class_node, system_node=base.system_node,
                            name=base.name)
    for lat in d.latents:
        builder.add_latent(lat.name, list(lat.states), lat.probabilities)
    rates = dict(settings.confusions)
    for m in d.members:
        if m.latent is None:
            builder.add_model(m.name, confusion=np.asarray(rates[m.name]))
        else:
            builder.add_model(m.name, confusion={z: m.rates[:, i, :] for i, z in enumerate(
                next(x for x in d.latents if x.name == m.latent).states)}, latent=m.latent)
    if settings.fusioner == "as declared":
        own = base.fusioner
        assert own is not None
        inputs, names = list(own.models), list(own.labels)
        at = inputs.index(base.slot) if base.slot in inputs else None

        def rule(**votes: Any) -> Any:
            index = tuple(names.index(votes[m]) for m in inputs)
            return names[own.output(index, None if at is None else index[at])]

        builder.set_fusioner(rule)
    else:
        options = dict(settings.fusioner_options)
        if "weights" in options and not isinstance(options["weights"], dict):
            options["weights"] = dict(options["weights"])
        if isinstance(options.get("tie"), tuple):
            options["tie"] = list(options["tie"])
        builder.set_fusioner(settings.fusioner, **options)
    return builder.build(slot=base.require_slot())


@dataclass(frozen=True)
class LabelExplorerView:
    """The explorer's output for one set of K-label settings.

    Attributes
    ----------
    settings : LabelExplorerSettings
    system : System
        The declared system (the base system if the settings are not adjustable).
    table : InterventionalTable
        Exact ``T[c, j, s] = P(system = s | Class = c, do(slot = j))``.
    monotonicity : MonotonicityCheck
        The monotonicity check for these costs.
    cost_matrices : ModelCostMatrices
        Cost functions 1 and 2 (``m1``, ``m2``).
    bound : Bound
        Worst and best case for the candidate (assumption-free if not monotone).
    picture : SystemPicture
        The graph under ``do(slot = settings.intervention)``.
    seconds : float
    """

    settings: LabelExplorerSettings
    system: System
    table: Any
    monotonicity: Any
    cost_matrices: Any
    bound: Any
    picture: Any
    seconds: float

    def to_frame(self) -> pd.DataFrame:
        """The candidate's system costs: best, expected (cost function 1) and worst."""
        b = self.bound
        return pd.DataFrame({"cost": [b.best_cost, b.expected_cost, b.worst_cost]},
                            index=pd.Index(["best", "expected", "worst"], name="system cost"))

    def __repr__(self) -> str:
        b = self.bound
        return (f"LabelExplorerView(slot={self.system.slot!r}, labels={list(self.settings.labels)}"
                f", best={format_number(b.best_cost)}, expected={format_number(b.expected_cost)}"
                f", worst={format_number(b.worst_cost)}, {self.seconds * 1000:.0f} ms)")

    def _repr_html_(self) -> str:
        s = self.settings
        notes = [] if s.adjustable else [s.reason]
        if not self.monotonicity.is_monotone:
            notes.append("not monotone in the slot for these costs: the bound is assumption-free")
        grid = pd.DataFrame(self.table.to_numpy().reshape(s.k * s.k, s.k),
                            index=pd.MultiIndex.from_product([s.labels, s.labels],
                                                             names=["class", "do(slot)"]),
                            columns=pd.Index(s.labels, name="system"))
        right = (html_table(grid, caption=f"P(system | Class, do({self.system.slot}))")
                 + html_table(self.cost_matrices.to_frame(),
                              caption="model cost matrices (true, predicted)")
                 + "<p>candidate's system cost</p>"
                 + band_svg(self.bound.best_cost, self.bound.expected_cost,
                            self.bound.worst_cost))
        return html_block(
            f"{html.escape(self.system.name)}: slot {self.system.slot!r}, "
            f"labels {', '.join(s.labels)}",
            html_side_by_side(self.picture.svg, right),
            notes=[*notes, f"updated in {self.seconds * 1000:.0f} ms"])


def label_explorer_view(base: System, settings: LabelExplorerSettings,
                        *, previous: LabelExplorerView | None = None) -> LabelExplorerView:
    """Recompute everything the K-label explorer shows (see :func:`causalcost.explorer_view`).

    Examples
    --------
    >>> import numpy as np, causalcost as cc
    >>> eye = np.eye(3)
    >>> system = (cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
    ...           .add_model("a", confusion=0.9 * eye + 0.05 * (1 - eye))
    ...           .add_model("b", confusion=0.8 * eye + 0.1 * (1 - eye))
    ...           .set_fusioner("plurality", tie="slot").build(slot="b"))
    >>> costs = cc.CostMatrix([[0, 1, 1], [5, 0, 1], [20, 5, 0]], labels=["ok", "flu", "covid"])
    >>> view = cc.explorer_view(system, cc.explorer_settings(system, costs))
    >>> view.monotonicity.is_monotone, round(view.bound.expected_cost, 4)
    (True, 550.0)
    """
    from causalcost.inference.query import interventional_table
    from causalcost.network.picture import system_picture
    from causalcost.pricing.bounds import bound
    from causalcost.pricing.model_costs import model_cost_matrices
    from causalcost.pricing.monotonicity import check_monotonicity

    start = time.perf_counter()
    if not isinstance(base, System) or base.declaration is None:
        what = ("a binary network (explore it with the ExplorerSettings of "
                "cc.explorer_settings(base))" if isinstance(base, System)
                else type(base).__name__)
        raise InputTypeError("base must be the System declared by its labels the explorer "
                             f"started from, got {what}")
    if not isinstance(settings, LabelExplorerSettings):
        raise InputTypeError(f"settings must be LabelExplorerSettings (from "
                             f"cc.explorer_settings(system)), got {type(settings).__name__}")
    if previous is not None and not isinstance(previous, LabelExplorerView):
        raise InputTypeError(f"previous must be None or the last view, got "
                             f"{type(previous).__name__}")
    settings.check()
    named = [m for m, _ in settings.confusions]
    if named != list(base.models) or settings.labels != tuple(map(str, base.labels)):
        raise ValidationError(f"the settings name the models {named} and labels "
                              f"{list(settings.labels)}, base has {list(base.models)} and "
                              f"{list(base.labels)}: read them with cc.explorer_settings(base)")
    own = dict(label_explorer_settings(base).confusions) if settings.fixed else {}
    for m in settings.fixed:
        if not np.allclose(settings.confusion_of(m), own[m], atol=1e-9):
            raise ValidationError(f"model {m!r} depends on a latent: its rates per latent state "
                                  "stay as declared (its errors' correlation lives there); "
                                  "change the other models' rates")
    same = previous is not None and previous.settings.declaration() == settings.declaration()
    if same:
        assert previous is not None
        system, table = previous.system, previous.table
    else:
        system = declared_label_system(base, settings)
        table = interventional_table(system)
    costs = settings.costs
    if same and previous is not None and previous.settings.costs == costs:
        check = previous.monotonicity
    else:
        check = check_monotonicity(system, costs)
    if same and previous is not None and previous.settings.intervention == settings.intervention:
        picture = previous.picture
    else:
        picture = system_picture(system, intervention=settings.intervention)
    monotone = bool(check.is_monotone)
    result = bound(table, settings.candidate, costs,
                   assumption="monotone" if monotone else "none",
                   monotonicity=check if monotone else None)
    return LabelExplorerView(settings, system, table, check, model_cost_matrices(table, costs),
                             result, picture, time.perf_counter() - start)
