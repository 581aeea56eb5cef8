"""Is a K-label system monotone in its slot for given costs? Checked exactly.

The monotone bound (MULTICLASS.md) assumes, per instance, ``C[c, r(c)] <= C[c, r(j)]`` for
every forced label ``j``: the slot being right never makes the system's output dearer. For a
deterministic fusioner the response vector of an instance is fixed by the other models'
votes, so the check runs over every class ``c`` and every configuration of the other models'
votes with nonzero probability (count or score vectors for fusioners that read only those),
and names the first violation. Plurality with 0/1 costs passes; with general costs and
K >= 3 it can fail (the note's example). A stochastic pgmpy table is refused (its response
vectors are not fixed by the votes).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from causalcost.errors import ValidationError
from causalcost.inference.multiclass_exact import MAX_CONFIGURATIONS, score_distribution
from causalcost.network.multiclass_system import MulticlassSystem
from causalcost.pricing.multiclass_inputs import check_costs

__all__ = ["MulticlassMonotonicity", "check_multiclass_monotonicity"]


@dataclass(frozen=True)
class MulticlassMonotonicity:
    """The result of :func:`check_multiclass_monotonicity`.

    Attributes
    ----------
    is_monotone : bool
    violation : str or None
        The violating configuration, in words (class, the other models' votes, the outputs
        with the slot right and with the slot forced to the dearer label, their costs).
    checked : int
        Configurations checked (per class, summed).
    """

    is_monotone: bool
    violation: str | None
    checked: int

    def to_frame(self) -> pd.DataFrame:
        """One row: is_monotone, violation, checked."""
        return pd.DataFrame([{"is_monotone": self.is_monotone, "violation": self.violation,
                              "checked": self.checked}])


def _configurations(system: MulticlassSystem, c: int, slot: int):  # noqa: ANN202 - generator
    """Yield (description, outputs per forced label) for every reachable configuration."""
    f, k, labels = system.fusioner, system.k, system.labels
    support = np.zeros((len(system.models), k), dtype=bool)
    for p, z in system.latent_configurations(c):
        if p > 0:
            support |= system.vote_rates(c, z) > 0
    others = [i for i in range(len(system.models)) if i != slot]
    if f.kind in ("plurality", "priority", "k_of_n", "weighted"):
        w = list(f.score_weights)  # exact integers: ties are exact
        rates = support[others].astype(float)
        dist = score_distribution(rates, [w[i] for i in others] if f.kind == "weighted"
                                  else None)
        for key in dist:
            outs = []
            for j in range(k):
                scores = list(key)
                scores[j] += w[slot] if f.kind == "weighted" else 1
                outs.append(f.from_counts(scores, j))
            what = "scores" if f.kind == "weighted" else "votes"
            unit = f.score_unit if f.kind == "weighted" else 1
            desc = f"other models' {what} " + str({labels[s]: (int(v * unit) if (
                v * unit) == int(v * unit) else float(v * unit)) for s, v in enumerate(key) if v})
            yield desc, outs
        return
    configurations = int(np.prod([np.count_nonzero(support[i]) for i in others]))
    if configurations > MAX_CONFIGURATIONS:
        raise ValidationError(
            f"checking this fusioner means {configurations:,} vote configurations (more than "
            f"{MAX_CONFIGURATIONS:,}); use a rule that reads only the vote counts, or the "
            "assumption-free or kinds bound")
    for combo in itertools.product(*(np.flatnonzero(support[i]) for i in others)):
        votes = [0] * len(system.models)
        for i, v in zip(others, combo):
            votes[i] = int(v)
        outs = []
        for j in range(k):
            votes[slot] = j
            outs.append(f.output(votes, j))
        desc = "other models' votes " + str({system.models[i]: labels[v]
                                             for i, v in zip(others, combo)})
        yield desc, outs


def check_multiclass_monotonicity(system: MulticlassSystem, costs: object,
                                  slot: str | None = None) -> MulticlassMonotonicity:
    """Check, exactly, that forcing the slot to the right label never makes the output dearer.

    Parameters
    ----------
    system : MulticlassSystem
    costs : array (K, K)
        ``C[c, s]`` (true class, system output).
    slot : str, optional
        Default: the system's slot.

    Returns
    -------
    MulticlassMonotonicity
        Pass it to :func:`~causalcost.multiclass_bound` as ``monotonicity=``.

    Examples
    --------
    The note's example: plurality of 4 models, ties to the first label, is monotone for 0/1
    costs but not when outputting ``z`` on an ``x`` instance is dearer than ``y``:

    >>> import causalcost as cc
    >>> b = cc.SystemBuilder([0.4, 0.3, 0.3], labels=["x", "y", "z"])
    >>> for m in "abcd":
    ...     _ = b.add_model(m, confusion=np.full((3, 3), 1 / 3))
    >>> s = b.set_fusioner("plurality").build(slot="d")
    >>> check_multiclass_monotonicity(s, 1 - np.eye(3)).is_monotone
    True
    >>> r = check_multiclass_monotonicity(s, [[0, 1, 5], [1, 0, 1], [1, 1, 0]])
    >>> r.is_monotone
    False
    >>> import textwrap
    >>> print(textwrap.fill(r.violation, 70))
    class 'x', other models' votes {'y': 1, 'z': 2}: slot right ('x')
    gives output 'z' (cost 5), slot forced to 'y' gives 'y' (cost 1)
    """
    slot = system.require_slot(slot)
    c_arr = check_costs(costs, system.k)
    i = system.models.index(slot)
    labels = system.labels
    checked = 0
    if system.fusioner.table is not None and not np.all(
            np.isin(system.fusioner.table, (0.0, 1.0))):
        return MulticlassMonotonicity(False, "the system node's table is not deterministic, so "
                                      "an instance's response vector is not fixed by the votes;"
                                      " monotonicity cannot be established", 0)
    for c in range(system.k):
        for desc, outs in _configurations(system, c, i):
            checked += 1
            right = c_arr[c, outs[c]]
            for j in range(system.k):
                if c_arr[c, outs[j]] < right:
                    return MulticlassMonotonicity(False, (
                        f"class {labels[c]!r}, {desc}: slot right ({labels[c]!r}) gives output "
                        f"{labels[outs[c]]!r} (cost {right:g}), slot forced to {labels[j]!r} "
                        f"gives {labels[outs[j]]!r} (cost {c_arr[c, outs[j]]:g})"), checked)
    return MulticlassMonotonicity(True, None, checked)
