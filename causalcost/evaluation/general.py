"""The general route of ``evaluate`` and ``compare``, for any number of labels K.

:func:`causalcost.evaluate` and :func:`causalcost.compare` take it for every sheet of more
than two labels, and tests take it for two labels too (where the binary closed forms are the
fast path), checking both routes agree. The candidate is its K x K confusion ``N[c, j]``
(rows the true class) in any form
:func:`~causalcost.evaluation.candidate_reading.label_confusion` reads, or predictions on
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
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import Confusion, CostMatrix
from causalcost.errors import CausalCostWarning, SheetError, ValidationError
from causalcost.evaluation.candidate_reading import candidate_matrices, label_confusion
from causalcost.evaluation.pricing_many import (
    eval1_interval,
    high_confidence_cases,
    price_many,
    who,
)
from causalcost.evaluation.ranking import coverage_text, declared_names, ranking_disagreement
from causalcost.evaluation.report_value import Report
from causalcost.sheet.instances import _TEXT  # the reasons, in the words of two labels

__all__ = ["compare_general", "evaluate_general", "is_label_sheet", "refuse_labels"]

_COSTS = ("eval1", "eval2", "perfect_slot_cost", "expected_cost", "worst_cost", "best_cost")


def is_label_sheet(sheet: object) -> bool:
    """Whether a sheet takes the general route: K > 2 labels, or two labels named otherwise
    than P, N (whose candidates are read by those names). A sheet of the labels P, N takes the
    binary closed forms, a fast path of the same numbers.

    Examples
    --------
    >>> is_label_sheet(object())
    False
    """
    from causalcost.sheet.costsheet import CostSheet

    return isinstance(sheet, CostSheet) and tuple(sheet.label_names) != ("P", "N")


def refuse_labels(sheet: object, what: str, instead: str) -> None:
    """Refuse a sheet of K labels in a step that is binary by nature, in one line saying why
    and what to use.

    Examples
    --------
    >>> refuse_labels(object(), "a ROC", "compare")  # a sheet of two labels passes
    """
    if getattr(sheet, "k", 2) > 2:
        labels = ",".join(sheet.label_names)  # type: ignore[attr-defined]
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
    from causalcost.sheet.instances import instances_how

    declared = declared_names(names, same_instances)
    how = instances_how(sheet, bool(declared.any()), row_fingerprint)
    if how == "fingerprint":
        return np.ones(len(names), dtype=bool), how
    return declared, how


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


def evaluate_general(sheet: Any, candidate: Any, *, confidence: float | None = None,
                     same_instances: bool = False, row_fingerprint: str | None = None,
                     ) -> Report:
    """Price one candidate against a sheet of any K by the general route (see the module and
    :func:`causalcost.evaluate` for the parameters).

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
    from causalcost.sheet.costsheet import CostSheet

    if not isinstance(sheet, CostSheet):
        raise TypeError(f"sheet must be a CostSheet, got {type(sheet).__name__}")
    matrix = label_confusion(candidate, list(sheet.label_names), "the candidate")
    return _priced(sheet, {"candidate": matrix}, None, None, confidence, same_instances,
                   row_fingerprint, single=True)


def compare_general(sheet: Any, candidates: Mapping[Any, Any] | pd.DataFrame | None = None, *,
                    y_true: Any = None, predictions: Mapping[Any, Any] | None = None,
                    confidence: float | None = None,
                    same_instances: bool | Collection[str] = False,
                    row_fingerprint: str | None = None) -> Any:
    """Rank candidates by Eval1, ties by the worst case, by the general route (any K).

    Returns
    -------
    pandas.DataFrame
        As :func:`causalcost.compare`: one row per candidate, best first; ``attrs`` hold the
        ``slot``, ``labels``, ``assumption``, ``form``, ``instances``, ``sheet_sha256``,
        ``warnings`` (and ``confidence``, ``coverage``).

    Examples
    --------
    >>> from causalcost.sheet.derivation import derive_labelled_sheet
    >>> t = np.zeros((2, 2, 2))
    >>> t[:, 0, 0] = t[:, 1, 1] = 1.0
    >>> sheet = derive_labelled_sheet(t, [[0, 1], [4, 0]], slot="m", labels=["a", "b"],
    ...                          created="2026-01-01T00:00:00+00:00")
    >>> table = compare_general(sheet, {"x": [[5, 5], [0, 10]], "y": [[10, 0], [5, 5]]})
    >>> table.index.tolist(), table["eval1"].tolist()
    (['x', 'y'], [5.0, 20.0])
    """
    return _priced(sheet, candidates, y_true, predictions, confidence, same_instances,
                   row_fingerprint, single=False)


