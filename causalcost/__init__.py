"""causalcost: judge one model of a multi-model classifier system by its effect on the system.

Declare the system as a causal Bayesian network (pgmpy), intervene on the slot model with
Pearl's do-operator, and turn the interventional error rates and the system's cost matrix
into model-level costs and worst/best-case bounds.

>>> import causalcost as cc
>>> system = cc.load_network("thesis_and")
>>> cc.error_rates(system)
ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0)

Names load their module on first use: a model owner who only evaluates candidates against a
cost sheet never imports pgmpy, and matplotlib loads only for drawings.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .confusion import (
    CELLS,
    Confusion,
    CostMatrix,
)
from .errors import (
    CausalCostError,
    CostMatrixError,
    CountError,
    CPDError,
    InfeasibleInputError,
    MonotonicityError,
    NetworkFileError,
    NetworkStructureError,
    SheetError,
    UnknownNameError,
    ValidationError,
)

__version__ = "0.1.0"

#: Public name -> the module that defines it (loaded on first access).
_LAZY: dict[str, str] = {
    "best_case_confusion": "bounds",
    "Bound": "bounds",
    "bound": "bounds",
    "bound_from_rates": "bounds",
    "bound_many": "bounds",
    "bound_many_from_rates": "bounds",
    "check_monotonicity": "intervene",
    "class_prior": "exact",
    "ClassWitness": "bounds",
    "compare": "report",
    "correlated_correctness": "correlation",
    "correlation_range": "correlation",
    "CostEvaluation": "costs",
    "CostSheet": "sheet",
    "derive_sheet": "derivation",
    "draw_intervention": "plotting",
    "draw_system": "plotting",
    "error_rates": "query",
    "error_transition_matrix": "costs",
    "ErrorRates": "table",
    "evaluate": "report",
    "evaluate_costs": "costs",
    "exact_table": "exact",
    "expected_cost_matrix": "costs",
    "expected_system_confusion": "costs",
    "Fusioner": "fusioners",
    "interventional_table": "query",
    "InterventionalTable": "table",
    "layered_positions": "layout",
    "list_networks": "netfile",
    "load_bif": "netfile",
    "load_network": "netfile",
    "load_sheet": "sheet",
    "make_fusioner": "fusioners",
    "ModelCostMatrix": "costs",
    "MonotonicityCheck": "monotonicity",
    "mutilate": "intervene",
    "observed_confusion": "exact",
    "OUTCOMES": "table",
    "perfect_slot_cost": "costs",
    "read_candidates_csv": "candidates",
    "Report": "report",
    "sampled_table": "sampling",
    "save_figure": "plotting",
    "sheet_from_forced_runs": "derivation",
    "sheet_from_network": "derivation",
    "simulate_forced_runs": "sampling",
    "System": "system",
    "SystemBuilder": "builder",
    "Witness": "bounds",
    "worst_case_confusion": "bounds",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .bounds import (
        Bound,
        ClassWitness,
        Witness,
        best_case_confusion,
        bound,
        bound_from_rates,
        bound_many,
        bound_many_from_rates,
        worst_case_confusion,
    )
    from .builder import SystemBuilder
    from .candidates import read_candidates_csv
    from .correlation import correlated_correctness, correlation_range
    from .costs import (
        CostEvaluation,
        ModelCostMatrix,
        error_transition_matrix,
        evaluate_costs,
        expected_cost_matrix,
        expected_system_confusion,
        perfect_slot_cost,
    )
    from .derivation import derive_sheet, sheet_from_forced_runs, sheet_from_network
    from .exact import class_prior, exact_table, observed_confusion
    from .fusioners import Fusioner, make_fusioner
    from .intervene import check_monotonicity, mutilate
    from .layout import layered_positions
    from .monotonicity import MonotonicityCheck
    from .netfile import list_networks, load_bif, load_network
    from .plotting import draw_intervention, draw_system, save_figure
    from .query import error_rates, interventional_table
    from .report import Report, compare, evaluate
    from .sampling import sampled_table, simulate_forced_runs
    from .sheet import CostSheet, load_sheet
    from .system import System
    from .table import OUTCOMES, ErrorRates, InterventionalTable


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'causalcost' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Bound",
    "CELLS",
    "CPDError",
    "CausalCostError",
    "ClassWitness",
    "Confusion",
    "CostEvaluation",
    "CostMatrix",
    "CostMatrixError",
    "CostSheet",
    "CountError",
    "ErrorRates",
    "Fusioner",
    "InfeasibleInputError",
    "InterventionalTable",
    "ModelCostMatrix",
    "MonotonicityCheck",
    "MonotonicityError",
    "NetworkFileError",
    "NetworkStructureError",
    "OUTCOMES",
    "Report",
    "SheetError",
    "System",
    "SystemBuilder",
    "UnknownNameError",
    "ValidationError",
    "Witness",
    "best_case_confusion",
    "bound",
    "bound_from_rates",
    "bound_many",
    "bound_many_from_rates",
    "check_monotonicity",
    "class_prior",
    "compare",
    "correlated_correctness",
    "correlation_range",
    "derive_sheet",
    "draw_intervention",
    "draw_system",
    "error_rates",
    "error_transition_matrix",
    "evaluate",
    "evaluate_costs",
    "exact_table",
    "expected_cost_matrix",
    "expected_system_confusion",
    "interventional_table",
    "layered_positions",
    "list_networks",
    "load_bif",
    "load_network",
    "load_sheet",
    "make_fusioner",
    "mutilate",
    "observed_confusion",
    "perfect_slot_cost",
    "read_candidates_csv",
    "sampled_table",
    "save_figure",
    "sheet_from_forced_runs",
    "sheet_from_network",
    "simulate_forced_runs",
    "worst_case_confusion",
]
