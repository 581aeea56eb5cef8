"""What the explorer shows for one set of settings: the headless update function, any K.

:func:`explorer_view` is everything a slider move recomputes (the declared system, its exact
interventional table, the monotonicity check, both model cost matrices, the bound and, if
asked, the high-confidence worst case, and the picture of the mutilated graph), with no widget
involved, so it is tested and timed like any other function. :class:`ExplorerView` renders it
as one HTML panel.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import format_number, html_block, html_side_by_side, html_table
from causalcost.errors import InputTypeError, ValidationError
from causalcost.explorer.band import band_svg
from causalcost.explorer.declare import declared_system
from causalcost.explorer.settings import ExplorerSettings
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.inference.table import InterventionalTable
from causalcost.network.picture import SystemPicture
from causalcost.network.system import System
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.model_costs import ModelCostMatrices, ModelCostMatrix

__all__ = ["ExplorerView", "explorer_view"]


@dataclass(frozen=True)
class ExplorerView:
    """The explorer's output for one set of settings (any K).

    Attributes
    ----------
    settings : ExplorerSettings
    system : System
        The declared system (the base system if the settings are not adjustable).
    table : InterventionalTable
        Exact ``T[c, j, s] = P(system = s | Class = c, do(slot = j))``.
    monotonicity : MonotonicityCheck
        The monotonicity check (for a system declared by its labels, for these costs).
    expected, transition : ModelCostMatrix
        Cost functions 1 and 2 (:attr:`cost_matrices` holds both as ``m1``, ``m2``).
    bound : Bound
        Worst and best case for the candidate (assumption-free if not monotone).
    high_confidence : Bound or None
        The worst case holding with probability ``settings.confidence`` on the candidate's
        own instances, when asked.
    picture : SystemPicture
        The mutilated graph under ``do(slot = settings.intervention)``.
    seconds : float
        How long the update took.
    """

    settings: ExplorerSettings
    system: System
    table: InterventionalTable
    monotonicity: MonotonicityCheck
    expected: ModelCostMatrix
    transition: ModelCostMatrix
    bound: Bound
    high_confidence: Bound | None
    picture: SystemPicture
    seconds: float

    @property
    def cost_matrices(self) -> ModelCostMatrices:
        """Cost functions 1 and 2 as one pair (``m1``, ``m2``, ``to_frame``)."""
        return ModelCostMatrices(self.expected.labels, self.expected.to_numpy(),
                                 self.transition.to_numpy())

    def to_frame(self) -> pd.DataFrame:
        """The candidate's system costs: best, expected (cost function 1), worst and the
        high-confidence worst case (NaN when not asked)."""
        hc = self.high_confidence.worst_cost if self.high_confidence is not None else float("nan")
        return pd.DataFrame({"cost": [self.bound.best_cost, self.bound.expected_cost,
                                      self.bound.worst_cost, hc]},
                            index=pd.Index(["best", "expected", "worst",
                                            "high-confidence worst"], name="system cost"))

    def __repr__(self) -> str:
        b = self.bound
        named = "" if not self.settings.by_labels else f", labels={list(self.settings.labels)}"
        return (f"ExplorerView(slot={self.table.slot!r}{named}, best={format_number(b.best_cost)}"
                f", expected={format_number(b.expected_cost)}, worst="
                f"{format_number(b.worst_cost)}, {self.seconds * 1000:.0f} ms)")

    def band_svg(self, width: float = 420.0) -> str:
        """The bound band: best to worst case of the candidate's system cost, the expected
        cost marked inside and the high-confidence worst case beyond."""
        b = self.bound
        hc = self.high_confidence.worst_cost if self.high_confidence is not None else None
        return band_svg(b.best_cost, b.expected_cost, b.worst_cost, hc,
                        f"{self.settings.confidence:.0%} worst", width)

    def _repr_html_(self) -> str:
        s = self.settings
        notes = [] if s.adjustable else [s.reason]
        if not self.monotonicity.is_monotone:
            notes.append("not monotone in the slot" + (" for these costs" if s.by_labels else "")
                         + ": the bound is assumption-free")
        slot = self.table.slot
        right = html_table(self.table.grid(), caption=f"P(system | Class, do({slot}))")
        if self.table.is_binary:
            right += html_table(self.table.error_rates.to_frame(), caption="failure rates e_c(x)")
        right += (html_table(pd.DataFrame({"cost function 1": self.expected.to_frame().stack(),
                                           "cost function 2": self.transition.to_frame().stack()}),
                             caption="model cost matrices (true, predicted)")
                  + "<p>candidate's system cost</p>" + self.band_svg())
        title = (f"labels {', '.join(s.labels)}" if s.by_labels
                 else f"candidate {s.candidate!r}")
        return html_block(
            f"{html.escape(self.system.name)}: slot {slot!r}, {html.escape(title)}",
            html_side_by_side(self.picture.svg, right),
            notes=[*notes, f"updated in {self.seconds * 1000:.0f} ms"])


def explorer_view(base: System, settings: ExplorerSettings,
                  *, previous: ExplorerView | None = None) -> ExplorerView:
    """Recompute everything the explorer shows for ``settings``.

    Parameters
    ----------
    base : System
        The system the explorer started from (names, slot, own fusioner, latents).
    settings : ExplorerSettings
        From :func:`causalcost.explorer_settings`, changed with ``replace``, ``with_rate``,
        ``with_accuracy`` or ``with_confusion``.
    previous : ExplorerView, optional
        The last view: its system, table, check and picture are reused when the settings that
        define them did not change (a cost or candidate slider rebuilds nothing).

    Raises
    ------
    InputTypeError
        ``base`` is not a System, ``settings`` not ExplorerSettings, ``previous`` not an
        ExplorerView.
    ValidationError
        A setting out of range, settings naming other models or labels than ``base``'s, or a
        correlation the rates cannot reach (the message gives the reachable range).

    Examples
    --------
    >>> import numpy as np, causalcost as cc
    >>> system = cc.load_network("thesis_and")
    >>> settings = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1),
    ...                                 cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    >>> view = cc.explorer_view(system, settings)
    >>> view.bound.expected_cost, view.bound.worst_cost, view.bound.best_cost
    (320.0, 390.0, 250.0)
    >>> cc.explorer_view(system, settings.replace(fusioner="or")).table.error_rates
    ErrorRates(e_P(P)=0, e_P(N)=0.2, e_N(P)=1, e_N(N)=0.2)

    Three labels, the same call:

    >>> eye = np.eye(3)
    >>> three = (cc.SystemBuilder([0.6, 0.3, 0.1], labels=["ok", "flu", "covid"])
    ...          .add_model("a", confusion=0.9 * eye + 0.05 * (1 - eye))
    ...          .add_model("b", confusion=0.8 * eye + 0.1 * (1 - eye))
    ...          .set_fusioner("plurality", tie="slot").build(slot="b"))
    >>> costs = cc.CostMatrix([[0, 1, 1], [5, 0, 1], [20, 5, 0]], labels=["ok", "flu", "covid"])
    >>> view = cc.explorer_view(three, cc.explorer_settings(three, costs))
    >>> view.monotonicity.is_monotone, round(view.bound.expected_cost, 4)
    (True, 550.0)
    """
    from causalcost.inference.query import interventional_table
    from causalcost.network.picture import system_picture
    from causalcost.pricing.costs import error_transition_matrix, expected_cost_matrix
    from causalcost.pricing.monotonicity import check_monotonicity

    start = time.perf_counter()
    _check_arguments(base, settings, previous)
    same = previous is not None and previous.settings.declaration() == settings.declaration()
    costs = settings.costs
    if same:
        assert previous is not None
        system, table = previous.system, previous.table
    else:
        system = declared_system(base, settings)
        table = interventional_table(system)
    if same and previous is not None and (not settings.by_labels or
                                          previous.settings.costs == costs):
        check = previous.monotonicity  # a binary network's check does not depend on costs
    else:
        check = check_monotonicity(system, costs)
    if same and previous is not None and previous.settings.intervention == settings.intervention:
        picture = previous.picture
    else:
        picture = system_picture(system, intervention=_state(system, settings))
    result, high = _bounds(table, settings, check)
    return ExplorerView(settings, system, table, check, expected_cost_matrix(table, costs),
                        error_transition_matrix(table, costs), result, high, picture,
                        time.perf_counter() - start)


def _state(system: System, settings: ExplorerSettings) -> Any:
    """The slot's state for the intervention: the label itself, or for a binary network the
    system's positive (``"P"``) or negative (``"N"``) state, whatever its name."""
    if settings.by_labels:
        return settings.intervention
    return system.positive if settings.intervention == "P" else system.negative()


