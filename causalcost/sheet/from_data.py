"""A cost sheet from logged predictions: the data route, end to end.

The system owner holds a table: one row per instance, the true class and each model's
prediction. :func:`sheet_from_data` counts the two forced runs on it (the slot forced to P and
to N, with the other models' logged votes) and the instance kinds in one group-by on whatever
engine holds the rows (:func:`causalcost.forced_runs`), and derives the same versioned sheet
as from a network: the rates with their intervals, the class counts (so the prior) of the
data, and as monotonicity evidence the kinds themselves. When no instance fails only because
the slot is right, the monotone assumption holds on these data and is recorded as such;
otherwise the sheet uses the assumption-free bounds (asking for ``"monotone"`` is refused).
A model owner evaluating a candidate on the same rows then gets the exact kinds bound; on
other rows (the common two-split case) the probability form, and with a confidence level the
high-confidence worst case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from causalcost.confusion import CostMatrix
from causalcost.data.forced_runs import forced_runs
from causalcost.data.runs import ForcedRuns
from causalcost.errors import MonotonicityError, ValidationError
from causalcost.inference.table import InterventionalTable
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.derivation import data_evidence, derive_sheet

if TYPE_CHECKING:
    from causalcost.sheet.score_sheet import ScoreSheet

__all__ = ["sheet_from_data"]


def sheet_from_data(
    data: Any,
    costs: CostMatrix,
    *,
    truth: str | None = None,
    slot: str | None = None,
    fusioner: Any = None,
    models: list[str] | None = None,
    positive: Any = None,
    description: str | None = None,
    system_name: str = "system",
    assumption: str | None = None,
    confidence: float = 0.95,
    interval_method: str = "wilson",
    row_ids: Any = None,
    breakpoints: int | None = None,
    **fusioner_options: Any,
) -> CostSheet | ScoreSheet:
    """Derive a slot's cost sheet from a table of logged predictions (or counted runs).

    Parameters
    ----------
    data : data frame, path or ForcedRuns
        Any frame :func:`causalcost.forced_runs` reads (pandas, polars, pyarrow, DuckDB,
        Dask, PySpark, a ``.csv`` / ``.parquet`` path), or runs already counted (any K).
    costs : CostMatrix or (K, K) matrix
        The system's cost matrix (for K labels ``C[c, s]``, rows the true class).
    truth, slot, fusioner, models, positive, **fusioner_options
        As in :func:`causalcost.forced_runs` (not needed with ``ForcedRuns``); with
        ``labels=[...]`` the log has K labels and the sheet holds them, its forced runs and
        kinds (the monotone assumption then depends on the costs: an instance must not cost
        more with the slot forced to its true class than forced to another label).
    description : str, optional
        What the data are (recorded as the provenance, beside the engine, rows and a hash of
        the counts); by default the engine and row count.
    system_name : str
    assumption : {"monotone", "none"}, optional
        Default: ``"monotone"`` when the data show no ``right_only`` instance, else ``"none"``.
    confidence, interval_method
        Of the rates' intervals.
    row_ids : array-like, optional
        One identifier per row of ``data`` (e.g. ``data.index``): the sheet records their
        fingerprint (``provenance["rows_sha256"]``, :func:`~causalcost.row_fingerprint`), so a
        candidate counted on these very rows can prove it (``evaluate(...,
        row_fingerprint=...)``) and get the exact bounds.
    breakpoints : int, optional
        Score runs only: keep at most this many finite critical scores per class, each one
        between two kept values rounded outward so every bound stays valid
        (:class:`~causalcost.ScoreSheet`); all of them by default. A whole number >= 2.

    Returns
    -------
    CostSheet or ScoreSheet
        Binary, or with the K labels of K-label runs (one format for every K); a
        :class:`~causalcost.ScoreSheet` for score runs (a log read with a score fusioner,
        or :func:`~causalcost.ensemble_runs`).

    Raises
    ------
    MonotonicityError
        ``assumption="monotone"`` while some instance fails only because the slot is right
        (for K labels: costs more with the slot right).
    ValidationError
        ``breakpoints`` not a whole number >= 2 (NaN, infinite, fractional, below 2), or
        given for vote runs.
    InputTypeError
        ``breakpoints`` not a number (a string, a boolean).

    Examples
    --------
    >>> import numpy as np, pandas as pd, causalcost as cc
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(3000) < 0.3
    >>> logs = pd.DataFrame({"y": y, **{m: np.where(rng.random(3000) < acc, y, ~y)
    ...                      for m, acc in (("a", 0.8), ("b", 0.7), ("c", 0.75))}})
    >>> sheet = sheet_from_data(logs, cc.CostMatrix(fn=5, fp=1), truth="y",
    ...                         models=["a", "b", "c"], slot="b", fusioner="majority")
    >>> sheet.assumption, sheet.monotonicity["source"], sheet.class_counts == (int(y.sum()),
    ...                                                                       3000 - int(y.sum()))
    ('monotone', 'data', True)

    Three labels (``labels=``), costs ``C[c, s]``:

    >>> labels = ["ok", "flu", "covid"]
    >>> y3 = rng.integers(0, 3, 600)
    >>> logs3 = pd.DataFrame({"y": [labels[i] for i in y3], **{
    ...     m: [labels[i] for i in np.where(rng.random(600) < 0.7, y3, rng.integers(0, 3, 600))]
    ...     for m in ("a", "b", "c")}})
    >>> sheet3 = sheet_from_data(logs3, 1 - np.eye(3), truth="y", models=["a", "b", "c"],
    ...                          slot="b", fusioner="plurality", labels=labels)
    >>> sheet3.label_names, sheet3.form, int(sheet3.class_sizes.sum())
    (('ok', 'flu', 'covid'), 'counts', 600)
    """
    from causalcost.data.score_runs import ScoreRuns
    from causalcost.sheet.critical import breakpoint_count
    from causalcost.sheet.score_sheet import score_sheet_from_runs

    if breakpoints is not None:  # refused before any counting
        breakpoints = breakpoint_count(breakpoints)
    if isinstance(data, (ForcedRuns, ScoreRuns)):
        runs = data
    else:
        if truth is None or slot is None or fusioner is None:
            raise ValidationError("sheet_from_data needs truth=, slot= and fusioner= (and "
                                  "models= for a rule name) to count the forced runs")
        runs = forced_runs(data, truth=truth, slot=slot, fusioner=fusioner, models=models,
                           positive=positive, **fusioner_options)
    if isinstance(runs, ScoreRuns):
        return score_sheet_from_runs(runs, costs, breakpoints=breakpoints,
                                     description=description, system_name=system_name,
                                     row_ids=row_ids)
    if breakpoints is not None:
        raise ValidationError("breakpoints= rounds a score sheet's critical scores; these are "
                              "vote runs (a sheet of votes holds counts, nothing to round)")
    if runs.labels is not None:
        return _labelled_from_data(runs, costs, description=description,
                                   system_name=system_name, assumption=assumption,
                                   row_ids=row_ids)
    evidence = data_evidence(runs.kinds)
    if assumption is None:
        assumption = "monotone" if runs.monotone_on_data else "none"
    elif assumption == "monotone" and not runs.monotone_on_data:
        raise MonotonicityError(
            f"the data hold {evidence['right_only']} instance(s) on which the system fails only "
            "because the slot is right: the system is not monotone in the slot on these data; "
            "use assumption='none' (the default here)")
    table = InterventionalTable.from_forced(runs.slot, runs.forced_p, runs.forced_n,
                                            confidence=confidence,
                                            interval_method=interval_method)
    provenance = _data_provenance(runs, description)
    _fingerprint(provenance, row_ids, runs.n)
    return derive_sheet(table, costs, system_name=system_name, forced_p=runs.forced_p,
                        forced_n=runs.forced_n, assumption=assumption,
                        monotonicity=evidence, provenance=provenance)


def _data_provenance(runs: ForcedRuns, description: str | None) -> dict[str, Any]:
    """The runs' provenance (plain values) with ``source`` data and a description."""
    provenance = {key: value for key, value in runs.provenance.items()
                  if isinstance(value, (str, int, float, bool)) or value is None}
    rows = provenance.get("rows", runs.n)
    provenance.update(source="data", description=description or
                      f"{rows} logged instances ({provenance.get('engine', 'data frame')})")
    return provenance


