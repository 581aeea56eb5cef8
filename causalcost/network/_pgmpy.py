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
