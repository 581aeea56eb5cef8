"""One entry point for the interventional table, whichever way it is computed."""

from __future__ import annotations

from causalcost.errors import InputTypeError, ValidationError
from causalcost.inference.exact import exact_table_of
from causalcost.inference.sampling import sampled_table_of
from causalcost.inference.table import ErrorRates, InterventionalTable
from causalcost.network.system import System

__all__ = ["interventional_table", "error_rates", "METHODS"]

#: Methods accepted by :func:`interventional_table`.
METHODS = ("exact", "sampling")


def interventional_table(
    system: System,
    slot: str | None = None,
    *,
    method: str = "exact",
    samples: int = 100_000,
    seed: int | None = None,
    confidence: float = 0.95,
    interval: str = "wilson",
    progress: bool | None = None,
) -> InterventionalTable:
    """``T[c, j, s] = P(S = s | Class = c, do(slot = j))`` for every class, slot state and
    output; for a binary network also its view ``P(Conf^S | Class = c, do(slot = x))``.

    One entry point for every K: a network of any shape (binary) is contracted exactly
    (:mod:`causalcost.inference.exact`) or forward-sampled
    (:mod:`causalcost.inference.sampling`); a system declared by its labels goes through the
    vote-splitting engine (:mod:`causalcost.inference.label_votes`). Both sample at most
    ``10**9`` instances. A score slot (a model declared with ``scores=``,
    :mod:`causalcost.network.scores`) has one state per score bin: ``T`` has shape
    ``(2, J, 2)`` over its ``J`` bins (:attr:`InterventionalTable.states`), exact or sampled,
    and carries whether the rule is monotone in the slot on the bin grid.

    Parameters
    ----------
    system : System
    slot : str, optional
        The model to intervene on; defaults to the system's slot.
    method : {"exact", "sampling"}
        Exact contraction of the mutilated network, or forward sampling with intervals.
    samples, seed, confidence, interval, progress
        Sampling only: simulated instances (at most ``10**9``,
        :data:`~causalcost.inference.sampling.MAX_SAMPLES`: about two minutes per slot on a
        small network; more is refused), random seed (non-negative), interval level and
        method (``"wilson"`` or ``"clopper-pearson"``), progress bar (None: automatic, on a
        terminal for long runs). Memory does not grow with ``samples``.

    Examples
    --------
    >>> import causalcost as cc
    >>> t = cc.interventional_table(cc.load_network("thesis_or"))
    >>> t.error_rates.to_dict()
    {'P': {'P': 0.0, 'N': 0.75}, 'N': {'P': 1.0, 'N': 0.5}}
    >>> round(t.probability("N", "N", "TN"), 6)
    0.5
    """
    if not isinstance(system, System):
        raise InputTypeError(f"system must be a causalcost System, got {type(system).__name__}")
    if method not in METHODS:
        raise ValidationError(
            f"method ({method!r}) must be one of {', '.join(map(repr, METHODS))}")
    slot = system.require_slot(slot)  # validated once, here
    if system.declaration is not None:  # declared by its labels: the vote-splitting engine
        from causalcost.inference.label_votes import label_exact_table, label_sampled_table

        if method == "exact":
            return label_exact_table(system, slot)
        return label_sampled_table(system, slot, samples=samples, seed=seed,
                                   confidence=confidence, interval=interval)
    if method == "exact":
        return exact_table_of(system, slot)
    return sampled_table_of(system, slot, samples=samples, seed=seed, confidence=confidence,
                            interval=interval, progress=progress)


def error_rates(system: System, slot: str | None = None, **kwargs: object) -> ErrorRates:
    """The four interventional error rates ``e_P(P), e_P(N), e_N(P), e_N(N)`` of the slot.

    Keyword arguments go to :func:`interventional_table`.

    Examples
    --------
    >>> import causalcost as cc
    >>> cc.error_rates(cc.load_network("thesis_and"))
    ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0)
    """
    return interventional_table(system, slot, **kwargs).error_rates  # type: ignore[arg-type]
