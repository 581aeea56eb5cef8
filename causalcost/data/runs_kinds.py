"""How each instance reacts to the slot, for any K: the kinds views of
:class:`~causalcost.data.runs.ForcedRuns` (binary: never / wrong_only / always / right_only;
K labels: the response vectors) and the monotone assumption checked on the rows."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CLASSES
from causalcost.data.run_counts import N, P, cost_array
from causalcost.pricing.responses import Kinds
from causalcost.pricing.witness import KINDS

__all__ = ["RunKinds"]


class RunKinds:
    """The kinds of :class:`~causalcost.data.runs.ForcedRuns` (a base class of it)."""

    def _kind_counts(self) -> dict[str, list[int]]:
        c = self.forced_kinds_array()
        # class P: the slot is right when forced to P, and the system right when it votes P;
        # class N: right when forced to N, the system right when it votes N.
        out = {"P": [c[P, P, P], c[P, P, N], c[P, N, N], c[P, N, P]],
               "N": [c[N, N, N], c[N, P, N], c[N, P, P], c[N, N, P]]}
        return {k: [int(v) for v in vs] for k, vs in out.items()}

    def forced_kinds_array(self) -> np.ndarray:
        """K = 2: instances by (class, forced-P vote, forced-N vote)."""
        self._binary_view("the binary kinds")
        if self.counts is not None:
            return self.counts.sum(axis=3)
        out = np.zeros((2, 2, 2), dtype=np.int64)
        pat = self._patterns()
        np.add.at(out, (pat.classes, pat.responses[:, 0], pat.responses[:, 1]), pat.sizes)
        return out

    @property
    def response_kinds(self) -> Kinds:
        """Instances per (class, response vector), for any K: the input of the exact kinds
        bound (``cc.bound(kinds=...)``)."""
        pat = self._patterns()
        found: dict[tuple[int, tuple[int, ...]], int] = {}
        for c, r, n in zip(pat.classes.tolist(), map(tuple, pat.responses.tolist()),
                           pat.sizes.tolist()):
            if n:
                found[(c, r)] = found.get((c, r), 0) + int(n)
        return Kinds(self.label_names, dict(sorted(found.items())))

    @property
    def kinds(self) -> pd.DataFrame | Kinds:
        """The instance kinds. Binary runs: a frame (index ``class``: P, N; columns
        ``never``, ``wrong_only``, ``always``, ``right_only``: never fails, fails only when the
        slot is wrong, always fails, fails only when the slot is right). K-label runs: the
        response vectors (:attr:`response_kinds`)."""
        if self.labels is not None:
            return self.response_kinds
        counts = self._kind_counts()
        return pd.DataFrame([counts[c] for c in CLASSES],
                            index=pd.Index(list(CLASSES), name="class"),
                            columns=list(KINDS), dtype=np.int64)

    def monotone_for(self, costs: Any) -> bool:
        """Whether, on these rows, no instance costs more with the slot forced to its true
        class than forced to some other label: ``C[c, r(c)] <= C[c, r(j)]`` for every ``j``
        (the monotone assumption, per instance, for these costs)."""
        arr = cost_array(costs, self.label_names)
        pat = self._patterns()
        own = arr[pat.classes, pat.responses[np.arange(len(pat.classes)), pat.classes]]
        cheapest = arr[pat.classes[:, None], pat.responses].min(axis=1)
        return bool(((own <= cheapest) | (pat.sizes == 0)).all())

    @property
    def monotone_on_data(self) -> bool:
        """No instance fails only when the slot is right (the specification holds on these
        rows): :meth:`monotone_for` with 0/1 costs."""
        if self.labels is None:
            return all(v[3] == 0 for v in self._kind_counts().values())
        return self.monotone_for(1 - np.eye(self.k))
