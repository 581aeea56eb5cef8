"""The live explorer: ipywidgets controls around :func:`~causalcost.explorer_view`.

Sliders set each model's sensitivity and specificity, the latent's correlations, the class
prior, the fusioner, the two error costs and the candidate's confusion; toggles pick the
intervention shown and add the high-confidence worst case. Every change calls
:func:`~causalcost.explorer_view` and replaces one HTML output, so what the panel shows is
exactly what the headless function returns. ipywidgets is optional
(``pip install 'causalcost[notebooks]'``).
"""

from __future__ import annotations

from typing import Any

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import CausalCostError, ValidationError
from causalcost.explorer.settings import FUSIONER_CHOICES, ExplorerSettings, explorer_settings
from causalcost.explorer.view import explorer_view
from causalcost.network.system import System

__all__ = ["Explorer", "explore"]


def _widgets() -> Any:
    try:
        import ipywidgets
    except ImportError:
        raise ImportError("the explorer needs ipywidgets: pip install 'causalcost[notebooks]' "
                          "(or use causalcost.explorer_view, which needs no widgets)") from None
    return ipywidgets


class Explorer:
    """A live explorer panel (see :func:`explore`).

    Attributes
    ----------
    widget : ipywidgets.VBox
        The panel; Jupyter shows it when the explorer is the cell's value.
    controls : dict of str to ipywidgets.Widget
        Every control by name (``"images sensitivity"``, ``"fn cost"``, ``"candidate tp"``,
        ...), so a notebook or a test can set them.
    view : ExplorerView
        What the panel currently shows.
    settings : ExplorerSettings
    """

    def __init__(self, system: System, settings: ExplorerSettings) -> None:
        w = _widgets()
        self.system, self.settings = system, settings
        self.view = explorer_view(system, settings)
        self.output = w.HTML(self.view._repr_html_())
        self.message = w.HTML("")
        self.controls: dict[str, Any] = {}
        style = {"description_width": "11em"}
        slider = lambda name, value, lo=0.0, hi=1.0, step=0.01: w.FloatSlider(  # noqa: E731
            value=value, min=lo, max=hi, step=step, description=name, style=style,
            continuous_update=True, readout_format=".2f")
        rows = []
        if settings.adjustable:
            self.controls["class prior"] = slider("class prior", settings.class_prior, 0.01, 0.99)
            for m, se, sp in settings.rates:
                self.controls[f"{m} sensitivity"] = slider(f"{m} sensitivity", se)
                self.controls[f"{m} specificity"] = slider(f"{m} specificity", sp)
            if settings.correlation is not None:
                a, b, rho_p, rho_n = settings.correlation
                self.controls["correlation on P"] = slider("correlation on P", rho_p, -1, 1)
                self.controls["correlation on N"] = slider("correlation on N", rho_n, -1, 1)
            self.controls["fusioner"] = w.Dropdown(options=list(FUSIONER_CHOICES),
                                                   value=settings.fusioner,
                                                   description="fusioner", style=style)
        cand = settings.candidate
        top = max(10.0, 2 * max(settings.costs.fn, settings.costs.fp))
        self.controls["fn cost"] = slider("cost of a miss (fn)", settings.costs.fn, 0, top, 0.1)
        self.controls["fp cost"] = slider("cost of a false alarm", settings.costs.fp, 0, top, 0.1)
        self.controls["candidate tp"] = w.IntSlider(
            value=int(cand.tp), min=0, max=int(cand.positives), description="candidate tp",
            style=style)
        self.controls["candidate tn"] = w.IntSlider(
            value=int(cand.tn), min=0, max=int(cand.negatives), description="candidate tn",
            style=style)
        self.controls["intervention"] = w.ToggleButtons(options=["P", "N"],
                                                        value=settings.intervention,
                                                        description="do(slot =", style=style)
        self.controls["high confidence"] = w.Checkbox(
            value=settings.high_confidence,
            description=f"high-confidence worst case ({settings.confidence:.0%})")
        for control in self.controls.values():
            control.observe(self._changed, names="value")
            rows.append(control)
        notes = [] if settings.adjustable else [w.HTML(f"<i>{settings.reason}</i>")]
        self.widget = w.HBox([w.VBox([*notes, *rows, self.message],
                                     layout=w.Layout(min_width="30em")), self.output])

    def _read(self) -> ExplorerSettings:
        c, s = self.controls, self.settings
        cand = s.candidate
        tp, tn = c["candidate tp"].value, c["candidate tn"].value
        changes: dict[str, object] = {
            "costs": CostMatrix(fn=c["fn cost"].value, fp=c["fp cost"].value),
            "candidate": Confusion(tp=tp, fn=cand.positives - tp, fp=cand.negatives - tn, tn=tn),
            "intervention": c["intervention"].value,
            "high_confidence": bool(c["high confidence"].value),
        }
        if s.adjustable:
            changes["class_prior"] = c["class prior"].value
            changes["rates"] = tuple((m, c[f"{m} sensitivity"].value, c[f"{m} specificity"].value)
                                     for m, _, _ in s.rates)
            changes["fusioner"] = c["fusioner"].value
            if s.correlation is not None:
                a, b = s.correlation[:2]
                changes["correlation"] = (a, b, c["correlation on P"].value,
                                          c["correlation on N"].value)
        return s.replace(**changes)

    def _changed(self, _: object = None) -> None:
        try:
            settings = self._read()
            self.view = explorer_view(self.system, settings, previous=self.view)
        except CausalCostError as exc:  # e.g. an unreachable correlation: say so, keep the view
            self.message.value = f"<span style='color:#a40000'>{exc}</span>"
            return
        self.settings = settings
        self.message.value = ""
        self.output.value = self.view._repr_html_()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"Explorer({self.view!r})"


def explore(system: System | str, costs: CostMatrix | None = None,
            candidate: Confusion | None = None, *, confidence: float = 0.95) -> Explorer:
    """Open a live explorer of ``system`` in Jupyter.

    Parameters
    ----------
    system : System or str
        A system, or the name of a shipped network.
    costs : CostMatrix, optional
        The system's costs (default: 1 for each error).
    candidate : Confusion, optional
        The candidate to bound (default: the slot model's own rates on 1,000 instances).
    confidence : float
        Level of the high-confidence worst case.

    Returns
    -------
    Explorer
        Shown as the panel when it is a cell's value; ``controls`` and ``view`` give access.

    Raises
    ------
    ImportError
        Without ipywidgets (the message says what to install).

    Examples
    --------
    >>> import causalcost as cc
    >>> explorer = cc.explore("thesis_and", cc.CostMatrix(fn=5, fp=1))  # doctest: +SKIP
    >>> explorer.controls["fusioner"].value = "or"                     # doctest: +SKIP
    >>> explorer.view.table.error_rates                                # doctest: +SKIP
    ErrorRates(e_P(P)=0, e_P(N)=0.2, e_N(P)=1, e_N(N)=0.2)
    """
    _widgets()
    if isinstance(system, str):
        from causalcost.network.netfile import load_network

        system = load_network(system)
    if not isinstance(system, System):
        raise TypeError(f"system must be a System or a network name, got {type(system).__name__}")
    settings = explorer_settings(system, costs, candidate)
    if not 0 < confidence < 1:
        raise ValidationError(f"confidence must lie in (0, 1), got {confidence}")
    return Explorer(system, settings.replace(confidence=confidence))
