"""Network files: human-readable TOML declarations of a system, and BIF import/export.

A network file mirrors :class:`~causalcost.SystemBuilder` (see ``networks/*.toml``)::

    format = "causalcost-network"
    version = 1
    name = "thesis_and"
    slot = "clinical_history"          # the model under evaluation

    [class]
    prior = "1/3"                      # P(Class = P); a number or a fraction "a/b"

    [[models]]
    name = "images"
    sensitivity = 0.8
    specificity = 0.8

    [fusioner]
    rule = "and"

Tables: ``[class]`` (``name``, ``positive``, ``negative``, ``prior``), ``[population]``
(``name``, ``states``, ``probabilities``, ``class_positive``), ``[[nodes]]`` for features and
latents (``name``, ``states``, ``parents``, ``cpd``: one row per parent configuration),
``[[models]]`` (``name`` with ``sensitivity``/``specificity`` or ``parents``/
``positive_probability``), ``[[correlated]]`` (``models``, ``sensitivity``, ``specificity``,
``correlation_positive``, ``correlation_negative``, ``latent``), ``[fusioner]`` (``rule``,
``name``, ``inputs``, ``k``, ``weights``, ``threshold``, ``tie``). Unknown keys, wrong types and
bad probabilities are errors naming the field.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from causalcost.errors import CausalCostError, NetworkFileError, UnknownNameError
from causalcost.network.builder import SystemBuilder
from causalcost.network.system import System

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["load_network", "load_bif", "list_networks", "network_path", "FORMAT", "VERSION"]

FORMAT = "causalcost-network"
VERSION = 1

_TOP = {"format", "version", "name", "description", "slot", "class", "population", "nodes",
        "models", "correlated", "fusioner"}
_CLASS = {"name", "positive", "negative", "prior"}
_POPULATION = {"name", "states", "probabilities", "class_positive"}
_NODE = {"name", "states", "parents", "cpd", "description"}
_MODEL = {"name", "sensitivity", "specificity", "parents", "positive_probability", "description"}
_CORRELATED = {"models", "sensitivity", "specificity", "correlation_positive",
               "correlation_negative", "latent"}
_FUSIONER = {"rule", "name", "inputs", "k", "weights", "threshold", "tie"}


def list_networks() -> list[str]:
    """Stems of the networks shipped with causalcost.

    >>> "thesis_and" in list_networks()
    True
    """
    return sorted(p.name[:-5] for p in resources.files("causalcost.network.shipped").iterdir()
                  if p.name.endswith(".toml"))


def network_path(spec: str | Path) -> Path:
    """Resolve a file path, or the stem of a shipped network, to a file path."""
    path = Path(spec)
    if path.is_file():
        return path
    shipped = resources.files("causalcost.network.shipped") / f"{spec}.toml"
    if shipped.is_file():
        return Path(str(shipped))
    raise UnknownNameError(
        f"no network file {str(spec)!r}: give a path to a .toml or .bif file or one of the "
        f"shipped networks: {', '.join(list_networks())}"
    )


def file_digest(path: str | Path) -> str:
    """``sha256:<hex>`` of a file's bytes (provenance of derived artifacts)."""
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_network(spec: str | Path, *, slot: str | None = None) -> System:
    """Load a network file (or a shipped network by stem) into a validated System.

    Parameters
    ----------
    spec : str or Path
        A ``.toml`` network file, or the stem of a shipped network (``"thesis_and"``).
    slot : str, optional
        Overrides the file's ``slot``.

    Raises
    ------
    NetworkFileError
        Unknown keys, wrong types, bad probabilities (the message names the field).
    UnknownNameError
        No such file or shipped network.

    Examples
    --------
    >>> import causalcost as cc
    >>> cc.load_network("thesis_and").slot
    'clinical_history'
    >>> cc.load_network("majority3", slot="lab_tests").slot
    'lab_tests'
    """
    path = network_path(spec)
    if path.suffix.lower() == ".bif":
        raise NetworkFileError(
            f"{path.name} is a BIF file: load it with load_bif(path, class_node=..., "
            "system_node=..., positive=...)"
        )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise NetworkFileError(f"{path.name}: not valid TOML: {exc}") from None
    try:
        return _from_document(data, slot=slot)
    except CausalCostError as exc:
        raise type(exc)(f"{path.name}: {exc}") from None


