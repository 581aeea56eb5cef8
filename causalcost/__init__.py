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
    # same instances declared or proven, candidates from predictions (issues 16, 17)
    "row_fingerprint": "sheet.instances",
    "confusions_from_predictions": "evaluation.candidates",
    # one confusion and one cost type for K labels, one reader of predictions (issue 23)
    "as_confusion": "evaluation.candidates",
    "count_confusion": "data.predictions",
    "NotBinaryError": "errors",
    # start-up (issue 18): numpy loads with the first value object, not with the package
    "CELLS": "confusion",
    "OUTCOMES": "confusion",
    "Confusion": "confusion",
    "CostMatrix": "confusion",
    "CausalCostWarning": "errors",
    "candidates_frame": "evaluation.candidates",
    "generate_signing_key": "sheet.signing",
    "read_candidates_frame": "evaluation.candidate_files",
    "sign_sheet": "sheet.signing",
    "SignatureError": "sheet.signing",
    "SigningUnavailableError": "sheet.signing",
    "VerifiedSheet": "sheet.signing",
    "verify_sheet": "sheet.signing",
    "InputTypeError": "errors",
    "OverflowInputError": "errors",
    "count_kinds": "pricing.kinds",
    "forced_from_kinds": "pricing.kinds",
    "kinds_frame": "pricing.kinds",
    "best_case_confusion": "pricing.bounds",
    "Bound": "pricing.bounds",
    "bound": "pricing.bounds",
    "bound_from_rates": "pricing.bounds",
    "bound_many": "pricing.bounds",
    "bound_many_from_rates": "pricing.bounds",
    "check_monotonicity": "pricing.monotonicity",
    "class_prior": "inference.exact",
    "ClassWitness": "pricing.bounds",
    "compare": "evaluation.comparison",
    "correlated_correctness": "network.correlation",
    "correlation_range": "network.correlation",
    "CostEvaluation": "pricing.costs",
    "CostSheet": "sheet.costsheet",
    "ScoreSheet": "sheet.score_sheet",
    "ScoreBound": "pricing.score_bound",
    "ScoreReport": "evaluation.score_report",
    "price_scores": "pricing.scores",
    "derive_sheet": "sheet.derivation",
    "draw_intervention": "plotting.drawing",
    "draw_system": "plotting.drawing",
    "draw_coverage_heatmap": "plotting.experiments",
    "draw_coverage_curves": "plotting.experiments",
    "draw_ratio_histogram": "plotting.experiments",
    "error_rates": "inference.query",
    "error_transition_matrix": "pricing.costs",
    "ErrorRates": "inference.table",
    "evaluate": "evaluation.evaluating",
    "evaluate_costs": "pricing.costs",
    "exact_table": "inference.exact",
    "expected_cost_matrix": "pricing.costs",
    "expected_system_confusion": "pricing.costs",
    "Fusioner": "network.fusioners",
    "system_thresholds": "evaluation.thresholds",
    "ThresholdSweep": "evaluation.thresholds",
    "OperatingPoint": "evaluation.thresholds",
    # constant slot (issue 17): a sweep optimum at which the slot votes one label everywhere
    "ConstantSlotWarning": "evaluation.constant_slot",
    "forced_system_text": "evaluation.constant_slot",
    "system_threshold_classifier": "evaluation.estimator",
    "classifier_scores": "evaluation.estimator",
    "candidate_metrics": "evaluation.metrics",
    "metrics_frame": "evaluation.metrics",
    "label_noise_range": "evaluation.label_noise",
    "LabelNoiseRange": "evaluation.label_noise",
    "LabelTransition": "stats.noisy_labels",
    "noisy_accuracy": "stats.noisy_labels",
    "NoisyAccuracy": "stats.noisy_labels",
    "LabelErrors": "stats.noisy_labels",
    "correct_confusion": "stats.noisy_labels",
    "confusion_range": "stats.noisy_labels",
    "ConfusionRange": "stats.noisy_labels",
    "LabelNoiseError": "stats.noisy_labels",
    "draw_system_roc": "plotting.roc",
    "draw_cost_by_threshold": "plotting.roc",
    "sheet_from_data": "sheet.from_data",
    "proportion_interval": "stats.intervals",
    "Z_TABLE": "stats.intervals",
    "error_difference": "stats.comparisons",
    "ErrorDifference": "stats.comparisons",
    "mcnemar_test": "stats.comparisons",
    "mcnemar_from_counts": "stats.comparisons",
    "McNemarResult": "stats.comparisons",
    "paired_t_test": "stats.crossval",
    "PairedTTest": "stats.crossval",
    "five_by_two_cv_t_test": "stats.crossval",
    "five_by_two_cv_differences": "stats.crossval",
    "FiveByTwoCVTest": "stats.crossval",
    "fit_system": "network.learning",
    "confusion_at_threshold": "data.predictions",
    "confusion_from_predictions": "data.predictions",
    "DataError": "errors",
    "ScoreValueError": "errors",
    "ForcedRuns": "data.runs",
    "ScoreRuns": "data.score_runs",
    "forced_runs": "data.forced_runs",
    "ensemble_runs": "data.ensemble",
    "read_table": "data.readers",
    "paired_cost_difference": "evaluation.paired",
    "PairedDifference": "evaluation.paired",
    "cost_intervals": "pricing.uncertainty",
    "CostIntervals": "pricing.uncertainty",
    "coverage_experiment": "experiments.coverage",
    "CoverageResult": "experiments.coverage",
    "ratio_experiment": "experiments.ratio",
    "RatioResult": "experiments.ratio",
    "InstanceLaw": "experiments.law",
    "two_model_law": "experiments.law",
    "law_from_system": "experiments.network_law",
    "high_confidence_bound": "pricing.high_confidence",
    "binomial_prediction_limit": "stats.prediction",
    "interventional_table": "inference.query",
    "InterventionalTable": "inference.table",
    "layered_positions": "network.layout",
    "system_picture": "network.picture",
    "explore": "explorer.widgets",
    "Explorer": "explorer.widgets",
    "explorer_view": "explorer.view",
    "ExplorerView": "explorer.view",
    "explorer_settings": "explorer.reading",
    "ExplorerSettings": "explorer.settings",
    "intervention_picture": "network.picture",
    "SystemPicture": "network.picture",
    "list_networks": "network.netfile",
    "read_network": "network.netfile",
    "NetworkSpec": "network.netschema",
    "load_bif": "network.netfile",
    "load_network": "network.netfile",
    "load_sheet": "sheet.loading",
    "make_fusioner": "network.fusioners",
    "ModelCostMatrix": "pricing.costs",
    "MonotonicityCheck": "inference.monotonicity",
    "mutilate": "inference.intervene",
    "observed_confusion": "inference.exact",
    "perfect_slot_cost": "pricing.costs",
    "read_candidates_csv": "evaluation.candidate_files",
    "Report": "evaluation.report_value",
    "sampled_table": "inference.sampling",
    "save_figure": "plotting.drawing",
    "sheet_from_forced_runs": "sheet.derivation",
    "sheet_from_network": "sheet.derivation",
    "simulate_forced_runs": "inference.sampling",
    "System": "network.system",
    "SystemBuilder": "network.builder",
    # score slots in the network (issue 24): score nodes over bins, score fusioners
    "ScoreBins": "network.scores",
    "ScoreFusioner": "network.scores",
    "score_bins": "network.scores",
    "scores_from_data": "network.scores",
    "Witness": "pricing.bounds",
    "worst_case_confusion": "pricing.bounds",
    # model-owner features (issue 17): backtest, slot importance, scikit-learn scorer
    "backtest": "evaluation.backtest",
    "Backtest": "evaluation.backtest",
    "slot_importance": "evaluation.importance",
    "SlotImportance": "evaluation.importance",
    "system_scorer": "evaluation.scorer",
    "draw_slot_importance": "plotting.importance",
    # pictures of a score slot: critical scores with candidates' scores, candidates' costs
    "draw_critical_scores": "plotting.scores",
    "draw_candidate_costs": "plotting.scores",
    # issue 16/17 (votes, guards, pictures of data systems)
    "NoDataWarning": "errors",
    # multi-class (K-label) systems (issue 19)
    # pricing for any K (issue 23); the multiclass_* names are deprecated aliases (_DEPRECATED)
    "Kinds": "pricing.responses",
    "read_kinds": "pricing.responses",
    "ModelCostMatrices": "pricing.model_costs",
    "model_cost_matrices": "pricing.model_costs",
    "require_monotone": "pricing.monotonicity",
    "multiclass_fusioner": "network.fusioners",  # deprecated: make_fusioner (warns)
    "multiclass_to_pgmpy": "network.labelled",  # deprecated: system.network (warns)
    # multi-class data, sheet, experiment (issue 19, t19-data)
    "multiclass_sheet": "sheet.derivation",  # deprecated: derive_sheet (warns)
    # one judge for any K (issue 23): K-label reports and the K-label coverage experiment
    "label_confusion": "evaluation.candidate_reading",
}

