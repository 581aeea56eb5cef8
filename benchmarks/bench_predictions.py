"""Time the one reader of predictions: 10^4 candidates' predictions on 1,000 rows, for K = 2, 3
and 4 labels, each counted into a Confusion (what ``compare(sheet, y_true=, predictions=)``
reads before it prices anything).

Run with ``python benchmarks/bench_predictions.py``. Predictions are random labels, integers
0/1 for K = 2 (the binary rules) and text labels for K > 2 (``labels=`` given). Prints the
seconds of one pass per K.
"""

from __future__ import annotations

import time

import numpy as np

from causalcost.evaluation.candidates import candidates_frame, confusions_from_predictions

N_CANDIDATES = 10_000
N_ROWS = 1_000
NAMES = ["ok", "flu", "covid", "cold"]


def draw(rng: np.random.Generator, k: int) -> np.ndarray:
    """One column of predictions: 0/1 integers for two labels, text labels for more."""
    return rng.integers(0, 2, N_ROWS) if k == 2 else rng.choice(NAMES[:k], N_ROWS)


def main() -> None:
    rng = np.random.default_rng(0)
    for k in (2, 3, 4):
        labels = None if k == 2 else NAMES[:k]
        y = draw(rng, k)
        predictions = {f"m{i}": draw(rng, k) for i in range(N_CANDIDATES)}
        start = time.perf_counter()
        confusions = confusions_from_predictions(y, predictions=predictions, labels=labels)
        read = time.perf_counter() - start
        start = time.perf_counter()
        candidates_frame(confusions)
        frame = time.perf_counter() - start
        print(f"K={k}: {N_CANDIDATES} candidates x {N_ROWS} rows read in {read:.2f} s, "
              f"candidate frame {frame:.2f} s")


if __name__ == "__main__":
    main()