def load_bif(
    path: str | Path,
    *,
    class_node: str,
    system_node: str,
    positive: str = "P",
    slot: str | None = None,
    models: Sequence[str] | None = None,
) -> System:
    """Read a BIF file (pgmpy's reader) and name its roles.

    A BIF file need not contain a confusion node: it is derived from class and system
    prediction. Every other check of :meth:`System.from_pgmpy` applies.

    Examples
    --------
    >>> import causalcost as cc, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "and.bif")
    >>> cc.load_network("thesis_and").to_bif(path)
    >>> again = cc.load_bif(path, class_node="Class", system_node="Fusioner",
    ...                     slot="clinical_history")
    >>> cc.error_rates(again)
    ErrorRates(e_P(P)=0.2, e_P(N)=1, e_N(P)=0.2, e_N(N)=0)
    """
    from causalcost.network._pgmpy import bif_reader

    file = Path(path)
    if not file.is_file():
        raise UnknownNameError(f"no BIF file {str(path)!r}")
    try:
        network = bif_reader(str(file)).get_model()
    except Exception as exc:  # pgmpy raises assorted parser errors
        raise NetworkFileError(f"{file.name}: cannot read as BIF: {exc}") from None
    confusion = "Confusion" if "Confusion" in network.nodes() else None
    try:
        return System.from_pgmpy(network, class_node=class_node, system_node=system_node,
                                 slot=slot, positive=positive, models=models,
                                 confusion_node=confusion, name=file.stem)
    except CausalCostError as exc:
        raise type(exc)(f"{file.name}: {exc}") from None


