"""The one place causalcost imports pgmpy.

pgmpy 1.1 emits a ``FutureWarning`` about its own ``StructureScore`` on import; it is not
about anything our users do, so it is silenced here and nowhere else.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

__all__ = [
    "DiscreteBayesianNetwork", "TabularCPD", "bif_reader", "bif_writer", "variable_elimination",
]


def variable_elimination(network: DiscreteBayesianNetwork):  # noqa: ANN201 - pgmpy type
    """pgmpy's ``VariableElimination`` on ``network`` (used as the reference route)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.inference import VariableElimination
    return VariableElimination(network)


def bif_reader(path: str):  # noqa: ANN201 - pgmpy type
    """pgmpy's ``BIFReader`` on a file path."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.readwrite import BIFReader
    return BIFReader(path)


def bif_writer(network: DiscreteBayesianNetwork):  # noqa: ANN201 - pgmpy type
    """pgmpy's ``BIFWriter`` for a network."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.readwrite import BIFWriter
    return BIFWriter(network)


def estimate_cpds(network: DiscreteBayesianNetwork, data, *, estimator: str,  # noqa: ANN001
                  state_names: dict, latent_card: dict[str, int], options: dict) -> list:
    """CPDs of ``network``'s nodes estimated from ``data`` by pgmpy's estimators.

    ``estimator`` is ``"mle"`` or ``"bayesian"`` (``options``: ``prior_type``,
    ``equivalent_sample_size``); with latent nodes (``latent_card``), expectation maximisation
    (``options``: ``max_iter``, ``seed``, ``init_cpds``).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        from pgmpy.estimators import (
            BayesianEstimator,
            ExpectationMaximization,
            MaximumLikelihoodEstimator,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if latent_card:
            em = ExpectationMaximization(network, data, state_names=state_names)
            return em.get_parameters(latent_card=latent_card, show_progress=False, **options)
        if estimator == "mle":
            mle = MaximumLikelihoodEstimator(network, data, state_names=state_names)
            return mle.get_parameters()
        bayes = BayesianEstimator(network, data, state_names=state_names)
        return bayes.get_parameters(**options)