#: Old names kept one release: name -> (module, the object that replaces it, what to use
#: instead when that is not simply ``causalcost.<object>``). Every use warns.
_DEPRECATED: dict[str, tuple[str, str, str]] = {
    "multiclass_bound": ("pricing.bounds", "bound", ""),
    "MulticlassBound": ("pricing.bound_result", "Bound", ""),
    "multiclass_cost_matrix": ("pricing.model_costs", "model_cost_matrices", ""),
    "MulticlassCostMatrix": ("pricing.model_costs", "ModelCostMatrices", ""),
    "LabelCostMatrix": ("pricing.model_costs", "ModelCostMatrix", ""),
    "TransitionRange": ("evaluation.noise_result", "LabelNoiseRange", ""),
    "LabelExplorerSettings": ("explorer.settings", "ExplorerSettings", ""),
    "LabelExplorerView": ("explorer.view", "ExplorerView", ""),
    "MulticlassKinds": ("pricing.responses", "Kinds", ""),
    "count_multiclass_kinds": ("pricing.kinds", "count_kinds", ""),
    "read_multiclass_kinds": ("pricing.responses", "read_kinds", ""),
    "check_multiclass_monotonicity": ("pricing.monotonicity", "check_monotonicity", ""),
    "multiclass_high_confidence_bound": ("pricing.high_confidence", "high_confidence_bound", ""),
    "MulticlassTable": ("inference.table", "_MulticlassTable",
                        "causalcost.InterventionalTable (InterventionalTable.from_array(t, "
                        "labels=..., slot=...))"),
    "MulticlassSystem": ("network.system", "System", ""),
    "MulticlassSystemBuilder": ("network.builder", "SystemBuilder",
                                "causalcost.SystemBuilder(prior, labels=[...])"),
    "MulticlassRuns": ("data.runs", "ForcedRuns", ""),
    "MulticlassSheet": ("sheet.costsheet", "CostSheet", ""),
    "MulticlassReport": ("evaluation.report_value", "Report",
                         "causalcost.Report (what causalcost.evaluate returns for any K)"),
    "LabelReport": ("evaluation.report_value", "Report",
                    "causalcost.Report (what causalcost.evaluate returns for any K)"),
    "multiclass_confusion": ("evaluation.candidate_reading", "label_confusion",
                             "causalcost.as_confusion(candidate, labels=[...]).to_numpy()"),
    "multiclass_coverage": ("experiments.coverage", "_coverage_of",
                            "causalcost.coverage_experiment(labels=K, ...)"),
    "label_coverage": ("experiments.coverage", "_coverage_of",
                       "causalcost.coverage_experiment(labels=K, ...)"),
    "MulticlassCoverageResult": ("experiments.coverage", "CoverageResult", ""),
    "LabelCoverageResult": ("experiments.coverage", "CoverageResult", ""),
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .confusion import CELLS, OUTCOMES, Confusion, CostMatrix
    from .data.ensemble import ensemble_runs
    from .data.forced_runs import forced_runs
    from .data.predictions import (
        confusion_at_threshold,
        confusion_from_predictions,
        count_confusion,
    )
    from .data.readers import read_table
    from .data.runs import ForcedRuns
    from .data.score_runs import ScoreRuns
    from .errors import (
        CausalCostWarning,
        DataError,
        InputTypeError,
        NotBinaryError,
        OverflowInputError,
        ScoreValueError,
    )
    from .evaluation.backtest import Backtest, backtest  # issue 17: model-owner features
    from .evaluation.candidates import (
        as_confusion,
        candidates_frame,
        read_candidates_csv,
        read_candidates_frame,
    )
    from .evaluation.comparison import compare

    # constant slot (issue 17)
    from .evaluation.constant_slot import ConstantSlotWarning, forced_system_text
    from .evaluation.estimator import classifier_scores, system_threshold_classifier
    from .evaluation.evaluating import evaluate
    from .evaluation.importance import SlotImportance, slot_importance
    from .evaluation.label_noise import LabelNoiseRange, label_noise_range
    from .evaluation.metrics import candidate_metrics, metrics_frame
    from .evaluation.paired import PairedDifference, paired_cost_difference
    from .evaluation.report_value import Report
    from .evaluation.score_report import ScoreReport
    from .evaluation.scorer import system_scorer
    from .evaluation.thresholds import OperatingPoint, ThresholdSweep, system_thresholds
    from .experiments.coverage import CoverageResult, coverage_experiment
    from .experiments.law import InstanceLaw, two_model_law
    from .experiments.network_law import law_from_system
    from .experiments.ratio import RatioResult, ratio_experiment
    from .explorer.reading import explorer_settings
    from .explorer.settings import ExplorerSettings
    from .explorer.view import ExplorerView, explorer_view
    from .explorer.widgets import Explorer, explore
    from .inference.exact import class_prior, exact_table, observed_confusion
    from .inference.intervene import check_monotonicity, mutilate
    from .inference.monotonicity import MonotonicityCheck
    from .inference.query import error_rates, interventional_table
    from .inference.sampling import sampled_table, simulate_forced_runs
    from .inference.table import ErrorRates, InterventionalTable
    from .network.builder import SystemBuilder
    from .network.correlation import correlated_correctness, correlation_range
    from .network.fusioners import Fusioner, make_fusioner
    from .network.layout import layered_positions
    from .network.learning import fit_system
    from .network.netfile import list_networks, load_bif, load_network, read_network
    from .network.netschema import NetworkSpec
    from .network.picture import SystemPicture, intervention_picture, system_picture
    from .network.scores import ScoreBins, ScoreFusioner, score_bins, scores_from_data
    from .network.system import System
    from .plotting.drawing import draw_intervention, draw_system, save_figure
    from .plotting.experiments import (
        draw_coverage_curves,
        draw_coverage_heatmap,
        draw_ratio_histogram,
    )
    from .plotting.importance import draw_slot_importance  # issue 17
    from .plotting.roc import draw_cost_by_threshold, draw_system_roc
    from .plotting.scores import draw_candidate_costs, draw_critical_scores
    from .pricing.bounds import (
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
    from .pricing.costs import (
        CostEvaluation,
        ModelCostMatrix,
        error_transition_matrix,
        evaluate_costs,
        expected_cost_matrix,
        expected_system_confusion,
        perfect_slot_cost,
    )
    from .pricing.high_confidence import high_confidence_bound
    from .pricing.kinds import count_kinds, forced_from_kinds, kinds_frame
    from .pricing.score_bound import ScoreBound
    from .pricing.scores import price_scores
    from .pricing.uncertainty import CostIntervals, cost_intervals
    from .sheet.costsheet import CostSheet
    from .sheet.derivation import derive_sheet, sheet_from_forced_runs, sheet_from_network
    from .sheet.from_data import sheet_from_data
    from .sheet.loading import load_sheet
    from .sheet.score_sheet import ScoreSheet
    from .sheet.signing import (
        SignatureError,
        SigningUnavailableError,
        VerifiedSheet,
        generate_signing_key,
        sign_sheet,
        verify_sheet,
    )
    from .stats.comparisons import (
        ErrorDifference,
        McNemarResult,
        error_difference,
        mcnemar_from_counts,
        mcnemar_test,
    )
    from .stats.crossval import (
        FiveByTwoCVTest,
        PairedTTest,
        five_by_two_cv_differences,
        five_by_two_cv_t_test,
        paired_t_test,
    )
    from .stats.intervals import Z_TABLE, proportion_interval
    from .stats.noisy_labels import (
        ConfusionRange,
        LabelErrors,
        LabelNoiseError,
        LabelTransition,
        NoisyAccuracy,
        confusion_range,
        correct_confusion,
        noisy_accuracy,
    )
    from .stats.prediction import binomial_prediction_limit


def __getattr__(name: str) -> object:
    if name in _DEPRECATED:  # not cached: every use warns
        import warnings

        module, new, instead = _DEPRECATED[name]
        warnings.warn(f"causalcost.{name} is deprecated; use {instead or 'causalcost.' + new} "
                      "(one call for any number of labels)", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(f".{module}", __name__), new)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'causalcost' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    if not name.lower().startswith("multiclass"):  # deprecated aliases warn on every use
        globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_DEPRECATED))


