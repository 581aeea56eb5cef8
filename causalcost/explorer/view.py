"""What the explorer shows for one set of settings: the headless update function.

:func:`explorer_view` is everything a slider move recomputes (the declared system, its
interventional table, both model cost matrices, the bound and, if asked, the high-confidence
worst case, and the picture of the mutilated graph), with no widget involved, so it is tested
and timed like any other function. :class:`ExplorerView` renders it as one HTML panel.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd

from causalcost.display import format_number, html_block, html_side_by_side, html_table
from causalcost.errors import InputTypeError, ValidationError
from causalcost.explorer.band import band_svg
from causalcost.explorer.labels import (
    LabelExplorerSettings,
    LabelExplorerView,
    label_explorer_view,
)
from causalcost.explorer.settings import ExplorerSettings, declared_system
from causalcost.inference.intervene import check_monotonicity
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.inference.query import interventional_table
from causalcost.inference.table import InterventionalTable
from causalcost.network.picture import SystemPicture, system_picture
from causalcost.network.system import System
from causalcost.pricing.bound_result import Bound
from causalcost.pricing.bounds import bound_from_rates
from causalcost.pricing.costs import ModelCostMatrix, error_transition_matrix, expected_cost_matrix
from causalcost.pricing.high_confidence import high_confidence_bound_from_rates

__all__ = ["ExplorerView", "explorer_view"]


@dataclass(frozen=True)
class ExplorerView:
    """The explorer's output for one set of settings.

    Attributes
    ----------
    settings : ExplorerSettings
    system : System
        The declared system (the base system if the settings are not adjustable).
    table : InterventionalTable
        Exact ``P(Conf | Class, do(slot))``.
    monotonicity : MonotonicityCheck
    expected, transition : ModelCostMatrix
        Cost functions 1 and 2.
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
        return (f"ExplorerView(slot={self.table.slot!r}, best={format_number(b.best_cost)}, "
                f"expected={format_number(b.expected_cost)}, worst={format_number(b.worst_cost)}"
                f", {self.seconds * 1000:.0f} ms)")

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
            notes.append("not monotone in the slot: the bound is assumption-free")
        right = (html_table(self.table.grid(), caption=f"P(Conf | Class, do({self.table.slot}))")
                 + html_table(self.table.error_rates.to_frame(), caption="failure rates e_c(x)")
                 + html_table(pd.DataFrame({"cost function 1": self.expected.to_frame().stack(),
                                            "cost function 2": self.transition.to_frame().stack()}),
                              caption="model cost matrices (true, predicted)")
                 + "<p>candidate's system cost</p>" + self.band_svg())
        return html_block(
            f"{self.system.name}: slot {self.table.slot!r}, candidate {s.candidate!r}",
            html_side_by_side(self.picture.svg, right),
            notes=[*notes, f"updated in {self.seconds * 1000:.0f} ms"])


def explorer_view(base: System, settings: ExplorerSettings | LabelExplorerSettings,
                  *, previous: ExplorerView | LabelExplorerView | None = None,
                  ) -> ExplorerView | LabelExplorerView:
    """Recompute everything the explorer shows for ``settings``.

    Parameters
    ----------
    base : System
        The system the explorer started from (names, slot, own fusioner).
    settings : ExplorerSettings
        From :func:`causalcost.explorer_settings`, changed with ``replace``/``with_rate``.
    previous : ExplorerView, optional
        The last view: its system, table and picture are reused when the settings that
        define them did not change (a cost or candidate slider rebuilds nothing).

    Returns
    -------
    ExplorerView or LabelExplorerView
        :class:`~causalcost.explorer.labels.LabelExplorerView` for the settings of a system
        declared by its labels (:func:`~causalcost.explorer.labels.label_explorer_view`).

    Raises
    ------
    InputTypeError
        ``base`` is not a System, ``settings`` not ExplorerSettings, ``previous`` not an
        ExplorerView.
    ValidationError
        A setting out of range, rates naming other models than ``base``'s, or a correlation
        the rates cannot reach (the message gives the reachable range).

    Examples
    --------
    >>> import causalcost as cc
    >>> system = cc.load_network("thesis_and")
    >>> settings = cc.explorer_settings(system, cc.CostMatrix(fn=5, fp=1),
    ...                                 cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    >>> view = cc.explorer_view(system, settings)
    >>> view.bound.expected_cost, view.bound.worst_cost, view.bound.best_cost
    (320.0, 390.0, 250.0)
    >>> cc.explorer_view(system, settings.replace(fusioner="or")).table.error_rates
    ErrorRates(e_P(P)=0, e_P(N)=0.2, e_N(P)=1, e_N(N)=0.2)
    """
    if isinstance(settings, LabelExplorerSettings):
        return label_explorer_view(base, settings, previous=previous)  # type: ignore[arg-type]
    start = time.perf_counter()
    _check_arguments(base, settings, previous)
    same = previous is not None and previous.settings.declaration() == settings.declaration()
    if same:
        assert previous is not None
        system, table, check = previous.system, previous.table, previous.monotonicity
    else:
        system = declared_system(base, settings)
        table = interventional_table(system)
        check = check_monotonicity(system)
    if same and previous is not None and previous.settings.intervention == settings.intervention:
        picture = previous.picture
    else:
        state = system.positive if settings.intervention == "P" else system.negative()
        picture = system_picture(system, intervention=state)
    assumption = "monotone" if check.is_monotone else "none"
    rates = table.error_rates
    result = bound_from_rates(table, settings.candidate, settings.costs, assumption=assumption,
                              monotonicity=check if check.is_monotone else None)
    high = None
    if settings.high_confidence:
        high = high_confidence_bound_from_rates(
            table, settings.candidate, settings.costs, confidence=settings.confidence,
            assumption=assumption, monotonicity=check if check.is_monotone else None)
    return ExplorerView(settings, system, table, check, expected_cost_matrix(rates, settings.costs),
                        error_transition_matrix(rates, settings.costs), result, high, picture,
                        time.perf_counter() - start)


def _check_arguments(base: object, settings: object, previous: object) -> None:
    """Types first (a clear message rather than an AttributeError deep inside), then the
    settings, then that the rates name ``base``'s models in its order."""
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
    settings.check()
    named = [m for m, _, _ in settings.rates]
    if settings.adjustable and named != list(base.models):
        raise ValidationError(f"settings.rates name the models {named} but base has "
                              f"{list(base.models)}: one (model, sensitivity, specificity) "
                              "triple per model, in base's order")
