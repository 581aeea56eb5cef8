"""Paths into a JSON value (nested dicts and lists), for the tests that tamper with sheets."""

from __future__ import annotations

from typing import Any


def paths(value: Any, prefix: tuple = (), depth: int | None = None) -> list[tuple]:
    """Every path to a value inside nested dicts and lists (to ``depth`` keys, if given)."""
    out = [prefix] if prefix else []
    if depth is not None and len(prefix) >= depth:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, (*prefix, k), depth)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, (*prefix, i), depth)
    return out


def parent(d: Any, path: tuple) -> Any:
    """The container holding the value at ``path``."""
    for key in path[:-1]:
        d = d[key]
    return d
