"""Write the sample logs the README and the guides read: ``python examples/make_logs.py``.

One system, 400 logged instances, three models ``a``, ``b``, ``c`` and two candidates for the
slot ``b``, ``new1`` and ``new2``; the true class ``y`` is 1 (P) on about 35 % of the rows.

* ``scores_log.csv``: each model's score for P, in [0, 1], three decimals. A system that fuses
  scores (soft voting: ``--fusioner mean``) reads this file.
* ``votes_log.csv``: the same instances, each score turned into a vote (1 when the score
  reaches 0.5). A system that counts votes (``--fusioner majority``, ``and``, ``or``) reads
  this file.

The models are of different quality and their errors are correlated: every model reads the
same noisy signal of the instance (a hard instance misleads them together) plus noise of its
own. ``a`` is the best, ``c`` the weakest; ``new1`` is sharper than ``b`` but leans on the
shared signal, ``new2`` reads more of its own.

The numbers come from Python's own generator (``random.Random``) with a fixed seed, whose
sequence does not change between Python versions, so the files are the same on every run;
``tests/test_doc_commands.py`` rewrites them in a scratch folder and compares them byte for
byte. Nothing in the ``causalcost`` package reads them.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

SEED = 20250601
ROWS = 400
POSITIVE_SHARE = 0.35
#: Per column: (weight of the shared signal, own noise, scale of the logit, offset).
MODELS = {
    "a": (1.0, 0.55, 2.2, 0.0),
    "b": (1.0, 0.95, 1.6, -0.1),
    "c": (1.0, 1.25, 1.4, 0.15),
    "new1": (1.0, 0.70, 2.6, -0.15),
    "new2": (0.55, 0.80, 2.0, 0.05),
}
#: How far the shared signal sits from 0 for each class, and how noisy it is.
SEPARATION, SHARED_NOISE = 0.9, 0.75


def logs(seed: int = SEED, rows: int = ROWS) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """The header and the rows (as text) of the score log and of the vote log."""
    rng = random.Random(seed)
    header = ["y", *MODELS]
    scores, votes = [], []
    for _ in range(rows):
        y = int(rng.random() < POSITIVE_SHARE)
        shared = (SEPARATION if y else -SEPARATION) + rng.gauss(0.0, SHARED_NOISE)
        own_signal = (SEPARATION if y else -SEPARATION) + rng.gauss(0.0, SHARED_NOISE)
        row_scores, row_votes = [str(y)], [str(y)]
        for weight, noise, scale, offset in MODELS.values():
            # a weight below 1 reads the rest of the signal from features of its own
            signal = weight * shared + (1.0 - weight) * own_signal
            logit = scale * (signal + rng.gauss(0.0, noise)) + offset
            score = round(1.0 / (1.0 + math.exp(-logit)), 3)
            row_scores.append(f"{score:.3f}")
            row_votes.append(str(int(score >= 0.5)))
        scores.append(row_scores)
        votes.append(row_votes)
    return header, scores, votes


def write(folder: Path) -> list[Path]:
    """Write ``scores_log.csv`` and ``votes_log.csv`` into ``folder``; return their paths."""
    header, scores, votes = logs()
    written = []
    for name, rows in (("scores_log.csv", scores), ("votes_log.csv", votes)):
        path = folder / name
        lines = [",".join(header), *(",".join(row) for row in rows)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
        written.append(path)
    return written


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for path in write(out):
        print(path)
