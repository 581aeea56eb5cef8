"""The system an experiment simulates, and the two engines that draw its instances.

``"counts"`` draws the per-class counts of the 2 x 4 instance cells (slot right or wrong x
kind) from their multinomial law: the cost of a repetition does not grow with the stage
sizes. ``"instances"`` samples every instance from the network by ancestral sampling and
evaluates both forced worlds on it: slow, and independent of the law's exact computation, so
it validates the fast engine (the test suite checks they agree in distribution).
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike

import numpy as np

from causalcost.errors import ValidationError
from causalcost.experiments.law import InstanceLaw
from causalcost.experiments.network_law import law_from_system, sample_instances
from causalcost.experiments.simulate import StageDraws, draw_stages, stages_from_cells
from causalcost.network.system import System

__all__ = ["ENGINES", "ExperimentSystem", "draw", "resolve_system"]

#: Simulation engines.
ENGINES = ("counts", "instances")


@dataclass(frozen=True)
class ExperimentSystem:
    """What an experiment simulates: the instance law, and the network when there is one."""

    name: str
    law: InstanceLaw
    system: System | None = None

    @property
    def assumption(self) -> str:
        """The worst case's assumption: ``"monotone"`` when the law has no right-only cell."""
        return "monotone" if self.law.monotone else "none"


def resolve_system(system: object, default: str) -> ExperimentSystem:
    """A System, a network name or path, an InstanceLaw, or None (the ``default`` network)."""
    if system is None:
        system = default
    if isinstance(system, (str, PathLike)):
        from causalcost.network.netfile import load_network

        system = load_network(system)
    if isinstance(system, System):
        return ExperimentSystem(name=system.name, law=law_from_system(system), system=system)
    if isinstance(system, InstanceLaw):
        return ExperimentSystem(name="instance law", law=system)
    raise ValidationError(
        "system must be a System, a network name or file, an InstanceLaw or None, got "
        f"{type(system).__name__}")


def draw(system: ExperimentSystem, n1: int, n2: int, repetitions: int,
         rng: np.random.Generator, engine: str) -> StageDraws:
    """``repetitions`` two-stage evaluations with the chosen engine; assumes validated input."""
    if engine == "counts":
        return draw_stages(system.law, n1, n2, repetitions, rng)
    if system.system is None:
        raise ValidationError("engine 'instances' needs a network (a System or a network "
                              "file), not only an instance law")
    tables: list[list[np.ndarray]] = [[], [], [], []]
    for _ in range(repetitions):
        for stage, n in enumerate((n1, n2)):
            pos, neg = sample_instances(system.system, n, rng).cell_counts()
            tables[2 * stage].append(pos)
            tables[2 * stage + 1].append(neg)
    return stages_from_cells(*(np.stack(t).astype(np.int64) for t in tables))
