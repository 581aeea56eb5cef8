"""The result of checking that a system is monotone in its slot (a value object, no pgmpy).

Kept apart from :mod:`causalcost.inference.intervene`, which computes it, so that cost sheets and
reports can carry and read it without importing the network layer.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MonotonicityCheck"]


@dataclass(frozen=True)
class MonotonicityCheck:
    """Result of :func:`check_monotonicity`.

    Attributes
    ----------
    slot, system_node : str
    is_monotone : bool
        True when, for every assignment of the other inputs, the system with the slot at P is
        at least as positive as with the slot at N.
    violation : dict or None
        A violating assignment of the other inputs (node -> state), when not monotone.
    assignments : int
        How many assignments were checked.

    Examples
    --------
    >>> import causalcost as cc
    >>> check = cc.check_monotonicity(cc.load_network("thesis_or"))
    >>> check.is_monotone, check.violation, check.assignments
    (True, None, 2)
    """

    slot: str
    system_node: str
    is_monotone: bool
    violation: dict[str, str] | None
    assignments: int

    def __bool__(self) -> bool:
        return self.is_monotone

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"slot": self.slot, "system_node": self.system_node,
                "is_monotone": self.is_monotone, "violation": self.violation,
                "assignments": self.assignments}

    def __repr__(self) -> str:
        verdict = "monotone" if self.is_monotone else f"NOT monotone, e.g. at {self.violation}"
        return (f"MonotonicityCheck({self.system_node!r} in slot {self.slot!r}: {verdict}; "
                f"{self.assignments} assignments checked)")
