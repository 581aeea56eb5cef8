"""The bound band the explorer draws: best to worst case of the candidate's system cost."""

from __future__ import annotations

import html

from causalcost.display import format_number

__all__ = ["band_svg"]


def band_svg(best: float, expected: float, worst: float, high: float | None = None,
             high_name: str = "", width: float = 420.0) -> str:
    """The bound band as SVG: best to worst case, the expected cost marked inside and, if
    given, a high-confidence worst case beyond.

    >>> band_svg(1.0, 2.0, 3.0).startswith("<svg")
    True
    """
    values = [best, expected, worst] + ([high] if high is not None else [])
    top = max(values) or 1.0
    x = lambda v: 20 + (width - 40) * v / top  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="72">',
             f'<line x1="20" y1="28" x2="{width - 20:.0f}" y2="28" stroke="#bbb"/>',
             f'<rect x="{x(best):.1f}" y="18" width="'
             f'{max(x(worst) - x(best), 1.5):.1f}" height="20" '
             'fill="#f6b26b" fill-opacity="0.55" stroke="#a14a00"/>',
             f'<line x1="{x(expected):.1f}" y1="14" x2="{x(expected):.1f}" '
             'y2="42" stroke="#1f4e79" stroke-width="2.5"/>']
    labels = [(best, "best", "start", 54), (worst, "worst", "end", 54),
              (expected, "expected", "middle", 10)]
    if high is not None:
        parts.append(f'<line x1="{x(high):.1f}" y1="14" x2="{x(high):.1f}" y2="42" '
                     'stroke="#a40000" stroke-width="2" stroke-dasharray="4 2"/>')
        labels.append((high, high_name, "end", 68))
    for v, name, anchor, y in labels:
        parts.append(f'<text x="{x(v):.1f}" y="{y}" font-size="11" '
                     f'text-anchor="{anchor}" font-family="sans-serif">'
                     f"{html.escape(name)} {format_number(v)}</text>")
    parts.append("</svg>")
    return "".join(parts)
