"""Derive a slot's sheet from a causal network: a network file, a shipped network or a System.

The slot's interventional table is computed from the network, exactly or by sampling (with
binomial intervals); the system's monotonicity in the slot is checked and stored, so the
monotone worst case is only used when it holds; the class prior is the network's unless class
counts or a prior are given; the provenance records the network file and its SHA-256. A
K-label system gives a sheet of K labels, its monotonicity checked for the costs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from causalcost.confusion import CostMatrix
from causalcost.errors import (
    CausalCostError,
    InputTypeError,
    MonotonicityError,
    NetworkStructureError,
    ValidationError,
)
from causalcost.inference.intervene import check_monotonicity
from causalcost.inference.monotonicity import MonotonicityCheck
from causalcost.sheet.costsheet import CostSheet
from causalcost.sheet.from_rates import derive_sheet
from causalcost.sheet.from_table import derive_labelled_sheet

__all__ = ["network_provenance", "sheet_from_network"]


def network_provenance(spec: str | Path) -> dict[str, Any]:
    """``{"source": "network", "network": .., "file": .., "sha256": ..}`` of a network file.

    Examples
    --------
    >>> p = network_provenance("thesis_and")
    >>> p["source"], p["file"], p["sha256"].startswith("sha256:")
    ('network', 'thesis_and.toml', True)
    """
    from causalcost.network.netfile import file_digest, network_path

    path = network_path(spec)
    return {"source": "network", "network": path.stem, "file": path.name,
            "sha256": file_digest(path)}


def sheet_from_network(
    network: Any,
    costs: CostMatrix,
    *,
    slot: str | None = None,
    method: str = "exact",
    samples: int = 100_000,
    seed: int | None = None,
    prior: float | None = None,
    class_counts: tuple[int, int] | None = None,
    assumption: str = "monotone",
    check: bool = True,
    confidence: float = 0.95,
    interval: str = "wilson",
    provenance: Mapping[str, Any] | None = None,
) -> CostSheet:
    """Derive a sheet from a network file, a shipped network's stem, or a :class:`System`.

    The table is computed with :func:`causalcost.interventional_table`; the network's
    monotonicity is checked (when every node between slot and system prediction is
    deterministic) and stored; without ``prior`` and ``class_counts`` the prior is the network's
    ``P(Class = P)``. For a file, the provenance records its name and SHA-256.

    Parameters
    ----------
    network : str, Path or System
        A binary or a K-label system (a K-label network file, or a system built with
        ``labels=``): the latter gives a sheet with labels, its monotonicity checked for
        ``costs`` (:func:`causalcost.check_monotonicity`).
    costs : CostMatrix or (K, K) matrix
        For K labels ``C[c, s]`` (rows the true class; labelled costs matched by name).
    slot : str, optional
        Defaults to the network's slot.
    method, samples, seed
        As in :func:`causalcost.interventional_table`.
    prior, class_counts, assumption
        As in :func:`derive_sheet`.
    check : bool, default True
        Run :func:`causalcost.check_monotonicity`. With ``check=False`` and the monotone
        assumption, the sheet records it as the system owner's declaration (unchecked, and every
        report says so).

    Examples
    --------
    >>> import causalcost as cc
    >>> sheet = sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1))
    >>> round(sheet.prior, 12), sheet.monotonicity["is_monotone"], sheet.provenance["file"]
    (0.333333333333, True, 'thesis_and.toml')
    """
    from causalcost.inference.exact import class_prior
    from causalcost.inference.query import interventional_table
    from causalcost.network.netfile import load_network
    from causalcost.network.system import System

    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise ValidationError(f"seed ({seed!r}) must be a non-negative integer or None: the sheet "
                              "records it so that the table can be sampled again")
    if getattr(network, "declaration", None) is not None:
        network = network if slot is None else network.with_slot(slot)
        return _labelled_from_network(
            network, costs, {"source": "network", "network": network.name,
                             "description": "built in Python (no network file)"},
            method=method, samples=samples, seed=seed, assumption=assumption, check=check,
            confidence=confidence, interval=interval, provenance=provenance)
    if isinstance(network, System):
        system = network if slot is None else network.with_slot(slot)
        source: dict[str, Any] = {"source": "network", "network": system.name,
                                  "description": "built in Python (no network file)"}
    elif isinstance(network, (str, Path)):
        system = load_network(network, slot=slot)
        source = network_provenance(network)
        source["network"] = system.name
        if getattr(system, "declaration", None) is not None:  # a K-label network file
            return _labelled_from_network(
                system, costs, source, method=method, samples=samples, seed=seed,
                assumption=assumption, check=check, confidence=confidence, interval=interval,
                provenance=provenance)
    else:
        raise InputTypeError(f"network must be a path, a shipped network name or a System, "
                             f"got {type(network).__name__}")
    if provenance is not None:
        source = dict(provenance)
    slot = system.require_slot()  # validated above (with_slot / load_network): read it
    if getattr(system, "score_fusioner", None) is not None:
        raise ValidationError(
            f"{system.name!r} fuses scores: its slot's states are score bins, and a cost sheet "
            "holds forced votes. Query its table T[c, bin, s] with cc.interventional_table; "
            "a score sheet is counted from a log of the models' scores (sheet_from_data on "
            "score runs; causalcost derive --data LOG --scores ...)")
    table = interventional_table(system, slot, method=method, samples=samples, seed=seed,
                                 confidence=confidence, interval=interval)
    monotonicity: MonotonicityCheck | str | None = None
    if check:
        try:
            monotonicity = check_monotonicity(system, slot)
        except NetworkStructureError as exc:
            if assumption == "monotone":
                raise MonotonicityError(
                    f"cannot verify the monotone assumption: {exc}. Pass assumption='none' "
                    "(--assumption none) "
                    "(assumption-free bounds), or check=False to assume monotonicity unverified"
                ) from None
    if not check and assumption == "monotone" and table.monotonicity is None:
        monotonicity = "declared"  # assumed unverified, as asked: every report says so
    if prior is None and class_counts is None:
        prior = class_prior(system)
    return derive_sheet(table, costs, system_name=system.name, prior=prior,
                        class_counts=class_counts, assumption=assumption,
                        monotonicity=monotonicity, provenance=source)


def _labelled_from_network(system: Any, costs: Any, source: dict[str, Any], *, method: str,
                           samples: int, seed: int | None, assumption: str, check: bool,
                           confidence: float, interval: str,
                           provenance: Mapping[str, Any] | None) -> CostSheet:
    """:func:`sheet_from_network` for a K-label system (its file already read)."""
    from causalcost.data.runs import cost_array
    from causalcost.inference.query import interventional_table
    from causalcost.pricing.monotonicity import check_monotonicity

    if provenance is not None:
        source = dict(provenance)
    slot = system.require_slot()
    matrix = cost_array(costs, system.labels)
    table = interventional_table(system, slot, method=method, samples=samples, seed=seed,
                                 confidence=confidence, interval=interval)
    evidence: Any = None
    if check:
        try:
            evidence = check_monotonicity(system, matrix, slot)
        except CausalCostError as exc:
            if assumption == "monotone":
                raise MonotonicityError(
                    f"cannot verify the monotone assumption: {exc}. Pass assumption='none' "
                    "(assumption-free bounds), or check=False to assume monotonicity "
                    "unverified") from None
    elif assumption == "monotone":
        evidence = "declared"  # assumed unverified, as asked: every report says so
    return derive_labelled_sheet(table, matrix, slot=slot, labels=system.labels,
                                 assumption=assumption, system_name=system.name,
                                 monotonicity=evidence, provenance=source)
