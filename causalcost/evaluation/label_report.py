"""Evaluate and compare candidates against a sheet of K labels: the same report and the same
ranked table as for two labels.

:func:`causalcost.evaluate` and :func:`causalcost.compare` come here for a sheet of K labels
(a :class:`~causalcost.CostSheet` with labels, any K >= 2). The candidate is its K x K confusion
``N[c, j]`` (rows the true class) in any form
:func:`~causalcost.evaluation.label_candidates.label_confusion` reads, or predictions on
``y_true``'s rows. As for two labels:

* **same instances only when declared or proven**: the exact cases (the sheet's kinds, or its
  forced runs in the count form) are used only for a candidate declared counted on the sheet's
  own rows (``same_instances=True``) or proven so by a row fingerprint
  (``row_fingerprint=``, matched against ``provenance["rows_sha256"]``). Equal class sizes
  prove nothing; otherwise the probability form on the candidate's class sizes;
* **the ranked table** has the binary columns: ``eval1``, ``eval2``, ``perfect_slot_cost``,
  ``expected_cost``, ``worst_cost``, ``best_cost``, ``rank``, the candidate's own
  ``accuracy``, ``precision``, ``recall``, ``f1`` (macro averages over the labels), and with
  ``confidence``: ``eval1_ci_low``, ``eval1_ci_high``, ``high_confidence_worst_cost``,
  ``high_confidence_best_cost`` and ``better_than_next``.
"""

from __future__ import annotations

import warnings as _warnings
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causalcost.display import format_number, html_block, html_table
from causalcost.errors import CausalCostWarning, SheetError, ValidationError
from causalcost.evaluation.label_candidates import candidate_matrices
from causalcost.evaluation.label_pricing import (
    eval1_interval,
    high_confidence_cases,
    price_many,
    who,
)
from causalcost.evaluation.ranking import coverage_text, declared_names, ranking_disagreement
from causalcost.sheet.instances import _TEXT  # the reasons, in the words of two labels

__all__ = ["LabelReport", "compare_labels", "evaluate_labels", "is_label_sheet",
           "refuse_labels"]

_COSTS = ("eval1", "eval2", "perfect_slot_cost", "expected_cost", "worst_cost", "best_cost")


def is_label_sheet(sheet: object) -> bool:
    """A sheet of K labels (its module loads only when one is given).

    Examples
    --------
    >>> is_label_sheet(object())
    False
    """
    from causalcost.sheet.costsheet import CostSheet

    return isinstance(sheet, CostSheet) and (not sheet.binary or sheet.labels != ("P", "N"))


def refuse_labels(sheet: object, what: str, instead: str) -> None:
    """Refuse a sheet of K labels in a step that is binary by nature, in one line saying why
    and what to use.

    Examples
    --------
    >>> refuse_labels(object(), "a ROC", "compare")  # a sheet of two labels passes
    """
    if is_label_sheet(sheet):
        labels = ",".join(getattr(sheet, "labels", ()))
        raise ValidationError(f"{what} is for two labels (one score cut by one threshold into "
                              f"positive and negative), and this sheet has K labels ({labels}); "
                              f"{instead}")


def _check_confidence(confidence: Any) -> float | None:
    if confidence is None:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.number)) \
            or not 0 < float(confidence) < 1:
        raise ValidationError(f"confidence must be a number in (0, 1), e.g. 0.95; got "
                              f"{confidence!r}")
    return float(confidence)


