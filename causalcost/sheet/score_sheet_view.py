"""How a score sheet shows itself: its table, its quantiles, its text, its HTML and its repr.

Two labels: per class the critical scores (:class:`~causalcost.sheet.critical.CriticalScores`),
shown as breakpoints with counts and as quantiles. K labels: per class its instances' offset
vectors (:class:`~causalcost.sheet.offset_cells.OffsetCells`), shown as rows (or cells) and as the
quantiles of each **lead** ``r_c - r_k``: by how much the other members favour the true class
``c`` over label ``k`` (negative: they lean to ``k``, and the slot has to make up for it).
:class:`~causalcost.sheet.score_sheet.ScoreSheet`'s display methods call in here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import format_cells, format_number, html_block, html_table
from causalcost.errors import ValidationError
from causalcost.sheet.score_format import SCORE_SHEET_FORMAT, SCORE_SHEET_VERSION

__all__ = ["QUANTILES", "sheet_frame", "sheet_html", "sheet_quantiles", "sheet_repr",
           "sheet_text"]

#: The quantile levels a sheet shows.
QUANTILES = (0.0, 0.1, 0.5, 0.9, 1.0)


def sheet_frame(sheet: Any) -> pd.DataFrame:
    """:meth:`ScoreSheet.to_frame <causalcost.sheet.score_sheet.ScoreSheet.to_frame>`."""
    if sheet.offsets is not None:
        return _offsets_frame(sheet)
    assert sheet.critical is not None
    rows = []
    for label, c in zip(sheet.labels, sheet.critical):
        n = max(c.size, 1)
        below_at = c.always + np.cumsum(c.at) + np.concatenate(
            [[0], np.cumsum(c.between)])[: c.at.size]
        gap = np.concatenate([c.between, [0]])
        for k, b in enumerate(c.breakpoints):
            rows.append({"class": label, "score": float(b), "at": int(c.at[k]),
                         "between_next": int(gap[k]),
                         "forced_p_low": float(below_at[k]) / n,
                         "forced_p_high": float(below_at[k] + gap[k]) / n})
    frame = pd.DataFrame(rows, columns=["class", "score", "at", "between_next",
                                        "forced_p_low", "forced_p_high"])
    return frame.set_index(["class", "score"])


def _offsets_frame(sheet: Any) -> pd.DataFrame:
    """K labels: one row per (class, row of its offsets): ``count`` and ``offset[label]``
    per label (exact), or ``lower[label]`` and ``upper[label]`` (cells)."""
    assert sheet.offsets is not None
    exact = sheet.exact
    frames = []
    for label, cells in zip(sheet.labels, sheet.offsets):
        counts = np.ones(cells.cells, dtype=np.int64) if cells.counts is None else cells.counts
        part: dict[str, object] = {"class": label, "row": np.arange(cells.cells),
                                   "count": counts}
        high = cells.lower if cells.upper is None else cells.upper
        for j, name in enumerate(sheet.labels):
            if exact:
                part[f"offset[{name}]"] = cells.lower[:, j]
            else:
                part[f"lower[{name}]"] = cells.lower[:, j]
                part[f"upper[{name}]"] = high[:, j]
        frames.append(pd.DataFrame(part))
    return pd.concat(frames, ignore_index=True).set_index(["class", "row"])


def sheet_quantiles(sheet: Any, levels: Sequence[float] = QUANTILES) -> pd.DataFrame:
    """:meth:`ScoreSheet.critical_quantiles
    <causalcost.sheet.score_sheet.ScoreSheet.critical_quantiles>`."""
    levels = [float(q) for q in levels]
    if not levels or any(not 0 <= q <= 1 for q in levels):
        raise ValidationError(f"levels: quantile levels in [0, 1], got {levels!r}")
    names = [{0.0: "min", 1.0: "max"}.get(q, f"{100 * q:g}%") for q in levels]
    roundings = ("exact",) if sheet.exact else ("down", "up")

    def quantiles(t: np.ndarray) -> list[float]:
        return (np.quantile(t, levels, method="inverted_cdf") if t.size
                else np.full(len(levels), np.nan)).tolist()

    rows = []
    if sheet.offsets is not None:
        for c, (label, cells) in enumerate(zip(sheet.labels, sheet.offsets)):
            others = [v for j, v in enumerate(sheet.labels) if j != c]
            leads = {r: cells.leads(c, "down" if r == "exact" else r) for r in roundings}
            for j, versus in enumerate(others):
                for r in roundings:
                    rows.append({"class": label, "versus": versus, "rounded": r,
                                 "n": cells.size,
                                 **dict(zip(names, quantiles(leads[r][:, j])))})
        return pd.DataFrame(rows).set_index(["class", "versus", "rounded"])
    assert sheet.critical is not None
    for label, cc in zip(sheet.labels, sheet.critical):
        for r in roundings:
            t = cc.values("up" if r == "exact" else r)
            rows.append({"class": label, "rounded": r, "n": cc.size, "always": cc.always,
                         "never": cc.never, **dict(zip(names, quantiles(t)))})
    return pd.DataFrame(rows).set_index(["class", "rounded"])


def _form_text(sheet: Any) -> str:
    if sheet.offsets is not None:
        if sheet.exact:
            return "exact (every instance's offset vector kept)"
        kept = max(c.cells for c in sheet.offsets)
        return (f"in {kept} cells per class at most, each priced at the corner that keeps a "
                "bound valid (worst and expected costs may be overstated, best costs "
                "understated)")
    assert sheet.critical is not None
    if sheet.exact:
        return "exact (every critical score kept)"
    kept = max(c.breakpoints.size for c in sheet.critical)
    return (f"on {kept} breakpoints per class at most, the scores between two rounded "
            "outward (worst and expected costs may be overstated, best costs understated)")


def _sizes_text(sheet: Any) -> str:
    if sheet.k == 2:
        p, n = sheet.class_sizes
        return f"{p} positives and {n} negatives"
    return ", ".join(f"{n} of {label!r}" for label, n in zip(sheet.labels, sheet.class_sizes))


def _decision(fusion: str) -> str:
    return {"linear": "argmax_k (A p + r)_k", "max": "argmax_k max(p_k, r_k)",
            "min": "argmax_k min(p_k, r_k)"}.get(fusion, fusion)


def sheet_text(sheet: Any) -> str:
    """``str(sheet)``: the fields, the costs, the quantiles and the digest."""
    frame = sheet.critical_quantiles()
    if sheet.exact:
        frame = frame.droplevel("rounded")
    source = ", ".join(f"{k}={v}" for k, v in sheet.provenance.items())
    lines = [
        f"Score sheet for slot {sheet.slot!r} of system {sheet.system_name!r} "
        f"(format {SCORE_SHEET_FORMAT} v{SCORE_SHEET_VERSION}, created {sheet.created})",
        f"rule: {sheet.rule}; models {', '.join(sheet.models) or 'not recorded'}",
        f"provenance: {source}",
        f"classes: {_sizes_text(sheet)} (candidates on the same instances must match)"]
    if sheet.offsets is not None:
        assert sheet.matrix is not None
        lines += [
            f"labels: {', '.join(sheet.labels)}; the system says {_decision(sheet.fusion)}, p "
            "the slot's probability vector, r the instance's offset vector",
            *(["slot's coefficients A: " + "; ".join(
                " ".join(format_number(v) for v in row) for row in sheet.matrix.tolist())]
              if sheet.fusion == "linear" else []),
            f"offset vectors: {_form_text(sheet)}",
            f"system costs: {format_cells(sheet.costs)}",
            "leads r_class - r_versus per class (the other members' margin for the true "
            "class):"]
    else:
        lines += [f"critical scores: {_form_text(sheet)}",
                  f"system costs: {format_cells(sheet.costs)}",
                  "critical scores per class (P iff the slot's score >= t):"]
    lines += [frame.to_string(float_format=lambda v: f"{v:.6g}"),
              f"digest: {sheet.digest}"
              + (f"; signed by {sheet.signed_by}" if sheet.signature is not None else "")]
    return "\n".join(lines)


def sheet_html(sheet: Any) -> str:
    """The notebook view."""
    vectors = sheet.offsets is not None
    head = [f"slot {sheet.slot!r} of system {sheet.system_name!r}; rule: {sheet.rule}",
            f"classes: {_sizes_text(sheet)}; system costs {format_cells(sheet.costs)}",
            f"{'offset vectors' if vectors else 'critical scores'}: {_form_text(sheet)}",
            f"content digest: {sheet.digest}"]
    caption = "Leads of the true class per class" if vectors else "Critical scores per class"
    return html_block("Score sheet", head, html_table(sheet.critical_quantiles(),
                                                      caption=caption))


def sheet_repr(sheet: Any) -> str:
    """``repr(sheet)``: one line."""
    n = dict(zip(sheet.labels, sheet.class_sizes))
    if sheet.offsets is not None:
        form = "exact" if sheet.exact else \
            f"in {max(c.cells for c in sheet.offsets)} cells"
        return (f"ScoreSheet(slot={sheet.slot!r}, rule={sheet.rule!r}, n={n}, {form}, "
                f"costs=[{format_cells(sheet.costs)}], digest={sheet.digest[:19]}...)")
    assert sheet.critical is not None
    form = "exact" if sheet.exact else \
        f"on {max(c.breakpoints.size for c in sheet.critical)} breakpoints"
    return (f"ScoreSheet(slot={sheet.slot!r}, rule={sheet.rule!r}, n={n}, {form}, "
            f"costs=[fn={format_number(sheet.costs.fn)}, fp={format_number(sheet.costs.fp)}]"
            f", digest={sheet.digest[:19]}...)")
