"""Count: from logged predictions to forced-run confusion matrices, on any data frame engine.

A table of logged predictions (one row per instance: the true class and each model's vote) is
turned into the runs the method needs (the system with the slot forced to each label: P and N
for a binary log, each of K labels with ``labels=[...]``), the system as deployed, and the
instance kinds, by one group-by that the engine holding the data runs (pandas, polars,
pyarrow, DuckDB, Dask, PySpark, through narwhals): only the counts come back. One runs type,
:class:`~causalcost.data.runs.ForcedRuns`, holds them for any K.

A log of scores (soft voting, stacking, max, min of the models' scores) is read by the same
:func:`~causalcost.data.forced_runs.forced_runs` with a score fusioner into a
:class:`~causalcost.data.score_runs.ScoreRuns`: each row's critical score in the slot,
computed by the engine (``score_log``) and made exact at the observed scores
(``critical_scores``).

``frames`` wraps any input, ``labels`` reads truth and prediction columns as votes (and says
which values are not labels), ``votes`` evaluates a fusioner on numpy arrays and as engine
expressions, ``counting`` runs the group-by on binary votes, ``patterns`` counts K-label vote
patterns, ``forced_runs`` and ``runs`` compute and hold the result, ``predictions`` counts
a candidate's confusion and ``readers`` scans CSV and parquet
files lazily. Public names are re-exported by :mod:`causalcost`.
"""