# -- the document schema ------------------------------------------------------------------
def _check_keys(table: Any, allowed: set[str], where: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise NetworkFileError(f"{where} must be a table, got {type(table).__name__}")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise NetworkFileError(
            f"unknown key(s) {unknown} in {where}; allowed keys: {sorted(allowed)}"
        )
    return table


def _required(table: dict[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise NetworkFileError(f"{where}.{key} is missing")
    return table[key]


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise NetworkFileError(f"{where} must be a non-empty string, got {value!r}")
    return value


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise NetworkFileError(f"{where} must be a list of strings, got {value!r}")
    return [_string(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _number(value: Any, where: str, *, probability: bool = True) -> float:
    if isinstance(value, str) and probability:
        try:
            value = float(Fraction(value.strip()))
        except (ValueError, ZeroDivisionError):
            raise NetworkFileError(
                f"{where} must be a number or a fraction like \"1/3\", got {value!r}"
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NetworkFileError(f"{where} must be a number, got {value!r}")
    v = float(value)
    if probability and not 0.0 <= v <= 1.0:
        raise NetworkFileError(f"{where} must be a probability in [0, 1], got {v!r}")
    return v


def _numbers(value: Any, where: str) -> list[float]:
    if not isinstance(value, list):
        raise NetworkFileError(f"{where} must be a list of probabilities, got {value!r}")
    return [_number(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _distribution(value: Any, where: str) -> list[float]:
    row = _numbers(value, where)
    if abs(sum(row) - 1.0) > 1e-9:
        raise NetworkFileError(f"{where} must sum to 1, sums to {sum(row):.12g}: {row}")
    return row


def _rows(value: Any, where: str) -> list[list[float]]:
    if isinstance(value, list) and value and not isinstance(value[0], list):
        return [_distribution(value, where)]
    if not isinstance(value, list) or not value:
        raise NetworkFileError(f"{where} must be a list of rows (one per parent configuration)")
    return [_distribution(row, f"{where}[{i}]") for i, row in enumerate(value)]


def _pair(value: Any, where: str) -> tuple[float, float]:
    values = _numbers(value, where)
    if len(values) != 2:
        raise NetworkFileError(f"{where} needs two values (one per model), got {len(values)}")
    return values[0], values[1]


def _from_document(doc: dict[str, Any], *, slot: str | None) -> System:
    _check_keys(doc, _TOP, "the top level")
    if doc.get("format") != FORMAT:
        raise NetworkFileError(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    if doc.get("version") != VERSION:
        raise NetworkFileError(f"version must be {VERSION}, got {doc.get('version')!r}")
    name = _string(doc.get("name", "system"), "name")
    if "description" in doc:
        _string(doc["description"], "description")
    cls = _check_keys(doc.get("class", {}), _CLASS, "[class]")
    prior = _number(cls["prior"], "class.prior") if "prior" in cls else None
    builder = SystemBuilder(
        prior, class_node=_string(cls.get("name", "Class"), "class.name"),
        positive=_string(cls.get("positive", "P"), "class.positive"),
        negative=_string(cls.get("negative", "N"), "class.negative"), name=name,
    )
    if "population" in doc:
        pop = _check_keys(doc["population"], _POPULATION, "[population]")
        builder.add_population(
            _strings(_required(pop, "states", "population"), "population.states"),
            _distribution(_required(pop, "probabilities", "population"),
                          "population.probabilities"),
            _numbers(_required(pop, "class_positive", "population"), "population.class_positive"),
            name=_string(pop.get("name", "Population"), "population.name"),
        )
    elif prior is None:
        raise NetworkFileError("class.prior is missing (required without a [population])")
    for i, node in enumerate(_array(doc, "nodes")):
        where = f"nodes[{i}]"
        _check_keys(node, _NODE, where)
        builder.add_node(
            _string(_required(node, "name", where), f"{where}.name"),
            _strings(_required(node, "states", where), f"{where}.states"),
            _rows(_required(node, "cpd", where), f"{where}.cpd"),
            parents=_strings(node.get("parents", []), f"{where}.parents"),
        )
    for i, model in enumerate(_array(doc, "models")):
        where = f"models[{i}]"
        _check_keys(model, _MODEL, where)
        kwargs: dict[str, Any] = {}
        for key in ("sensitivity", "specificity"):
            if key in model:
                kwargs[key] = _number(model[key], f"{where}.{key}")
        if "parents" in model:
            kwargs["parents"] = _strings(model["parents"], f"{where}.parents")
        if "positive_probability" in model:
            kwargs["positive_probability"] = _numbers(model["positive_probability"],
                                                      f"{where}.positive_probability")
        builder.add_model(_string(_required(model, "name", where), f"{where}.name"), **kwargs)
    for i, pair in enumerate(_array(doc, "correlated")):
        where = f"correlated[{i}]"
        _check_keys(pair, _CORRELATED, where)
        names = _strings(_required(pair, "models", where), f"{where}.models")
        if len(names) != 2:
            raise NetworkFileError(f"{where}.models must name two models, got {names}")
        builder.add_correlated_models(
            names[0], names[1],
            sensitivity=_pair(_required(pair, "sensitivity", where), f"{where}.sensitivity"),
            specificity=_pair(_required(pair, "specificity", where), f"{where}.specificity"),
            correlation_positive=_number(_required(pair, "correlation_positive", where),
                                         f"{where}.correlation_positive", probability=False),
            correlation_negative=_number(_required(pair, "correlation_negative", where),
                                         f"{where}.correlation_negative", probability=False),
            latent=_string(pair.get("latent", "Difficulty"), f"{where}.latent"),
        )
    if "fusioner" not in doc:
        raise NetworkFileError("the [fusioner] table is missing (e.g. [fusioner] rule = \"and\")")
    fus = _check_keys(doc["fusioner"], _FUSIONER, "[fusioner]")
    weights = fus.get("weights")
    if weights is not None:
        weights = {k: _number(v, f"fusioner.weights.{k}", probability=False)
                   for k, v in _check_keys(weights, set(weights), "fusioner.weights").items()}
    k = fus.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int)):
        raise NetworkFileError(f"fusioner.k must be an integer, got {k!r}")
    builder.set_fusioner(
        _string(_required(fus, "rule", "fusioner"), "fusioner.rule"),
        name=_string(fus.get("name", "Fusioner"), "fusioner.name"),
        inputs=_strings(fus["inputs"], "fusioner.inputs") if "inputs" in fus else None,
        k=k, weights=weights,
        threshold=(_number(fus["threshold"], "fusioner.threshold", probability=False)
                   if "threshold" in fus else None),
        tie=_string(fus.get("tie", "negative"), "fusioner.tie"),
    )
    if slot is None and "slot" in doc:
        slot = _string(doc["slot"], "slot")
    return builder.build(slot=slot)


def _array(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise NetworkFileError(f"{key} must be an array of tables ([[{key}]]), got {value!r}")
    return value
