"""The figure every drawing function returns: a matplotlib Figure that shows itself in Jupyter.

The drawing functions build their figures without pyplot (no GUI backend, nothing left open in
pyplot's list of figures). IPython shows a pyplot figure through the hooks the inline backend
registers, but a bare :class:`matplotlib.figure.Figure` it only prints as text
(``<Figure size 1000x420 with 3 Axes>``). :class:`NotebookFigure` is that same Figure with
IPython's rich-display methods, so ``cc.draw_coverage_heatmap(result)`` as the last line of a
cell shows the picture, in Jupyter and on the documentation site; ``savefig``, ``axes`` and
every other Figure method work as before.

Every drawing function in :mod:`causalcost.plotting` makes its figure with :func:`new_figure`
(a test checks that no other module there builds a bare ``Figure``).
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib.figure import Figure

__all__ = ["NotebookFigure", "new_figure"]

#: Resolution of the PNG shown in a notebook (the SVG is resolution-free).
DISPLAY_DPI = 100


class NotebookFigure(Figure):
    """A :class:`matplotlib.figure.Figure` that Jupyter displays as a picture.

    IPython asks an object for ``_repr_svg_`` and ``_repr_png_``; a front end shows the richest
    one it supports (JupyterLab and the documentation site the SVG, others the PNG). Both are
    drawn with a tight bounding box on white, as :func:`~causalcost.plotting.drawing.save_figure`
    writes them.

    Examples
    --------
    >>> from causalcost.plotting.figure import new_figure
    >>> fig = new_figure(figsize=(2, 1))
    >>> ax = fig.subplots()
    >>> fig._repr_png_()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    >>> "<svg" in fig._repr_svg_()
    True
    """

    def _render(self, fmt: str, **options: Any) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format=fmt, bbox_inches="tight", pad_inches=0.1,
                     facecolor="white", **options)
        return buffer.getvalue()

    def _repr_png_(self) -> bytes:
        """The figure as PNG bytes, for IPython's ``image/png`` output."""
        return self._render("png", dpi=DISPLAY_DPI)

    def _repr_svg_(self) -> str:
        """The figure as an SVG document, for IPython's ``image/svg+xml`` output."""
        return self._render("svg").decode("utf-8")


def new_figure(**kwargs: Any) -> NotebookFigure:
    """A new :class:`NotebookFigure`; ``kwargs`` go to :class:`matplotlib.figure.Figure`.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from causalcost.plotting.figure import new_figure
    >>> fig = new_figure(figsize=(10, 4.2), layout="constrained")
    >>> isinstance(fig, Figure), fig.get_size_inches().tolist()
    (True, [10.0, 4.2])
    """
    return NotebookFigure(**kwargs)
