"""Derive a slot's cost sheet: the system owner's side of :mod:`causalcost.sheet.costsheet`.

The owner of the whole system derives the :class:`~causalcost.CostSheet` of a slot once,
in one of two ways:

* **from a network** (:func:`sheet_from_network`): the slot's interventional table is computed
  from the causal Bayesian network, exactly or by sampling (with binomial intervals); the
  network's monotonicity in the slot is checked and stored, so the monotone worst case is only
  used when it holds; the class prior is the network's ``P(Class = P)`` unless class counts or
  a prior are given; the provenance records the network file and its SHA-256;
* **from two forced runs of the real system** (:func:`sheet_from_forced_runs`): the system's
  confusion with the slot forced to P and to N on one evaluation set gives the table (with
  intervals) and the class counts, and the sheet then uses the count-form worst case; the
  provenance describes the data.

Both end in :func:`derive_sheet`, which takes the rates (or a table) and the system's cost
matrix, checks them against the assumption, and computes the two model cost matrices. The same
calls take K labels: a K-label system (:func:`sheet_from_network`), K-label forced runs or a
table ``T[c, j, s]`` with ``labels=`` (:func:`derive_sheet`) give a sheet with labels, and the
monotone assumption follows one rule for every K: it needs evidence (a check of the system for
these costs, the instances counted on data, or the owner's declaration) and is refused when the
evidence says it is false.

Examples
--------
>>> import causalcost as cc
>>> sheet = sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
>>> sheet.expected_cost_matrix
ModelCostMatrix(tp=1, fn=5, fp=0.2, tn=0, kind='expected')
>>> sheet.form, sheet.provenance["source"]
('probability', 'network')
"""

from __future__ import annotations

from causalcost.sheet.evidence import DECLARED, data_evidence
from causalcost.sheet.from_network import network_provenance, sheet_from_network
from causalcost.sheet.from_rates import derive_sheet, sheet_from_forced_runs
from causalcost.sheet.from_table import derive_labelled_sheet, multiclass_sheet

__all__ = [
    "DECLARED",
    "data_evidence",
    "derive_labelled_sheet",
    "derive_sheet",
    "multiclass_sheet",
    "network_provenance",
    "sheet_from_forced_runs",
    "sheet_from_network",
]