def _instances(sheet: Any, names: list[str], same_instances: bool | Collection[str],
               row_fingerprint: str | None) -> tuple[np.ndarray, str]:
    """Per candidate: counted on the sheet's own rows (declared or proven); and how."""
    declared = declared_names(names, same_instances)
    if sheet.forced is None:
        if declared.any() or row_fingerprint is not None:
            what = "same_instances=True (--same-instances)" if declared.any() else \
                "row_fingerprint (--row-fingerprint)"
            raise ValidationError(
                f"{what}: the sheet's rates were not counted on instances of its own (no forced "
                "runs, e.g. a network): there are no rows to be the same as; leave it out")
        return declared, "no-forced-runs"
    how = "declared" if declared.any() else "not-declared"
    if row_fingerprint is None:
        return declared, how
    recorded = (sheet.provenance or {}).get("rows_sha256")
    if not isinstance(recorded, str):
        raise ValidationError(
            "row_fingerprint (--row-fingerprint): the sheet records no row fingerprint "
            "(provenance 'rows_sha256'); declare same_instances=True (--same-instances) if you "
            "know the candidate was counted on the sheet's rows")
    if not isinstance(row_fingerprint, str) or not row_fingerprint.startswith("sha256:"):
        raise ValidationError(f"row_fingerprint (--row-fingerprint) must be a 'sha256:...' "
                              f"string from row_fingerprint(...), got {row_fingerprint!r}")
    if row_fingerprint == recorded:
        return np.ones(len(names), dtype=bool), "fingerprint"
    if declared.any():
        raise ValidationError(
            "same_instances=True (--same-instances) contradicts row_fingerprint "
            "(--row-fingerprint): the fingerprint differs from the sheet's, so the rows are "
            "other rows; drop one of the two")
    return declared, "fingerprint-differs"


def _form_text(sheet: Any, same: bool, how: str) -> str:
    if same:
        word = "exact kinds form" if sheet.kinds is not None else "count form"
        return f"{word}: {_TEXT['declared' if how != 'fingerprint' else 'fingerprint']}"
    return f"probability form: {_TEXT[how if how != 'declared' else 'not-declared']}"


