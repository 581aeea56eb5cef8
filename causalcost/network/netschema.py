"""The network-file schema: a parsed TOML document checked field by field into a specification.

Every check names the field (``models[1].sensitivity``, ``fusioner.k``) and the fix. Numbers must
be finite and fit in a float (``1e309`` and 400-digit integers are refused, not rounded to
infinity); lists have the lengths their tables need (no silent truncation, no ragged rows);
options belong to the rule that reads them (``k`` only with ``k_of_n``). The declarations go
through :class:`~causalcost.SystemBuilder`, which checks each table as it is added; pgmpy is not
imported until :meth:`NetworkSpec.build`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from causalcost.errors import CausalCostError, NetworkFileError, ValidationError
from causalcost.network.builder import SystemBuilder
from causalcost.network.exact_votes import exact_number

if TYPE_CHECKING:
    from causalcost.network.system import System

__all__ = ["FORMAT", "VERSION", "NetworkSpec", "from_document"]

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
_FUSIONER = {"rule", "name", "inputs", "k", "weights", "threshold", "tie", "divorce"}
#: Fusioner keys read by one rule only.
_RULE_KEYS = {"k": "k_of_n", "weights": "weighted", "threshold": "weighted", "tie": "majority"}


@dataclass(frozen=True)
class NetworkSpec:
    """A network file read and checked, not yet built (no pgmpy involved).

    Attributes
    ----------
    name, description : str
    slot : str or None
        The file's model under evaluation.
    models : tuple of str
        The member models, in declaration order.
    fusioner : str
        The fusioner's rule.
    file : str or None
        The file name it was read from.

    Examples
    --------
    >>> import causalcost as cc
    >>> spec = cc.read_network("majority3")
    >>> spec.models, spec.fusioner, spec.slot
    (('images', 'clinical_history', 'lab_tests'), 'majority', 'clinical_history')
    >>> spec.build().slot
    'clinical_history'
    """

    name: str
    description: str
    slot: str | None
    models: tuple[str, ...]
    fusioner: str
    file: str | None = None
    _builder: SystemBuilder | None = field(default=None, repr=False, compare=False)

    def build(self, slot: str | None = None) -> System:
        """The validated :class:`~causalcost.System` (``slot`` overrides the file's)."""
        if self._builder is None:
            raise NetworkFileError("this NetworkSpec was not read from a file: use read_network")
        try:
            return self._builder.build(slot=slot or self.slot)
        except CausalCostError as exc:
            if not self.file:
                raise
            raise type(exc)(f"{self.file}: {exc}") from None

    def summary(self) -> str:
        """One line: stem, slot, models, rule, description."""
        stem = (self.file or self.name).removesuffix(".toml")
        return (f"{stem:20s} slot={self.slot!s:18s} fusioner={self.fusioner:9s} "
                f"models={', '.join(self.models)}  ({self.description})")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {"name": self.name, "description": self.description, "slot": self.slot,
                "models": list(self.models), "fusioner": self.fusioner, "file": self.file}


def from_document(doc: dict[str, Any], *, file: str | None = None) -> NetworkSpec:
    """Check a parsed TOML document and declare it on a builder (not built)."""
    _check_keys(doc, _TOP, "the top level")
    if doc.get("format") != FORMAT or not isinstance(doc.get("format"), str):
        raise NetworkFileError(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version != VERSION:
        raise NetworkFileError(
            f"version must be the integer {VERSION} (version = {VERSION}), got {version!r}")
    name = _string(doc.get("name", "system"), "name")
    description = _string(doc["description"], "description") if "description" in doc else ""
    slot = _string(doc["slot"], "slot") if "slot" in doc else None
    cls = _check_keys(doc.get("class", {}), _CLASS, "[class]")
    prior = _number(cls["prior"], "class.prior") if "prior" in cls else None
    builder = SystemBuilder(
        prior, class_node=_string(cls.get("name", "Class"), "class.name"),
        positive=_string(cls.get("positive", "P"), "class.positive"),
        negative=_string(cls.get("negative", "N"), "class.negative"), name=name,
    )
    if "population" in doc:
        pop = _check_keys(doc["population"], _POPULATION, "[population]")
        states = _strings(_required(pop, "states", "population"), "population.states")
        builder.add_population(
            states,
            _distribution(_required(pop, "probabilities", "population"),
                          "population.probabilities", len(states)),
            _numbers(_required(pop, "class_positive", "population"), "population.class_positive",
                     len(states)),
            name=_string(pop.get("name", "Population"), "population.name"),
        )
    elif prior is None:
        raise NetworkFileError("class.prior is missing (required without a [population])")
    for i, node in enumerate(_array(doc, "nodes")):
        where = f"nodes[{i}]"
        _check_keys(node, _NODE, where)
        states = _strings(_required(node, "states", where), f"{where}.states")
        builder.add_node(
            _string(_required(node, "name", where), f"{where}.name"), states,
            _rows(_required(node, "cpd", where), f"{where}.cpd", len(states)),
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
    rule = _fusioner(doc, builder)
    return NetworkSpec(name, description, slot, builder.models, rule, file, builder)


def _fusioner(doc: dict[str, Any], builder: SystemBuilder) -> str:
    if "fusioner" not in doc:
        raise NetworkFileError("the [fusioner] table is missing (e.g. [fusioner] rule = \"and\")")
    fus = _check_keys(doc["fusioner"], _FUSIONER, "[fusioner]")
    rule = _string(_required(fus, "rule", "fusioner"), "fusioner.rule")
    for key, owner in _RULE_KEYS.items():
        if key in fus and rule != owner:
            raise NetworkFileError(
                f"fusioner.{key} is only read by rule {owner!r}, and the rule is {rule!r}: "
                f"remove {key} or set rule = {owner!r}")
    inputs = _strings(fus["inputs"], "fusioner.inputs") if "inputs" in fus else None
    if inputs is not None:
        repeated = sorted({m for m in inputs if inputs.count(m) > 1})
        if repeated:
            raise NetworkFileError(f"fusioner.inputs lists {repeated} more than once")
    weights: Any = fus.get("weights")
    if weights is not None:
        if isinstance(weights, dict):
            weights = {k: _vote_number(v, f"fusioner.weights.{k}")
                       for k, v in weights.items()}
        elif isinstance(weights, list):
            weights = [_vote_number(v, f"fusioner.weights[{i}]")
                       for i, v in enumerate(weights)]
        else:
            raise NetworkFileError(
                "fusioner.weights must be a table of model = weight (weights = { images = 2, "
                f"history = 1 }}) or a list with one number per input, got {weights!r}")
    k = fus.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int)):
        raise NetworkFileError(f"fusioner.k must be an integer, got {k!r}")
    divorce = fus.get("divorce")
    if divorce is not None and not isinstance(divorce, bool):
        raise NetworkFileError(f"fusioner.divorce must be true or false, got {divorce!r}")
    builder.set_fusioner(
        rule, name=_string(fus.get("name", "Fusioner"), "fusioner.name"), inputs=inputs, k=k,
        weights=weights,
        threshold=(_vote_number(fus["threshold"], "fusioner.threshold")
                   if "threshold" in fus else None),
        tie=_string(fus["tie"], "fusioner.tie") if "tie" in fus else None, divorce=divorce,
    )
    return rule


# -- field checks -----------------------------------------------------------------------------
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
        raise NetworkFileError(f"{where} must be a non-empty string, got {_short(value)}")
    return value


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise NetworkFileError(f"{where} must be a list of strings, got {_short(value)}")
    return [_string(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _number(value: Any, where: str, *, probability: bool = True) -> float:
    original = value
    if isinstance(value, str) and probability:
        try:
            value = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise NetworkFileError(
                f"{where} must be a number or a fraction like \"1/3\", got {_short(value)}"
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise NetworkFileError(f"{where} must be a number, got {_short(value)}")
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    if not math.isfinite(v):
        raise NetworkFileError(
            f"{where} must be a finite number that fits in a double, got {_short(original)}")
    if probability and not 0.0 <= v <= 1.0:
        raise NetworkFileError(f"{where} must be a probability in [0, 1], got {v!r}")
    return v


def _vote_number(value: Any, where: str) -> Fraction:
    """A weight or threshold, exactly as written: the file's decimal text (kept by the
    reader, see :class:`DecimalFloat`) as a rational, so the vote is decided exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise NetworkFileError(f"{where} must be a number, got {_short(value)}")
    text = getattr(value, "decimal_text", None)
    try:
        return exact_number(text if text is not None else value, where)
    except ValidationError as exc:
        raise NetworkFileError(str(exc)) from None


class DecimalFloat(float):
    """A TOML float that remembers its decimal text (``0.30000000000000001`` stays exact).

    Examples
    --------
    >>> x = DecimalFloat("100000000000000000001.0")
    >>> x == 1e20, x.decimal_text
    (True, '100000000000000000001.0')
    """

    decimal_text: str

    def __new__(cls, text: str) -> DecimalFloat:
        value = super().__new__(cls, text)
        value.decimal_text = text.replace("_", "")
        return value


def _numbers(value: Any, where: str, length: int | None = None) -> list[float]:
    if not isinstance(value, list):
        raise NetworkFileError(f"{where} must be a list of probabilities, got {_short(value)}")
    if length is not None and len(value) != length:
        raise NetworkFileError(f"{where} needs {length} values, got {len(value)}")
    return [_number(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _pair(value: Any, where: str) -> list[float]:
    if isinstance(value, list) and len(value) != 2:
        raise NetworkFileError(
            f"{where} needs two values (first model, second model), got {len(value)}")
    return _numbers(value, where, 2)


def _distribution(value: Any, where: str, length: int) -> list[float]:
    row = _numbers(value, where, length)
    if abs(sum(row) - 1.0) > 1e-9:
        raise NetworkFileError(f"{where} must sum to 1, sums to {sum(row):.12g}: {row}")
    return row


def _rows(value: Any, where: str, length: int) -> list[list[float]]:
    """One row per parent configuration, each a distribution over the ``length`` states."""
    if isinstance(value, list) and value and not isinstance(value[0], list):
        return [_distribution(value, where, length)]
    if not isinstance(value, list) or not value:
        raise NetworkFileError(f"{where} must be a list of rows (one per parent configuration)")
    return [_distribution(row, f"{where}[{i}]", length) for i, row in enumerate(value)]


def _array(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise NetworkFileError(f"{key} must be an array of tables ([[{key}]]), got {_short(value)}")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + f"... ({len(text)} characters)"
