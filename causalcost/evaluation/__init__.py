"""Judging candidates with a sheet and against the real system: reports (``evaluate``),
ranked comparisons (``compare``), candidate files, metrics, paired comparisons, label noise,
threshold sweeps and constant-slot warnings; backtests, slot importance, and scikit-learn
model selection by system cost.

This step sits above :mod:`causalcost.sheet` (it judges with sheets) and below the pictures
and the command line. Public names are re-exported by :mod:`causalcost`.
"""