def _priced(sheet: Any, candidates: Any, y_true: Any, predictions: Any, confidence: Any,
            same_instances: Any, row_fingerprint: str | None, *, single: bool) -> Any:
    from causalcost.evaluation.candidate_table import CandidateTable

    level = _check_confidence(confidence)
    labels = list(sheet.label_names)
    if candidates is not None and not isinstance(candidates, (Mapping, pd.DataFrame)):
        raise ValidationError("candidates must be a mapping of name to a K x K confusion "
                              f"(rows the true class), got {type(candidates).__name__}")
    if candidates is not None and not len(candidates) and predictions is None:
        raise ValidationError("no candidates to compare")
    names, n = candidate_matrices(candidates, labels, y_true, predictions)
    if single:
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
                if not single:
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
                hc.append(Case(priced["worst"][i], float(priced["worst_cost"][i]),
                               confidence=level))
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
    if single:
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
        _warnings.warn(text, CausalCostWarning, stacklevel=4)  # the caller of compare
    frame.attrs.update(slot=sheet.slot, labels=labels, assumption=sheet.assumption, form=form,
                       instances="; ".join(texts), sheet_sha256=sheet.digest,
                       warnings=[*warnings, *disagreement], **attrs)
    table = CandidateTable(frame)
    table.attrs.update(frame.attrs)
    return table


@dataclass(frozen=True)
class Case:
    """A high-confidence case of the general route: the worst (``worst``, ``worst_cost``) or
    the best (``best_cost``) on the candidate's own instances, with its level and method
    (``"exact"`` on the sheet's own instances, where it holds with certainty)."""

    worst: Any = None
    worst_cost: float = float("nan")
    best_cost: float = float("nan")
    confidence: float | None = None
    method: str = "exact"
    form: str = "exact"


def _report(sheet: Any, n: np.ndarray, priced: dict[str, np.ndarray], frame: pd.DataFrame,
            level: float | None, hc: list[Any], how: str, same: bool,
            warnings: list[str]) -> Report:
    row = frame.iloc[0]
    form = ("kinds" if sheet.kinds is not None else "counts") if same else "probability"
    labels = tuple(sheet.label_names)
    extra: dict[str, Any] = {}
    if level is not None:
        worst = hc[0]
        best = Case(best_cost=float(row["high_confidence_best_cost"]), confidence=level,
                    method=worst.method, form=getattr(worst, "form", "exact"))
        extra = {"confidence": level, "eval1_ci_low": float(row["eval1_ci_low"]),
                 "eval1_ci_high": float(row["eval1_ci_high"]), "high_confidence": worst,
                 "high_confidence_best": best}

    def value(m: np.ndarray) -> Any:  # K = 2: the binary views, as on the fast path
        return Confusion.from_matrix(m, labels=labels) if len(labels) == 2 else m

    costs = sheet.costs_array
    return Report(
        labels=labels, model=value(n), eval1=float(row["eval1"]),
        eval2=float(row["eval2"]), perfect_slot_cost=float(row["perfect_slot_cost"]),
        expected=value(priced["expected"][0]), expected_cost=float(row["expected_cost"]),
        worst=value(priced["worst"][0]), worst_cost=float(row["worst_cost"]),
        best=value(priced["best"][0]), best_cost=float(row["best_cost"]),
        assumption=sheet.assumption, form=form, slot=sheet.slot,
        sheet_digest=sheet.digest, instances=_form_text(sheet, same, how),
        costs=CostMatrix(costs, labels=list(labels)) if len(labels) == 2 else costs,
        system_name=sheet.system_name, warnings=tuple(warnings), **extra)