def _fingerprint(provenance: dict[str, Any], row_ids: Any, rows: int) -> None:
    """Record the rows' fingerprint (``row_ids``: one identifier per row counted)."""
    if row_ids is None:
        return
    from causalcost.sheet.instances import FINGERPRINT_KEY, row_fingerprint

    if len(row_ids) != rows:
        raise ValidationError(f"row_ids has {len(row_ids)} identifiers but the forced runs "
                              f"were counted on {rows} rows: give one per row of data")
    provenance[FINGERPRINT_KEY] = row_fingerprint(row_ids)


def _labelled_from_data(runs: ForcedRuns, costs: Any, *, description: str | None,
                        system_name: str, assumption: str | None, row_ids: Any) -> CostSheet:
    """:func:`sheet_from_data` for K-label runs: the sheet holds the runs and their kinds."""
    from causalcost.data.runs import cost_array
    from causalcost.sheet.derivation import derive_labelled_sheet

    matrix = cost_array(costs, runs.label_names)
    monotone = runs.monotone_for(matrix)
    if assumption is None:
        assumption = "monotone" if monotone else "none"
    elif assumption == "monotone" and not monotone:
        raise MonotonicityError(
            "the data hold instances that cost more with the slot forced to their true class "
            "than forced to another label: the system is not monotone in the slot for these "
            "costs on these data; use assumption='none' (the default here)")
    provenance = _data_provenance(runs, description)
    _fingerprint(provenance, row_ids, runs.n)
    return derive_labelled_sheet(runs, matrix, assumption=assumption, system_name=system_name,
                                 provenance=provenance)
