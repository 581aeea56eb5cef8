"""Shared K-label systems for the judge's parity tests: logs, runs and sheets for K = 2, 3, 4."""

from __future__ import annotations

import numpy as np
import pandas as pd

import causalcost as cc

CREATED = "2026-01-01T00:00:00+00:00"
MODELS = ["m1", "m2", "m3"]


def labels_of(k: int) -> list[str]:
    return ["covid", "flu", "ok", "cold"][:k]


def costs_of(k: int) -> np.ndarray:
    c = np.arange(1, k * k + 1, dtype=float).reshape(k, k) % 5 + 1
    np.fill_diagonal(c, 0.0)
    return c


def log(k: int, n: int = 400, seed: int = 0, right: float = 0.6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = labels_of(k)
    y = rng.integers(0, k, n)
    cols = {"truth": [names[i] for i in y]}
    for m in [*MODELS, "cand", "cand2"]:
        vote = np.where(rng.random(n) < right, y, rng.integers(0, k, n))
        cols[m] = [names[i] for i in vote]
    return pd.DataFrame(cols)


def runs_of(k: int, frame: pd.DataFrame):
    return cc.forced_runs(frame, truth="truth", models=MODELS, slot="m2", fusioner="plurality",
                          labels=labels_of(k))


def sheet_of(k: int, frame: pd.DataFrame, kinds: bool = True, assumption: str = "none"):
    return cc.derive_sheet(runs_of(k, frame), costs_of(k), system_name="zoo",
                               created=CREATED, kinds=kinds, assumption=assumption)


def real_cost(k: int, frame: pd.DataFrame, column: str) -> float:
    """The real system cost with ``column`` in the slot, by a numpy count (no causalcost)."""
    names = labels_of(k)
    index = {n: i for i, n in enumerate(names)}
    y = frame["truth"].map(index).to_numpy()
    votes = np.stack([frame[m].map(index).to_numpy() for m in ["m1", column, "m3"]], axis=1)
    counts = np.stack([(votes == j).sum(axis=1) for j in range(k)], axis=1)
    out = np.argmax(counts, axis=1)  # plurality, ties to the first label
    return float(costs_of(k)[y, out].sum())
