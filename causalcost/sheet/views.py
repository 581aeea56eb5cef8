"""What a sheet computes from its fields: the general views (any K) and the binary names.

The general views (``costs_array``, ``table_array``, ``m1``, ``m2``, ``form``, ...) read every
sheet. The binary names ``rates``, ``forced_p``, ``forced_n``, ``class_counts``, ``prior``,
``expected_cost_matrix`` and ``error_transition_matrix`` are what a binary sheet was made of
before every K had one field set; they stay as read-only views (labels positive first) for
:class:`~causalcost.sheet.costsheet.CostSheet`, and a sheet of more labels raises
:class:`~causalcost.errors.NotBinaryError` naming the general field to use.

Examples
--------
>>> import causalcost as cc
>>> sheet = cc.sheet_from_forced_runs(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 200),
...                                   cc.CostMatrix(fn=5, fp=1), slot="m", description="set")
>>> sheet.class_counts, sheet.forced_p, sheet.rates.fn_forced_p
((100, 200), Confusion(tp=80, fn=20, fp=40, tn=160), 0.2)
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from causalcost.confusion import Confusion
from causalcost.errors import NotBinaryError
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.inference.table import ErrorRates
from causalcost.pricing.costs import ModelCostMatrix

__all__ = ["SheetViews"]


class SheetViews:
    """The views of a sheet (mixed into :class:`~causalcost.CostSheet`)."""

    labels: tuple[str, ...]
    table: Any
    forced: Any
    class_sizes: Any
    class_prior: Any
    costs: Any
    monotonicity: dict[str, Any] | None
    slot: str

    @property
    def label_names(self) -> tuple[str, ...]:
        """The K labels (the same as :attr:`labels`)."""
        return self.labels

    @property
    def costs_array(self) -> np.ndarray:
        """The system's costs ``C[c, s]`` as a (K, K) float array (rows the true class)."""
        return np.asarray(self.costs.to_numpy(), dtype=float)

    @property
    def table_array(self) -> np.ndarray:
        """The interventional table ``T[c, j, s] = P(system s | class c, do(slot = j))``."""
        return self.table.to_numpy()

    @cached_property
    def _matrices(self) -> tuple[np.ndarray, np.ndarray]:
        if self.binary:
            return (np.asarray(self.expected_cost_matrix.to_array(), dtype=float),
                    np.asarray(self.error_transition_matrix.to_array(), dtype=float))
        found = self._cost_matrices()
        return found.m1, found.m2

    @property
    def m1(self) -> np.ndarray:
        """Cost function 1's model-level matrix ``M1[c, j]``: the expected system cost of a
        class-``c`` instance when the slot says ``j``."""
        return self._matrices[0]

    @property
    def m2(self) -> np.ndarray:
        """Cost function 2's error transition ``M2[c, j] = M1[c, j] - M1[c, c]``."""
        return self._matrices[1]

    def _cost_matrices(self) -> Any:
        from causalcost.pricing.model_costs import model_cost_matrices

        return model_cost_matrices(self.table_array, self.costs_array, list(self.labels))

    @property
    def form(self) -> str:
        """``"counts"`` when the sheet holds forced runs, else ``"probability"``."""
        return "counts" if self.forced is not None else "probability"

    # -- the binary names (K = 2) ----------------------------------------------------------
    @property
    def binary(self) -> bool:
        """Whether the sheet has two labels (the first is the positive)."""
        return len(self.labels) == 2

    @property
    def k(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def _need_binary(self, name: str, use: str) -> None:
        if not self.binary:
            raise NotBinaryError(
                f"a sheet of {self.k} labels {list(self.labels)} has no {name!r}: it names a "
                f"view of a sheet of two labels; use {use}")

    @cached_property
    def rates(self) -> ErrorRates:
        """The slot's interventional error rates ``e_P(P), e_P(N), e_N(P), e_N(N)`` (K = 2)."""
        self._need_binary("rates", "sheet.table_array (T[c, j, s])")
        return self.table.error_rates

    @cached_property
    def _forced_pair(self) -> tuple[Confusion, Confusion] | None:
        if self.forced is None:
            return None
        p, n = (Confusion(run.tolist(), labels=self.labels) for run in self.forced)
        return p, n

    @property
    def forced_p(self) -> Confusion | None:
        """The system's confusion with the slot forced to the positive label (K = 2)."""
        self._need_binary("forced_p", "sheet.forced (F[j, c, s])")
        return None if self._forced_pair is None else self._forced_pair[0]

    @property
    def forced_n(self) -> Confusion | None:
        """The system's confusion with the slot forced to the negative label (K = 2)."""
        self._need_binary("forced_n", "sheet.forced (F[j, c, s])")
        return None if self._forced_pair is None else self._forced_pair[1]

    @property
    def class_counts(self) -> tuple[int, int] | None:
        """Positives and negatives of the evaluation set, or None (K = 2)."""
        self._need_binary("class_counts", "sheet.class_sizes")
        sizes = self.class_sizes
        return None if sizes is None else (int(sizes[0]), int(sizes[1]))

    @property
    def prior(self) -> float | None:
        """``P(Class = positive)``, or None (K = 2)."""
        self._need_binary("prior", "sheet.class_prior")
        return None if self.class_prior is None else float(self.class_prior[0])

    @cached_property
    def expected_cost_matrix(self) -> ModelCostMatrix:
        """Cost function 1 from the rates and costs (K = 2)."""
        from causalcost.pricing.costs import expected_cost_matrix

        self._need_binary("expected_cost_matrix", "sheet.m1 (M1[c, j])")
        return expected_cost_matrix(self.rates, self.costs)

    @cached_property
    def error_transition_matrix(self) -> ModelCostMatrix:
        """Cost function 2 from the rates and costs (K = 2)."""
        from causalcost.pricing.costs import error_transition_matrix

        self._need_binary("error_transition_matrix", "sheet.m2 (M2[c, j])")
        return error_transition_matrix(self.rates, self.costs)

    @property
    def monotonicity_check(self) -> MonotonicityCheck | None:
        """The stored network check as a :class:`MonotonicityCheck`, or None."""
        m = self.monotonicity
        if m is None:
            return None
        return MonotonicityCheck(slot=str(m.get("slot", self.slot)),
                                 system_node=str(m.get("system_node", "")),
                                 is_monotone=bool(m["is_monotone"]), violation=m.get("violation"),
                                 assignments=int(m.get("assignments", 0)),
                                 method=str(m.get("method", "enumeration")))

