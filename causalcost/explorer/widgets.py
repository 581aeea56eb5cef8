"""The live explorer: ipywidgets controls around :func:`~causalcost.explorer_view`.

Sliders set each model's sensitivity and specificity, the latent's correlations, the class
prior, the fusioner, the two error costs and the candidate's confusion; toggles pick the
intervention shown and add the high-confidence worst case.

For a system declared by its K labels the controls are: one slider per label for the class
prior (weights, divided by their sum); per model and label, its accuracy on that class (moving
it spreads the model's errors on that class evenly over the other labels; an untouched row
keeps its declared rates); the fusion rule (the declared one or plurality); one slider per
mistake's cost (true -> predicted; right answers keep their cost); per label, how many of
the candidate's instances of that class it gets right (its errors spread evenly, the class
size kept); and the label the slot is forced to in the picture. Every change calls
:func:`~causalcost.explorer_view` and replaces one HTML output, so what the panel shows is
exactly what the headless function returns. ipywidgets is optional
(``pip install 'causalcost[notebooks]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import CausalCostError, ValidationError
from causalcost.explorer.reading import explorer_settings
from causalcost.explorer.settings import FUSIONER_CHOICES, ExplorerSettings
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
        ...; for K labels ``"prior flu"``, ``"images accuracy on flu"``,
        ``"cost covid -> ok"``, ``"candidate right on flu"``, ``"fusioner"``,
        ``"intervention"``), so a notebook or a test can set them.
    view : ExplorerView
        What the panel currently shows.
    settings : ExplorerSettings
    """

    def __init__(self, system: System, settings: ExplorerSettings) -> None:
        w = _widgets()
        self.system, self.settings = system, settings
        # the declared rule keeps its options when the dropdown comes back to it
        self._rule = getattr(settings, "fusioner", "")
        self._options = getattr(settings, "fusioner_options", ())
        self.view = explorer_view(system, settings)
        self.output = w.HTML(self.view._repr_html_())
        self.message = w.HTML("")
        self.controls: dict[str, Any] = {}
        style = {"description_width": "11em"}
        slider = lambda name, value, lo=0.0, hi=1.0, step=0.01: w.FloatSlider(  # noqa: E731
            value=value, min=lo, max=hi, step=step, description=name, style=style,
            continuous_update=True, readout_format=".2f")
        rows = []
        if settings.by_labels:
            self._label_controls(w, settings, slider, style)
        else:
            self._binary_controls(w, settings, slider, style)
        for control in self.controls.values():
            control.observe(self._changed, names="value")
            rows.append(control)
        notes = [] if settings.adjustable else [w.HTML(f"<i>{settings.reason}</i>")]
        self.widget = w.HBox([w.VBox([*notes, *rows, self.message],
                                     layout=w.Layout(min_width="30em")), self.output])

    def _label_controls(self, w: Any, settings: ExplorerSettings, slider: Any,
                        style: dict[str, str]) -> None:
        labels = settings.labels
        if settings.adjustable:
            for label, p in zip(labels, settings.class_prior):
                self.controls[f"prior {label}"] = slider(f"prior {label}", p)
            for m, rates in settings.confusions:
                if m in settings.fixed:
                    continue
                for c, label in enumerate(labels):
                    self.controls[f"{m} accuracy on {label}"] = slider(
                        f"{m} accuracy on {label}", rates[c][c])
            choices = list(dict.fromkeys([settings.fusioner, "as declared", "plurality"]))
            self.controls["fusioner"] = w.Dropdown(options=choices, value=settings.fusioner,
                                                   description="fusioner", style=style)
        costs = np.asarray(settings.costs.to_numpy(), dtype=float)
        top = max(10.0, 2 * float(costs.max()))
        for c, true in enumerate(labels):
            for j, pred in enumerate(labels):
                if c != j:
                    self.controls[f"cost {true} -> {pred}"] = slider(
                        f"cost {true} -> {pred}", costs[c, j], 0, top, 0.1)
        cand = np.asarray(settings.candidate.to_numpy(), dtype=float)
        for c, label in enumerate(labels):
            self.controls[f"candidate right on {label}"] = w.IntSlider(
                value=int(cand[c, c]), min=0, max=int(cand[c].sum()),
                description=f"candidate right on {label}", style=style)
        self.controls["intervention"] = w.ToggleButtons(options=list(labels),
                                                        value=settings.intervention,
                                                        description="do(slot =", style=style)

    def _binary_controls(self, w: Any, settings: ExplorerSettings, slider: Any,
                         style: dict[str, str]) -> None:
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

    def _read_labels(self, s: ExplorerSettings) -> ExplorerSettings:
        c, labels, k = self.controls, s.labels, s.k
        costs = np.asarray(s.costs.to_numpy(), dtype=float).copy()
        for i, true in enumerate(labels):
            for j, pred in enumerate(labels):
                if i != j:
                    costs[i, j] = c[f"cost {true} -> {pred}"].value
        cand = np.asarray(s.candidate.to_numpy(), dtype=float).copy()
        for i, label in enumerate(labels):
            right = int(c[f"candidate right on {label}"].value)
            if right != cand[i, i]:
                size = int(round(cand[i].sum()))
                wrong = size - right
                spread = np.full(k, wrong // (k - 1), dtype=float)
                others = [j for j in range(k) if j != i]
                spread[others[:wrong % (k - 1)]] += 1
                spread[i] = right
                cand[i] = spread
        changes: dict[str, object] = {
            "costs": CostMatrix(costs, labels=list(labels)),
            "candidate": Confusion(cand, labels=list(labels)),
            "intervention": c["intervention"].value,
        }
        if s.adjustable:
            weights = np.array([c[f"prior {label}"].value for label in labels], dtype=float)
            if weights.sum() <= 0:
                raise ValidationError("the class prior's sliders are all 0: set one above 0")
            changes["class_prior"] = tuple(float(v) for v in weights / weights.sum())
            new = s
            for m, rates in s.confusions:
                if m in s.fixed:
                    continue
                for i, label in enumerate(labels):
                    value = c[f"{m} accuracy on {label}"].value
                    if abs(value - rates[i][i]) > 1e-12:
                        new = new.with_accuracy(m, label, value)
            changes["confusions"] = new.confusions
            rule = c["fusioner"].value
            changes["fusioner"] = rule
            changes["fusioner_options"] = (self._options if rule == self._rule else ())
        return s.replace(**changes)

    def _read(self) -> ExplorerSettings:
        c, s = self.controls, self.settings
        if s.by_labels:
            return self._read_labels(s)
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
        A system declared by its labels (``SystemBuilder(prior, labels=[...])``, any K) gets
        the K-label controls (see the module notes).
    costs : CostMatrix, optional
        The system's costs (default: 1 for each error); K x K for K labels.
    candidate : Confusion, optional
        The candidate to bound (default: the slot model's own rates on 1,000 instances);
        K x K for K labels.
    confidence : float
        Level of the high-confidence worst case (binary systems).

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
    if settings.by_labels:
        return Explorer(system, settings)
    return Explorer(system, settings.replace(confidence=confidence))