def _metrics(n: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracy and macro precision, recall and F1 of each candidate (NaN where undefined)."""
    nf = n.astype(float)
    diag = np.einsum("mcc->mc", nf)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = diag.sum(axis=1) / nf.sum(axis=(1, 2))
        precision = diag / nf.sum(axis=1)
        recall = diag / nf.sum(axis=2)
        f1 = 2 * precision * recall / (precision + recall)
    return {"accuracy": accuracy, "precision": np.nanmean(np.where(
        np.isfinite(precision), precision, np.nan), axis=1) if n.shape[0] else accuracy,
        "recall": np.nanmean(np.where(np.isfinite(recall), recall, np.nan), axis=1)
        if n.shape[0] else accuracy,
        "f1": np.nanmean(np.where(np.isfinite(f1), f1, np.nan), axis=1)
        if n.shape[0] else accuracy}


# ------------------------------------------------------------------------------ the report
@dataclass(frozen=True)
class LabelReport:
    """One K-label candidate priced against a sheet of K labels (the fields of
    :class:`~causalcost.Report`, with K x K arrays).

    Attributes
    ----------
    slot, system_name : str
    labels : tuple of str
    model : numpy.ndarray
        The candidate's confusion ``N[c, j]`` (rows the true class).
    eval1, eval2, perfect_slot_cost : float
        Cost functions 1 and 2 and the perfect slot's cost.
    expected, worst, best : numpy.ndarray
        System confusions ``[true, system output]``.
    expected_cost, worst_cost, best_cost : float
    assumption, form : str
    instances : str
        The form of the worst and best cases and why (declared, proven, or not).
    costs : numpy.ndarray
    sheet_digest : str
    confidence : float or None
    eval1_ci_low, eval1_ci_high : float or None
        With ``confidence``: an interval on Eval1.
    high_confidence : object or None
        With ``confidence``: the worst case on the candidate's own instances with that
        probability (``worst``, ``worst_cost``).
    high_confidence_best_cost : float or None
        Its mirror, the high-confidence best case.
    warnings : tuple of str

    Examples
    --------
    >>> import causalcost as cc
    >>> from causalcost.sheet.derivation import derive_labelled_sheet
    >>> t = np.zeros((3, 3, 3))
    >>> for j in range(3):
    ...     t[:, j, j] = 1.0      # the system outputs what the slot says
    >>> sheet = derive_labelled_sheet(t, [[0, 1, 1], [1, 0, 1], [5, 5, 0]], slot="m",
    ...                          labels=["a", "b", "c"], created="2026-01-01T00:00:00+00:00")
    >>> r = cc.evaluate(sheet, [[8, 2, 0], [1, 9, 0], [1, 0, 9]])
    >>> r.eval1, r.worst_cost, r.best_cost
    (8.0, 8.0, 8.0)
    """

    slot: str
    labels: tuple[str, ...]
    model: np.ndarray
    eval1: float
    eval2: float
    perfect_slot_cost: float
    expected: np.ndarray
    expected_cost: float
    worst: np.ndarray
    worst_cost: float
    best: np.ndarray
    best_cost: float
    assumption: str
    form: str
    sheet_digest: str
    instances: str = ""
    costs: np.ndarray | None = field(default=None, repr=False)
    system_name: str = "system"
    confidence: float | None = None
    eval1_ci_low: float | None = None
    eval1_ci_high: float | None = None
    high_confidence: Any = field(default=None, repr=False)
    high_confidence_best_cost: float | None = None
    warnings: tuple[str, ...] = ()

    def to_series(self) -> pd.Series:
        """The costs as one series (binary names; the high-confidence ones with a level)."""
        out = {k: getattr(self, k) for k in _COSTS}
        if self.confidence is not None:
            out.update(eval1_ci_low=self.eval1_ci_low, eval1_ci_high=self.eval1_ci_high,
                       high_confidence_worst_cost=self.high_confidence.worst_cost,
                       high_confidence_best_cost=self.high_confidence_best_cost)
        return pd.Series(out, name="cost", dtype=float)

    def _frame(self, matrix: np.ndarray, columns: str = "system output") -> pd.DataFrame:
        frame = pd.DataFrame(np.asarray(matrix, dtype=float), index=list(self.labels),
                             columns=list(self.labels))
        frame.index.name, frame.columns.name = "true class", columns
        return frame

    def to_frame(self) -> pd.DataFrame:
        """The candidate's and the system's K x K tables: rows (table, true class), columns
        the labels."""
        parts = {"candidate": self._frame(self.model, "prediction"),
                 "expected": self._frame(self.expected), "worst": self._frame(self.worst),
                 "best": self._frame(self.best)}
        if self.high_confidence is not None:
            parts["high_confidence_worst"] = self._frame(self.high_confidence.worst)
        return pd.concat(parts, names=["table"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: costs, the K x K tables as nested lists, labels, digest, warnings."""
        def plain(m: np.ndarray) -> list[list[float]]:
            return [[int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)
                     for v in row] for row in np.asarray(m, dtype=float).tolist()]

        out: dict[str, Any] = {
            "slot": self.slot, "system": self.system_name, "labels": list(self.labels),
            **{k: float(v) for k, v in self.to_series().items()},
            "assumption": self.assumption, "form": self.form, "instances": self.instances,
            "model": plain(self.model), "expected": plain(self.expected),
            "worst": plain(self.worst), "best": plain(self.best),
            "sheet_sha256": self.sheet_digest, "warnings": list(self.warnings)}
        if self.high_confidence is not None:
            out["confidence"] = self.confidence
            out["high_confidence_worst"] = {"cost": float(self.high_confidence.worst_cost),
                                            "method": self.high_confidence.method,
                                            "worst": plain(self.high_confidence.worst)}
        return out

    def __str__(self) -> str:
        def line(name: str, value: float) -> str:
            return f"  {name:<26}{format_number(float(value))}"

        lines = [f"Candidate for slot {self.slot!r} of system {self.system_name!r} (labels "
                 f"{list(self.labels)}; assumption {self.assumption}, form {self.form})",
                 line("Eval1 (expected)", self.eval1), line("Eval2", self.eval2),
                 line("perfect-slot cost", self.perfect_slot_cost),
                 line("worst case", self.worst_cost), line("best case", self.best_cost)]
        if self.confidence is not None:
            level = f"{self.confidence:.0%}"
            lines += [f"  Eval1 {level} interval      [{format_number(self.eval1_ci_low)}, "
                      f"{format_number(self.eval1_ci_high)}]",
                      line(f"worst at {level}", self.high_confidence.worst_cost),
                      line(f"best at {level}", self.high_confidence_best_cost)]
        lines.append(f"  Form: {self.instances}")
        lines.append("  candidate (rows: true class, columns: prediction):")
        lines.append(_indent(self._frame(self.model, "prediction").to_string(
            float_format=format_number)))
        lines.append("  worst system confusion (columns: system output):")
        lines.append(_indent(self._frame(self.worst).to_string(float_format=format_number)))
        lines += [f"  warning: {w}" for w in self.warnings]
        lines.append(f"  sheet: {self.sheet_digest}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"LabelReport(slot={self.slot!r}, eval1={format_number(self.eval1)}, "
                f"worst_cost={format_number(self.worst_cost)}, "
                f"best_cost={format_number(self.best_cost)}, form={self.form!r})")

    def _repr_html_(self) -> str:
        return html_block(
            repr(self), html_table(self.to_series().to_frame(), caption="Costs"),
            html_table(self._frame(self.model, "prediction"),
                       caption="Candidate (rows: true class)"),
            html_table(self._frame(self.worst), caption="Worst system confusion"),
            html_table(self._frame(self.best), caption="Best system confusion"),
            notes=[self.instances, *self.warnings])


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _other_warning(sheet: Any, sizes: np.ndarray, how: str, confidence: float | None) -> str:
    own = sheet.class_sizes
    text = ("the candidate is taken as counted on other instances than the sheet's forced runs "
            f"({_TEXT[how]}): the worst and best cases use the probability form (the sheet's "
            "rates on the candidate's class sizes), exact only up to sampling")
    if own is not None and not np.array_equal(np.asarray(own, dtype=float), sizes):
        text += "; its class sizes differ from the sheet's"
    if confidence is None:
        text += "; pass confidence= for cases that hold with a stated probability"
    if own is not None and np.array_equal(np.asarray(own, dtype=float), sizes) and \
            how == "not-declared":
        text += ("; if it was counted on the very rows of the sheet's forced runs, declare it "
                 "(same_instances=True, --same-instances) for the exact cases")
    return text


def evaluate_labels(sheet: Any, candidate: Any, *, confidence: float | None = None,
                    same_instances: bool = False, row_fingerprint: str | None = None,
                    ) -> LabelReport:
    """Price one K-label candidate against a sheet of K labels (see the module).

    Parameters
    ----------
    sheet : CostSheet
    candidate : K x K confusion or predictions
        Any form :func:`~causalcost.evaluation.label_candidates.label_confusion` reads.
    confidence : float, optional
        Add the Eval1 interval and the high-confidence worst and best cases (needs the
        sheet's forced runs).
    same_instances : bool, default False
        Declare that the candidate was counted on the sheet's own rows (exact cases).
    row_fingerprint : str, optional
        Prove it: the fingerprint of the candidate's rows, matched against the sheet's.

    Returns
    -------
    LabelReport

    Raises
    ------
    ValidationError
        ``confidence`` with a sheet without forced runs; a bad ``confidence``.
    SheetError
        Declared the same instances with other class sizes.
    InfeasibleInputError
        A class the candidate has but the sheet never saw.
    OverflowInputError
        Costs or counts whose sums overflow float64.
    """
    if not isinstance(same_instances, (bool, np.bool_)):
        raise ValidationError(f"same_instances must be True or False, got {same_instances!r}")
    from causalcost.evaluation.label_candidates import label_confusion

    if not is_label_sheet(sheet):
        raise TypeError(f"sheet must be a sheet of K labels, got {type(sheet).__name__}")
    matrix = label_confusion(candidate, list(sheet.labels), "the candidate")
    frame = compare_labels(sheet, {"candidate": matrix}, confidence=confidence,
                           same_instances=same_instances, row_fingerprint=row_fingerprint,
                           _single=True)
    return frame  # type: ignore[return-value]


def compare_labels(sheet: Any, candidates: Mapping[Any, Any] | None = None, *,
                   y_true: Any = None, predictions: Mapping[Any, Any] | None = None,
                   confidence: float | None = None,
                   same_instances: bool | Collection[str] = False,
                   row_fingerprint: str | None = None, _single: bool = False) -> Any:
    """Rank K-label candidates by Eval1, ties by the worst case (see the module).

    Returns
    -------
    pandas.DataFrame
        As :func:`causalcost.compare` for two labels: one row per candidate, best first;
        ``attrs`` hold the ``slot``, ``labels``, ``assumption``, ``form``, ``instances``,
        ``sheet_sha256``, ``warnings`` (and ``confidence``, ``coverage``).

    Examples
    --------
    >>> from causalcost.sheet.derivation import derive_labelled_sheet
    >>> t = np.zeros((2, 2, 2))
    >>> t[:, 0, 0] = t[:, 1, 1] = 1.0
    >>> sheet = derive_labelled_sheet(t, [[0, 1], [4, 0]], slot="m", labels=["a", "b"],
    ...                          created="2026-01-01T00:00:00+00:00")
    >>> table = compare_labels(sheet, {"x": [[5, 5], [0, 10]], "y": [[10, 0], [5, 5]]})
    >>> table.index.tolist(), table["eval1"].tolist()
    (['x', 'y'], [5.0, 20.0])
    """
    from causalcost.evaluation.candidate_table import CandidateTable

    level = _check_confidence(confidence)
    labels = list(sheet.labels)
    if candidates is not None and not isinstance(candidates, Mapping):
        raise ValidationError("candidates must be a mapping of name to a K x K confusion "
                              f"(rows the true class), got {type(candidates).__name__}")
    if candidates is not None and not candidates and predictions is None:
        raise ValidationError("no candidates to compare")
    names, n = candidate_matrices(candidates, labels, y_true, predictions)
    if _single:
        names = [""]
    same, how = _instances(sheet, names, same_instances, row_fingerprint)
    if level is not None and sheet.forced is None:
        raise ValidationError("confidence= needs a sheet counted on data (forced runs): this "
                              "sheet holds a table only")
    if same.any() and not (n[same] == np.round(n[same])).all():
        from causalcost.errors import CountError

        raise CountError("a candidate on the sheet's own instances must hold whole counts")
    priced = price_many(sheet, n, names, same)
    sizes = n.astype(float).sum(axis=2)
    warnings: list[str] = []
    other = ~same
    if other.any() and sheet.forced is not None:
        own = np.asarray(sheet.class_sizes, dtype=float)
        equal = (sizes == own[None]).all(axis=1)
        for flag in (True, False):  # one warning for each kind of doubt, not one a candidate
            chosen = other & (equal == flag)
            if chosen.any():
                text = _other_warning(sheet, sizes[int(np.flatnonzero(chosen)[0])], how, level)
                if not _single:
                    listed = [names[i] for i in np.flatnonzero(chosen)[:3]]
                    more = f" and {int(chosen.sum()) - 3} more" if chosen.sum() > 3 else ""
                    text = (f"{int(chosen.sum())} candidate(s) "
                            f"({', '.join(map(repr, listed))}{more}): {text}")
                warnings.append(text)
    frame = pd.DataFrame({k: priced[k] for k in _COSTS}, index=pd.Index(names, name="candidate",
                                                                        dtype=object))
    hc: list[Any] = []
    if level is not None:
        low, high = eval1_interval(sheet, n, level)
        frame["eval1_ci_low"], frame["eval1_ci_high"] = low, high
        hc_worst, hc_best = [], []
        for i, name in enumerate(names):
            if same[i]:  # the exact cases hold with certainty
                hc.append(_Exact(priced["worst"][i], float(priced["worst_cost"][i])))
                hc_worst.append(float(priced["worst_cost"][i]))
                hc_best.append(float(priced["best_cost"][i]))
                continue
            try:
                worst, best = high_confidence_cases(sheet, n[i], level)
            except (ValidationError, SheetError) as exc:
                raise type(exc)(f"{who(name)}: {exc}") from None
            hc.append(worst)
            hc_worst.append(float(worst.worst_cost))
            hc_best.append(best)
        frame["high_confidence_worst_cost"] = hc_worst
        frame["high_confidence_best_cost"] = hc_best
    if _single:
        return _report(sheet, n[0], priced, frame, level, hc, how, bool(same[0]), warnings)
    for key, value in _metrics(n).items():
        frame[key] = value
    order = np.lexsort((frame["worst_cost"].to_numpy(), frame["eval1"].to_numpy()))
    frame = frame.iloc[order]
    keys = list(zip(frame["eval1"], frame["worst_cost"]))
    first = {key: i + 1 for i, key in reversed(list(enumerate(keys)))}
    frame.insert(6, "rank", [first[key] for key in keys])
    attrs: dict[str, Any] = {}
    if level is not None:
        nxt = np.append(frame["eval1_ci_low"].to_numpy()[1:], np.inf)
        better = frame["eval1_ci_high"].to_numpy() < nxt
        better[-1] = False
        frame["better_than_next"] = better
        attrs.update(confidence=level, coverage=coverage_text(level, exact=bool(same.all())))
    texts = []
    if same.any():
        texts.append(f"{_form_text(sheet, True, how)} ({int(same.sum())} candidate(s))")
    if not same.all():
        texts.append(f"{_form_text(sheet, False, how)} ({int((~same).sum())} candidate(s))")
    form = "mixed" if same.any() and not same.all() else (
        ("kinds" if sheet.kinds is not None else "counts") if same.all() else "probability")
    disagreement = ranking_disagreement(frame)
    for text in disagreement:
        _warnings.warn(text, CausalCostWarning, stacklevel=3)
    frame.attrs.update(slot=sheet.slot, labels=labels, assumption=sheet.assumption, form=form,
                       instances="; ".join(texts), sheet_sha256=sheet.digest,
                       warnings=[*warnings, *disagreement], **attrs)
    table = CandidateTable(frame)
    table.attrs.update(frame.attrs)
    return table


@dataclass(frozen=True)
class _Exact:
    """The exact worst case standing for the high-confidence one on the sheet's instances."""

    worst: np.ndarray
    worst_cost: float
    method: str = "exact"


def _report(sheet: Any, n: np.ndarray, priced: dict[str, np.ndarray], frame: pd.DataFrame,
            level: float | None, hc: list[Any], how: str, same: bool,
            warnings: list[str]) -> LabelReport:
    row = frame.iloc[0]
    form = ("kinds" if sheet.kinds is not None else "counts") if same else "probability"
    extra: dict[str, Any] = {}
    if level is not None:
        extra = {"confidence": level, "eval1_ci_low": float(row["eval1_ci_low"]),
                 "eval1_ci_high": float(row["eval1_ci_high"]), "high_confidence": hc[0],
                 "high_confidence_best_cost": float(row["high_confidence_best_cost"])}
    return LabelReport(
        slot=sheet.slot, labels=tuple(sheet.labels), model=n, eval1=float(row["eval1"]),
        eval2=float(row["eval2"]), perfect_slot_cost=float(row["perfect_slot_cost"]),
        expected=priced["expected"][0], expected_cost=float(row["expected_cost"]),
        worst=priced["worst"][0], worst_cost=float(row["worst_cost"]), best=priced["best"][0],
        best_cost=float(row["best_cost"]), assumption=sheet.assumption, form=form,
        sheet_digest=sheet.digest, instances=_form_text(sheet, same, how),
        costs=sheet.costs_array, system_name=sheet.system_name,
        warnings=tuple(warnings), **extra)
