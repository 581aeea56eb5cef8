"""How :class:`~causalcost.data.runs.ForcedRuns` show themselves: the picture of the system, a
frame, a JSON-ready dict, the text and HTML reprs (for any K)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from causalcost.confusion import CELLS
from causalcost.data.run_counts import label_frame
from causalcost.display import html_block, html_table
from causalcost.pricing.witness import KINDS

__all__ = ["RunsOutput"]


class RunsOutput:
    """The output methods of :class:`~causalcost.data.runs.ForcedRuns` (a base class of it)."""

    def picture(self, *, intervention: str | None = None, title: str | None = None) -> Any:
        """The system behind these runs, drawn as a network picture (a
        :class:`~causalcost.network.picture.SystemPicture`, SVG): truth column -> models ->
        fusioner (labelled with its rule) -> confusion, the slot highlighted; with
        ``intervention`` a label (``"P"`` or ``"N"`` for binary runs), the graph of
        ``do(slot = intervention)``. The title says what the system is (rule, models, data
        source and rows); K-label runs show their labels under the class and the output.

        >>> from causalcost.data.runs import ForcedRuns
        >>> from causalcost.network.fusioners import make_fusioner
        >>> runs = ForcedRuns(np.ones((2, 2, 2, 1), dtype=int), slot="a", models=("a", "b"),
        ...                   fusioner=make_fusioner("and", ["a", "b"]))
        >>> runs.picture().title
        'system from data: AND over a, b'
        """
        from causalcost.network.sketch import data_picture

        return data_picture(self.models, self.fusioner, slot=self.slot,
                            provenance=self.provenance, intervention=intervention, title=title)

    def to_frame(self) -> pd.DataFrame:
        """Binary runs: rows ``forced_p``, ``forced_n`` (and ``observed``, ``slot_model`` when
        the slot's column was counted); columns ``tp, fn, fp, tn`` (integers). K-label runs:
        every forced run as rows (``forced``, ``true``), columns the system's output."""
        if self.labels is not None:
            parts = {name: label_frame(self.forced[i], self.label_names)
                     for i, name in enumerate(self.label_names)}
            return pd.concat(parts, names=["forced"])
        rows = {"forced_p": self.forced_p, "forced_n": self.forced_n}
        if self.has_slot_column:
            rows.update(observed=self.observed, slot_model=self.slot_confusion)  # type: ignore[arg-type]
        return pd.DataFrame([[int(v) for v in m.cells()] for m in rows.values()],  # type: ignore[union-attr]
                            index=pd.Index(list(rows), name="run"), columns=list(CELLS))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: runs (integer cells), kinds, monotone_on_data, provenance."""
        if self.labels is not None:
            def rows(m: Any) -> list[list[int]] | None:
                return None if m is None else m.to_numpy().astype(np.int64).tolist()

            return {"labels": list(self.label_names), "slot": self.slot,
                    "models": list(self.models), "fusioner": self.fusioner.description,
                    "n": self.n, "forced": self.forced.tolist(), "observed": rows(self.observed),
                    "slot_model": rows(self.slot_model),
                    "kinds": self.response_kinds.to_frame().to_dict(orient="records"),
                    "monotone_on_data": self.monotone_on_data,
                    "provenance": dict(self.provenance)}

        def cells(m: Any) -> dict[str, int] | None:
            return None if m is None else {k: int(v) for k, v in m.to_dict().items()}

        return {
            "slot": self.slot, "models": list(self.models), "fusioner": self.fusioner.description,
            "n": self.n, "forced_p": cells(self.forced_p), "forced_n": cells(self.forced_n),
            "observed": cells(self.observed), "slot_model": cells(self.slot_confusion),
            "kinds": {c: dict(zip(KINDS, v)) for c, v in self._kind_counts().items()},
            "monotone_on_data": self.monotone_on_data, "provenance": dict(self.provenance),
        }

    def __repr__(self) -> str:
        where = self.provenance.get("engine")
        engine = f", engine={where}" if where else ""
        if self.labels is not None:
            sizes = ", ".join(f"{v} {lab}" for lab, v in zip(self.label_names,
                                                              self.class_sizes))
            head = (f"ForcedRuns(slot={self.slot!r}, fusioner={self.fusioner.description}, "
                    f"labels={list(self.label_names)}, n={self.n} ({sizes}){engine})")
            runs = "\n".join(f"  forced to {lab!r} (rows: true class, columns: system output):\n"
                             + _indent(label_frame(self.forced[j], self.label_names).to_string())
                             for j, lab in enumerate(self.label_names))
            observed = (f"None (no column {self.slot!r} counted)"
                        if self.observed is None else "\n" + _indent(
                            label_frame(self.observed.to_numpy().astype(np.int64),
                                        self.label_names).to_string()))
            return (f"{head}\n{runs}\n  observed: {observed}\n"
                    f"  kinds: {len(self.response_kinds.counts)} response vectors; "
                    f"monotone_on_data: {self.monotone_on_data}")
        pos, neg = self.forced_p.positives, self.forced_p.negatives
        head = (f"ForcedRuns(slot={self.slot!r}, fusioner={self.fusioner.description}, "
                f"n={self.n} ({pos:.0f} P, {neg:.0f} N){engine})")
        observed_text = (repr(self.observed) if self.has_slot_column
                         else f"None (no column {self.slot!r} counted)")
        kinds = "\n".join(f"  kinds {c}:  " + ", ".join(f"{k}={v}" for k, v in zip(KINDS, vs))
                          for c, vs in self._kind_counts().items())
        return (f"{head}\n  forced_p: {self.forced_p!r}\n  forced_n: {self.forced_n!r}\n"
                f"  observed: {observed_text}\n{kinds}\n  monotone_on_data: "
                f"{self.monotone_on_data}")

    def _repr_html_(self) -> str:
        if self.labels is not None:
            tables = [html_table(label_frame(self.forced[j], self.label_names),
                                 caption=f"Slot forced to {lab}")
                      for j, lab in enumerate(self.label_names)]
            return html_block(repr(self).splitlines()[0], *tables,
                              html_table(self.response_kinds.to_frame(),
                                         caption="Instance kinds"))
        return html_block(repr(self), html_table(self.to_frame(), caption="Forced runs"),
                          html_table(self.kinds, caption="How each instance reacts to the slot"))


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())