__all__ = [
    # same instances declared or proven, candidates from predictions (issues 16, 17)
    "row_fingerprint",
    "confusions_from_predictions",
    "as_confusion",
    "count_confusion",
    "NotBinaryError",
    "CausalCostWarning",
    "candidates_frame",
    "generate_signing_key",
    "read_candidates_frame",
    "sign_sheet",
    "SignatureError",
    "SigningUnavailableError",
    "VerifiedSheet",
    "verify_sheet",
    "InputTypeError",
    "OverflowInputError",
    "count_kinds",
    "forced_from_kinds",
    "kinds_frame",
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
    "ScoreBound",
    "ScoreReport",
    "ScoreSheet",
    "CountError",
    "ErrorRates",
    "Fusioner",
    "DataError",
    "ScoreValueError",
    "ForcedRuns",
    "ScoreRuns",
    "confusion_at_threshold",
    "confusion_from_predictions",
    "forced_runs",
    "ensemble_runs",
    "read_table",
    "InfeasibleInputError",
    "InterventionalTable",
    "ModelCostMatrix",
    "system_thresholds",
    "ThresholdSweep",
    "OperatingPoint",
    # constant slot (issue 17)
    "ConstantSlotWarning",
    "forced_system_text",
    "system_threshold_classifier",
    "classifier_scores",
    "candidate_metrics",
    "metrics_frame",
    "label_noise_range",
    "LabelNoiseRange",
    "TransitionRange",
    "LabelTransition",
    "noisy_accuracy",
    "NoisyAccuracy",
    "LabelErrors",
    "correct_confusion",
    "confusion_range",
    "ConfusionRange",
    "LabelNoiseError",
    "draw_system_roc",
    "draw_cost_by_threshold",
    "sheet_from_data",
    "proportion_interval",
    "Z_TABLE",
    "error_difference",
    "ErrorDifference",
    "mcnemar_test",
    "mcnemar_from_counts",
    "McNemarResult",
    "paired_t_test",
    "PairedTTest",
    "five_by_two_cv_t_test",
    "five_by_two_cv_differences",
    "FiveByTwoCVTest",
    "fit_system",
    "PairedDifference",
    "paired_cost_difference",
    "CostIntervals",
    "cost_intervals",
    "CoverageResult",
    "InstanceLaw",
    "RatioResult",
    "coverage_experiment",
    "law_from_system",
    "ratio_experiment",
    "two_model_law",
    "binomial_prediction_limit",
    "high_confidence_bound",
    "MonotonicityCheck",
    "MonotonicityError",
    "NetworkFileError",
    "NetworkSpec",
    "read_network",
    "NetworkStructureError",
    "OUTCOMES",
    "Report",
    "SheetError",
    "System",
    "SystemBuilder",
    "ScoreBins",
    "ScoreFusioner",
    "score_bins",
    "scores_from_data",
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
    "price_scores",
    "correlated_correctness",
    "correlation_range",
    "derive_sheet",
    "draw_coverage_curves",
    "draw_coverage_heatmap",
    "draw_intervention",
    "draw_ratio_histogram",
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
    "intervention_picture",
    "explore",
    "Explorer",
    "explorer_view",
    "ExplorerView",
    "explorer_settings",
    "ExplorerSettings",
    "LabelExplorerSettings",
    "LabelExplorerView",
    "system_picture",
    "SystemPicture",
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
    # model-owner features (issue 17)
    "backtest",
    "Backtest",
    "slot_importance",
    "SlotImportance",
    "system_scorer",
    "draw_slot_importance",
    "draw_critical_scores",
    "draw_candidate_costs",
    # issue 16/17 (votes, guards, pictures of data systems)
    "NoDataWarning",
    # multi-class (K-label) systems (issue 19)
    "multiclass_bound",
    "MulticlassBound",
    "multiclass_cost_matrix",
    "MulticlassCostMatrix",
    "MulticlassKinds",
    "count_multiclass_kinds",
    "read_multiclass_kinds",
    "MulticlassTable",
    "MulticlassSystem",
    "MulticlassSystemBuilder",
    "multiclass_fusioner",
    "check_multiclass_monotonicity",
    "multiclass_to_pgmpy",
    "multiclass_high_confidence_bound",
    # multi-class data, sheet, experiment (issue 19, t19-data)
    "MulticlassRuns",
    "MulticlassSheet",
    "multiclass_sheet",
    "MulticlassReport",
    "multiclass_confusion",
    "multiclass_coverage",
    "MulticlassCoverageResult",
    "LabelReport",
    "label_confusion",
    "LabelCoverageResult",
    "Kinds",
    "read_kinds",
    "ModelCostMatrices",
    "model_cost_matrices",
    "LabelCostMatrix",
    "require_monotone",
]
