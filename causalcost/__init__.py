"""causalcost: judge one model of a multi-model classifier system by its effect on the system.

Declare the system as a causal Bayesian network (pgmpy), intervene on the slot model with
Pearl's do-operator, and turn the interventional error rates and the system's cost matrix
into model-level costs and worst/best-case bounds.

>>> import causalcost as cc
>>> system = cc.load_network("thesis_and")
>>> cc.error_rates(system)
ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0)
"""

from __future__ import annotations

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
from .confusion import CELLS, Confusion, CostMatrix
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
from .exact import class_prior, exact_table, observed_confusion
from .fusioners import Fusioner, make_fusioner
from .intervene import MonotonicityCheck, check_monotonicity, mutilate
from .layout import layered_positions
from .netfile import list_networks, load_bif, load_network
from .query import error_rates, interventional_table
from .report import Report, compare, evaluate
from .sampling import sampled_table, simulate_forced_runs
from .sheet import CostSheet, load_sheet
from .system import System
from .table import OUTCOMES, ErrorRates, InterventionalTable

__version__ = "0.1.0"

_PLOTTING = ("draw_system", "draw_intervention", "save_figure")


def __getattr__(name: str) -> object:
    """Plotting names load matplotlib only when first used."""
    if name in _PLOTTING:
        from . import plotting

        return getattr(plotting, name)
    raise AttributeError(f"module 'causalcost' has no attribute {name!r}")


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
