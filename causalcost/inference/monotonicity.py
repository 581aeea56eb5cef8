"""The result of checking that a system is monotone in its slot (a value object, no pgmpy),
for any K: the binary check of :func:`causalcost.inference.intervene.check_monotonicity` and
the per-cost check of :func:`causalcost.pricing.monotonicity.check_monotonicity` return it.

Kept apart from :mod:`causalcost.inference.intervene`, which computes it, so that cost sheets and
reports can carry and read it without importing the network layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from causalcost.display import html_block, html_table

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MonotonicityCheck"]


@dataclass(frozen=True)
class MonotonicityCheck:
    """Result of :func:`check_monotonicity`, for any K.

    Attributes
    ----------
    slot, system_node : str
    is_monotone : bool
        Binary: True when, for every assignment of the other inputs, the system with the slot
        at P is at least as positive as with the slot at N. K labels: True when no instance
        costs more with the slot forced to its true class than to another label (for the
        costs checked).
    violation : dict, str or None
        When not monotone: a violating assignment of the other inputs (node -> state), or (K
        labels) the violating configuration in words.
    assignments : int
        How many assignments (configurations) were checked (0 when monotone by construction);
        also :attr:`checked`.
    method : str
        ``"enumeration"`` (every assignment checked), ``"by construction"`` (a vote
        fusioner in which the slot has a non-negative weight: nothing to enumerate) or ``"bin
        grid"`` (a score slot: every combination of the other models' score bins, the
        violation naming them and the slot's two bins where the decision goes from P to N).

    Examples
    --------
    >>> import causalcost as cc
    >>> check = cc.check_monotonicity(cc.load_network("thesis_or"))  # an OR vote
    >>> check.is_monotone, check.violation, check.method
    (True, None, 'by construction')
    >>> check
    MonotonicityCheck('Fusioner' in slot 'clinical_history': monotone by construction)
    >>> MonotonicityCheck("b", "S", False, {"a": "P"}, 2)
    MonotonicityCheck('S' in slot 'b': NOT monotone, e.g. at {'a': 'P'}; 2 assignments checked)
    """

    slot: str
    system_node: str
    is_monotone: bool
    violation: dict[str, str] | str | None
    assignments: int
    method: str = "enumeration"

    def __bool__(self) -> bool:
        return self.is_monotone

    @property
    def checked(self) -> int:
        """Assignments (configurations) checked: :attr:`assignments`."""
        return self.assignments

    def to_frame(self) -> pd.DataFrame:
        """One row: the fields of :meth:`to_dict` (a violation in words or as a dict)."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form."""
        return {"slot": self.slot, "system_node": self.system_node,
                "is_monotone": self.is_monotone, "violation": self.violation,
                "assignments": self.assignments, "method": self.method}

    def _repr_html_(self) -> str:
        if self.is_monotone:
            how = ("by construction: the slot votes with a non-negative weight"
                   if self.method == "by construction"
                   else f"every one of {self.assignments} assignments of the other inputs checked")
            text = [f"{self.system_node} is monotone in slot {self.slot}: forcing the slot to P "
                    f"never makes the system less positive ({how}). The monotone worst case "
                    "applies."]
            return html_block("Monotonicity check", text)
        import pandas as pd

        if isinstance(self.violation, str):
            return html_block("Monotonicity check", [
                f"{self.system_node} is NOT monotone in slot {self.slot} for these costs: "
                f"{self.violation}. Only the assumption-free worst case holds."])
        violation = pd.DataFrame([self.violation or {}], index=["a violating assignment"])
        text = [f"{self.system_node} is NOT monotone in slot {self.slot}: at the assignment "
                "below, the system says P with the slot at N but not with the slot at P. "
                "Only the assumption-free worst case holds."]
        return html_block("Monotonicity check", text, html_table(violation))

    def __repr__(self) -> str:
        verdict = "monotone" if self.is_monotone else (
            f"NOT monotone: {self.violation}" if isinstance(self.violation, str)
            else f"NOT monotone, e.g. at {self.violation}")
        how = (" by construction" if self.method == "by construction"
               else f"; {self.assignments} assignments checked")
        return f"MonotonicityCheck({self.system_node!r} in slot {self.slot!r}: {verdict}{how})"
