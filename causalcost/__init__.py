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

from .builder import SystemBuilder
from .confusion import CELLS, Confusion, CostMatrix
from .correlation import correlated_correctness, correlation_range
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
from .exact import exact_table
from .fusioners import Fusioner, make_fusioner
from .intervene import MonotonicityCheck, check_monotonicity, mutilate
from .netfile import list_networks, load_bif, load_network
from .query import error_rates, interventional_table
from .sampling import sampled_table, simulate_forced_runs
from .system import System
from .table import OUTCOMES, ErrorRates, InterventionalTable

__version__ = "0.1.0"

__all__ = [
    "CELLS",
    "OUTCOMES",
    "CPDError",
    "CausalCostError",
    "Confusion",
    "CostMatrix",
    "CostMatrixError",
    "CountError",
    "ErrorRates",
    "Fusioner",
    "InfeasibleInputError",
    "InterventionalTable",
    "MonotonicityCheck",
    "MonotonicityError",
    "NetworkFileError",
    "NetworkStructureError",
    "SheetError",
    "System",
    "SystemBuilder",
    "UnknownNameError",
    "ValidationError",
    "check_monotonicity",
    "correlated_correctness",
    "correlation_range",
    "error_rates",
    "exact_table",
    "interventional_table",
    "list_networks",
    "load_bif",
    "load_network",
    "make_fusioner",
    "mutilate",
    "sampled_table",
    "simulate_forced_runs",
]