def _bounds(table: InterventionalTable, settings: ExplorerSettings,
            check: MonotonicityCheck) -> tuple[Bound, Bound | None]:
    """The bound (monotone when the check says so) and, when asked, the high-confidence
    worst case; a binary table through its closed forms (the fast path)."""
    from causalcost.pricing.bounds import bound, bound_from_rates
    from causalcost.pricing.high_confidence import high_confidence_bound_from_rates

    monotone = bool(check.is_monotone)
    options: dict[str, Any] = {"assumption": "monotone" if monotone else "none",
                               "monotonicity": check if monotone else None}
    if not table.is_binary:
        return bound(table, settings.candidate, settings.costs, **options), None
    high = None
    if settings.high_confidence:
        high = high_confidence_bound_from_rates(table, settings.candidate, settings.costs,
                                                confidence=settings.confidence, **options)
    return bound_from_rates(table, settings.candidate, settings.costs, **options), high


def _check_arguments(base: object, settings: object, previous: object) -> None:
    """Types first (a clear message rather than an AttributeError deep inside), then the
    settings, then that they name ``base``'s models (and labels) in its order."""
    for name, value, kind, hint in (
            ("base", base, System, "the System the explorer started from"),
            ("settings", settings, ExplorerSettings, "from cc.explorer_settings(system)")):
        if not isinstance(value, kind):
            raise InputTypeError(f"{name} must be {hint} ({kind.__name__}), got "
                                 f"{type(value).__name__}")
    if previous is not None and not isinstance(previous, ExplorerView):
        raise InputTypeError(f"previous must be None or the last ExplorerView, got "
                             f"{type(previous).__name__}")
    assert isinstance(settings, ExplorerSettings) and isinstance(base, System)
    if settings.by_labels != (base.declaration is not None):
        kinds = ("declared by its labels", "a binary network")
        mine, its = kinds if settings.by_labels else kinds[::-1]
        raise InputTypeError(f"base must be the System the explorer started from: these "
                             f"settings are for a system {mine}, base is {its}; read them with "
                             "cc.explorer_settings(base)")
    settings.check()
    named = [m for m, _ in settings.confusions]
    if settings.by_labels and (named != list(base.models)
                               or settings.labels != tuple(map(str, base.labels))):
        raise ValidationError(f"the settings name the models {named} and labels "
                              f"{list(settings.labels)}, base has {list(base.models)} and "
                              f"{list(base.labels)}: read them with cc.explorer_settings(base)")
    if settings.adjustable and named != list(base.models):
        raise ValidationError(f"settings.rates name the models {named} but base has "
                              f"{list(base.models)}: one (model, sensitivity, specificity) "
                              "triple per model, in base's order")
    if settings.fixed:
        from causalcost.explorer.reading import explorer_settings

        own = dict(explorer_settings(base).confusions)
        for m in settings.fixed:
            if not np.allclose(settings.confusion_of(m), own[m], atol=1e-9):
                raise ValidationError(f"model {m!r} depends on a latent: its rates per latent "
                                      "state stay as declared (its errors' correlation lives "
                                      "there); change the other models' rates")
