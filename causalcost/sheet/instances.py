"""Was the candidate counted on the sheet's own instances? Declared or proven, never guessed.

The exact, count-form worst and best cases (:func:`~causalcost.bound`) hold only when the
candidate's confusion was counted on the very instances the sheet's forced runs were counted
on. Equal class sizes do not show it: two stratified splits of one data set have equal class
sizes and different instances, and on them the count form can sit *below* the real cost. So a
candidate is taken as counted on **other instances** (the probability form, with the
high-confidence bounds offered) unless

* the user declares it (``same_instances=True`` in Python, ``--same-instances`` in the CLI), or
* it is proven: the sheet records a **row fingerprint** of the rows its forced runs were
  counted on (``provenance["rows_sha256"]``, written by
  :func:`~causalcost.sheet_from_data` with ``row_ids=``), and the user gives the fingerprint
  of the rows the candidate was counted on (:func:`row_fingerprint` of the same row ids); equal
  fingerprints prove the same rows, different ones prove other rows.

A sheet without counted forced runs (rates from a network) has no instances of its own: every
candidate gets the probability form. :func:`decide_instances` makes the decision and says why,
in words every report prints.

Examples
--------
>>> row_fingerprint(["r3", "r1", "r2"]) == row_fingerprint(["r1", "r2", "r3"])  # a set of rows
True
>>> row_fingerprint([1, 2, 3]) == row_fingerprint(["1", "2", "3"]), row_fingerprint([1, 2])[:7]
(True, 'sha256:')
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from causalcost.confusion import format_number as _fmt
from causalcost.errors import SheetError, ValidationError

#: Any sheet the decision applies to: a cost sheet (any K) or a score sheet (which says what
#: it counted on instances of its own in ``instances_counted``; not imported here, since the
#: score sheet records its rows' fingerprint with :func:`row_fingerprint`).
AnySheet = Any

__all__ = ["Instances", "decide_instances", "instances_how", "other_instances_advice",
           "row_fingerprint", "score_sheet_instances", "sheet_row_fingerprint",
           "FINGERPRINT_KEY"]

#: The provenance key under which a sheet from data records its rows' fingerprint.
FINGERPRINT_KEY = "rows_sha256"


def row_fingerprint(row_ids: Any) -> str:
    """A digest of a set of rows, to prove a candidate was counted on a sheet's own rows.

    Parameters
    ----------
    row_ids : array-like
        One identifier per row (an id column, or the data frame's index): unique, not missing.
        The order does not matter (a fingerprint names a set of rows); the identifiers are
        compared as text (``1`` and ``"1"`` are the same row).

    Returns
    -------
    str
        ``"sha256:<hex>"`` of the sorted identifiers as compact JSON text.

    Raises
    ------
    ValidationError
        If ``row_ids`` is empty, not one-dimensional, holds a missing value or a repeated id.

    Examples
    --------
    >>> import pandas as pd
    >>> test = pd.DataFrame({"y": [1, 0, 1]}, index=[10, 11, 12])
    >>> row_fingerprint(test.index) == row_fingerprint([12, 10, 11])
    True
    >>> row_fingerprint([1, 1])
    Traceback (most recent call last):
    causalcost.errors.ValidationError: row_ids holds the id '1' twice: a fingerprint names each row once
    """  # noqa: E501
    array = np.asarray(row_ids, dtype=object)
    if array.ndim != 1 or array.size == 0:
        raise ValidationError(f"row_ids must be a non-empty one-dimensional list of row "
                              f"identifiers, got shape {array.shape}")
    texts = []
    for value in array.tolist():
        if value is None or (isinstance(value, float) and value != value):
            raise ValidationError("row_ids holds a missing value: every row needs an identifier")
        texts.append(str(value))
    texts.sort()
    for a, b in zip(texts, texts[1:]):
        if a == b:
            raise ValidationError(f"row_ids holds the id {a!r} twice: a fingerprint names each "
                                  "row once")
    digest = hashlib.sha256(json.dumps(texts, separators=(",", ":")).encode()).hexdigest()
    return f"sha256:{digest}"


def sheet_row_fingerprint(sheet: AnySheet) -> str | None:
    """The row fingerprint a sheet records (``provenance["rows_sha256"]``), or None."""
    value = sheet.provenance.get(FINGERPRINT_KEY) if sheet.provenance else None
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Instances:
    """Which instances a candidate was counted on, and why that is known.

    Attributes
    ----------
    same : bool
        Counted on the sheet's own rows: the count form (or the kinds bound) applies.
    how : str
        ``"declared"``, ``"fingerprint"`` (proven equal), ``"fingerprint-differs"`` (proven
        other), ``"not-declared"`` (the default) or ``"no-forced-runs"`` (a sheet with rates
        only).
    reason : str
        Why, in words (see :meth:`text`).
    """

    same: bool
    how: str
    reason: str

    def text(self, form: str | None = None) -> str:
        """The form and the reason, as every report prints them: ``"probability form:
        instances not declared the same"``; ``form`` names the exact form used on the same
        instances (``"counts"`` or ``"kinds"``)."""
        word = {"kinds": "exact kinds form", "counts": "count form"}.get(
            form or "counts") if self.same else "probability form"
        return f"{word}: {self.reason}"


def other_instances_advice(confidence: float | None, what: str = "evaluate") -> str:
    """What to do about candidates on other instances; never asks for a level already given.

    Examples
    --------
    >>> other_instances_advice(None)[:46]
    'evaluate with a confidence level (confidence=0'
    >>> print(other_instances_advice(0.95))
    the high-confidence worst and best cases at 95 % hold on each candidate's own instances with that probability each
    """  # noqa: E501
    if confidence is None:
        return (f"{what} with a confidence level (confidence=0.95, --confidence 0.95) for worst "
                "and best cases that hold with a stated probability")
    return (f"the high-confidence worst and best cases at {confidence:.0%} hold on each "
            "candidate's own instances with that probability each").replace("%", " %")


_TEXT = {
    "declared": "the same instances as the sheet's forced runs, declared (same_instances=True, "
                "--same-instances)",
    "fingerprint": "the same instances as the sheet's forced runs, proven by the row "
                   "fingerprint",
    "fingerprint-differs": "the row fingerprint differs from the sheet's (other instances)",
    "not-declared": "instances not declared the same",
    "no-forced-runs": "the sheet's rates were not counted on instances of its own (no forced "
                      "runs)",
}


def _counted(sheet: AnySheet) -> str | None:
    """What the sheet counted on instances of its own, in words (``"forced runs"``, a score
    sheet's ``"critical scores"``), or None for a sheet of rates only (a network)."""
    counted = getattr(sheet, "instances_counted", None)  # a score sheet's
    if isinstance(counted, str):
        return counted
    return None if getattr(sheet, "forced", None) is None else "forced runs"


def _reason(sheet: AnySheet, how: str) -> str:
    """:data:`_TEXT` for ``how``, naming what the sheet counted on its instances."""
    return _TEXT[how].replace("forced runs", _counted(sheet) or "forced runs", 1) \
        if how != "no-forced-runs" else _TEXT[how]


def instances_how(sheet: AnySheet, declared: bool, row_fingerprint: str | None) -> str:
    """How the rows a candidate was counted on relate to the sheet's, from what the user said
    (any K, and score sheets): ``"no-forced-runs"``, ``"declared"``, ``"not-declared"``,
    ``"fingerprint"`` (the same rows, proven) or ``"fingerprint-differs"`` (other rows,
    proven). A score sheet's critical scores were always counted on instances of its own.

    Raises
    ------
    ValidationError
        ``declared`` or a fingerprint on a sheet with no forced runs (or no recorded
        fingerprint), a malformed fingerprint, or one that contradicts ``declared``.
    """
    if _counted(sheet) is None:
        if declared or row_fingerprint is not None:
            what = "same_instances=True (--same-instances)" if declared else \
                "row_fingerprint (--row-fingerprint)"
            raise ValidationError(
                f"{what}: the sheet's rates were not counted on instances of its own (no forced "
                "runs, e.g. a network): there are no rows to be the same as; leave it out")
        return "no-forced-runs"
    how = "declared" if declared else "not-declared"
    if row_fingerprint is None:
        return how
    recorded = sheet_row_fingerprint(sheet)
    if recorded is None:
        raise ValidationError(
            "row_fingerprint (--row-fingerprint): the sheet records no row fingerprint "
            f"(provenance {FINGERPRINT_KEY!r}; derive it with sheet_from_data(..., "
            "row_ids=...)); declare same_instances=True (--same-instances) if you know the "
            "candidate was counted on the sheet's rows")
    if not isinstance(row_fingerprint, str) or not row_fingerprint.startswith("sha256:"):
        raise ValidationError(f"row_fingerprint (--row-fingerprint) must be a 'sha256:...' "
                              f"string from row_fingerprint(...), got {row_fingerprint!r}")
    if row_fingerprint == recorded:
        return "fingerprint"
    if declared:
        raise ValidationError(
            "same_instances=True (--same-instances) contradicts row_fingerprint "
            "(--row-fingerprint): the fingerprint differs from the sheet's, so the rows are "
            "other rows; drop one of the two")
    return "fingerprint-differs"


def decide_instances(sheet: AnySheet, positives: float, negatives: float, *,
                     same_instances: bool = False,
                     row_fingerprint: str | None = None) -> Instances:
    """Decide the form for a candidate with these class sizes, from what the user said.

    Parameters
    ----------
    sheet : CostSheet or ScoreSheet
    positives, negatives : float
        The candidate's class sizes.
    same_instances : bool
        The user declares the candidate was counted on the rows of the sheet's forced runs.
    row_fingerprint : str, optional
        :func:`row_fingerprint` of the rows the candidate was counted on.

    Raises
    ------
    ValidationError
        ``same_instances=True`` or ``row_fingerprint`` on a sheet with no forced runs (or no
        recorded fingerprint), or a fingerprint that contradicts ``same_instances=True``.
    SheetError
        Same instances (declared or proven) but class sizes other than the sheet's.

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160),
    ...                                   cc.Confusion(0, 100, 0, 200), cc.CostMatrix(fn=5, fp=1),
    ...                                   slot="m", description="thesis set")
    >>> decide_instances(sheet, 100, 200).text()
    'probability form: instances not declared the same'
    >>> decide_instances(sheet, 100, 200, same_instances=True).same
    True
    """
    if not isinstance(same_instances, (bool, np.bool_)):
        raise ValidationError(f"same_instances must be True or False, got {same_instances!r}")
    how = instances_how(sheet, bool(same_instances), row_fingerprint)
    if how == "no-forced-runs":
        return Instances(False, how, _reason(sheet, how))
    same = how in ("declared", "fingerprint")
    if same:
        sp, sn = sheet.class_counts if sheet.class_counts is not None else (None, None)
        if (float(positives), float(negatives)) != (float(sp), float(sn)):  # type: ignore[arg-type]
            why = ("declared (same_instances=True, --same-instances)" if how == "declared"
                   else "proven by the row fingerprint")
            raise SheetError(
                f"the candidate has {_fmt(positives)} positives and {_fmt(negatives)} "
                f"negatives but the sheet's {_counted(sheet)} counted {sp} and {sn}: it cannot "
                f"have been counted on the same instances ({why}); count it on those rows, or "
                "leave same_instances out for the probability form")
    return Instances(same, how, _reason(sheet, how))


def score_sheet_instances(sheet: AnySheet, declared: bool,
                          row_fingerprint: str | None = None) -> bool:
    """Whether a candidate's scores count as measured on a score sheet's own instances:
    declared (``same_instances=True``) or proven by the row fingerprint. The one decision of
    :func:`instances_how`, for a score sheet.

    Raises
    ------
    ValidationError
        A malformed fingerprint, a fingerprint on a sheet that records none, or one that
        contradicts ``declared``.

    Examples
    --------
    >>> import causalcost as cc, pandas as pd
    >>> from causalcost.data.score_runs import score_runs
    >>> log = pd.DataFrame({"y": [1, 0, 1], "a": [0.9, 0.2, 0.4], "b": [0.6, 0.5, 0.7]},
    ...                    index=["r1", "r2", "r3"])
    >>> sheet = cc.sheet_from_data(score_runs(log, truth="y", models=["a", "b"], slot="b"),
    ...                            cc.CostMatrix(fn=5, fp=1), row_ids=log.index)
    >>> score_sheet_instances(sheet, False, row_fingerprint(["r3", "r2", "r1"]))
    True
    >>> score_sheet_instances(sheet, False, row_fingerprint(["r1", "r2"]))
    False
    >>> score_sheet_instances(sheet, True, None)
    True
    """
    if getattr(sheet, "instances_counted", None) != "critical scores":
        raise ValidationError(f"score_sheet_instances takes a ScoreSheet, got "
                              f"{type(sheet).__name__}; a cost sheet's decision is "
                              "decide_instances")
    if not isinstance(declared, (bool, np.bool_)):
        raise ValidationError(f"same_instances must be True or False, got {declared!r}")
    return instances_how(sheet, bool(declared), row_fingerprint) in ("declared", "fingerprint")
