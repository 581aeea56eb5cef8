"""The network-file schema: a parsed TOML document checked field by field into a specification.

Every check names the field (``models[1].sensitivity``, ``fusioner.k``) and the fix. Numbers must
be finite and fit in a float (``1e309`` and 400-digit integers are refused, not rounded to
infinity); lists have the lengths their tables need (no silent truncation, no ragged rows);
options belong to the rule that reads them (``k`` only with ``k_of_n``). The declarations go
through :class:`~causalcost.SystemBuilder`, which checks each table as it is added; pgmpy is not
imported until :meth:`NetworkSpec.build`.

One reader takes both forms of the ``[class]`` table. Without ``labels`` it declares a binary
network (``positive``/``negative`` state names, ``prior = P(positive)``; populations, nodes,
correlated pairs, binary fusioners). With ``labels`` it declares a system by its K >= 2
labels::

    format = "causalcost-network"
    version = 1
    name = "triage"
    slot = "c"

    [class]
    labels = ["ok", "flu", "covid"]
    prior = [0.6, 0.3, 0.1]            # one probability per label

    [[latents]]                        # optional: correlates the models' errors
    name = "Difficulty"
    states = ["easy", "hard"]
    probabilities = [[0.8, 0.2], [0.7, 0.3], [0.5, 0.5]]   # one row, or one per label

    [[models]]
    name = "a"
    confusion = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]]   # rows: true label

    [[models]]
    name = "b"
    latent = "Difficulty"
    confusion = { easy = [[...]], hard = [[...]] }          # K x K rates per latent state

    [fusioner]
    rule = "plurality"                 # plurality, weighted, priority, k_of_n
    tie = "slot"                       # or a list of labels (plurality, weighted)
    # weights = [...] (weighted); order = [...] (priority); label, k (k_of_n)

Unknown keys are refused in both forms (the message lists the allowed ones).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from causalcost.errors import CausalCostError, NetworkFileError, ValidationError
from causalcost.network.builder import SystemBuilder
from causalcost.network.exact_votes import exact_number
from causalcost.network.fusioners import RULES
from causalcost.network.scores import SCORE_FUSIONERS, SCORE_KEYS

if TYPE_CHECKING:
    from causalcost.network.system import System

__all__ = ["FORMAT", "VERSION", "NetworkSpec", "from_document", "declares_labels"]

FORMAT = "causalcost-network"
VERSION = 1

_TOP = {"format", "version", "name", "description", "slot", "class", "population", "nodes",
        "models", "correlated", "fusioner"}
_CLASS = {"name", "positive", "negative", "prior"}
_POPULATION = {"name", "states", "probabilities", "class_positive"}
_NODE = {"name", "states", "parents", "cpd", "description"}
_MODEL = {"name", "sensitivity", "specificity", "parents", "positive_probability", "description",
          "scores"}
_CORRELATED = {"models", "sensitivity", "specificity", "correlation_positive",
               "correlation_negative", "latent"}
#: The vote rules of a binary file (score rules fuse score models instead).
_VOTES = RULES
_FUSIONER = {"rule", "name", "inputs", "k", "weights", "threshold", "tie", "divorce", "bias"}
#: The keys of a file declaring a system by its labels (``[class] labels = [...]``).
_LABELLED_TOP = {"format", "version", "name", "description", "slot", "class", "latents",
                 "models", "fusioner"}
_LABELLED_CLASS = {"name", "labels", "prior", "system_node"}
_LATENT = {"name", "states", "probabilities"}
_LABELLED_MODEL = {"name", "confusion", "latent"}
_LABELLED_FUSIONER = {"rule", "tie", "weights", "order", "label", "k"}
#: Fusioner keys read by some rules only (score rules: :mod:`causalcost.network.scores`).
_RULE_KEYS = {"k": ("k_of_n",), "weights": ("weighted", "mean", "logistic"),
              "threshold": ("weighted", *SCORE_FUSIONERS), "tie": ("majority",),
              "bias": ("logistic",), "divorce": _VOTES}


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
    labels : tuple of str
        The labels of a file that declares them (``[class] labels = [...]``); empty for the
        binary form.

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
    labels: tuple[str, ...] = ()

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
        labels = f"labels={', '.join(self.labels)} " if self.labels else ""
        return (f"{stem:20s} slot={self.slot!s:18s} fusioner={self.fusioner:9s} "
                f"{labels}models={', '.join(self.models)}  ({self.description})")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (with ``labels`` when the file declares them)."""
        out = {"name": self.name, "description": self.description, "slot": self.slot,
               "models": list(self.models), "fusioner": self.fusioner, "file": self.file}
        if self.labels:
            out["labels"] = list(self.labels)
        return out


def _header(doc: Any, top: set[str]) -> tuple[str, str, str | None]:
    """Keys, format and version checked; the name, description and slot."""
    _check_keys(doc, top, "the top level")
    if doc.get("format") != FORMAT or not isinstance(doc.get("format"), str):
        raise NetworkFileError(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version != VERSION:
        raise NetworkFileError(
            f"version must be the integer {VERSION} (version = {VERSION}), got {version!r}")
    name = _string(doc.get("name", "system"), "name")
    description = _string(doc["description"], "description") if "description" in doc else ""
    slot = _string(doc["slot"], "slot") if "slot" in doc else None
    return name, description, slot


def declares_labels(doc: Any) -> bool:
    """Whether a parsed network file declares its labels (``[class]`` has ``labels``)."""
    return isinstance(doc, dict) and isinstance(doc.get("class"), dict) and \
        "labels" in doc["class"]


def from_document(doc: dict[str, Any], *, file: str | None = None) -> NetworkSpec:
    """Check a parsed TOML document (either form of ``[class]``) and declare it on a builder
    (not built).

    >>> doc = {"format": "causalcost-network", "version": 1, "slot": "b",
    ...        "class": {"labels": ["x", "y", "z"], "prior": [0.5, 0.3, 0.2]},
    ...        "models": [{"name": n, "confusion": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1],
    ...                                              [0.1, 0.1, 0.8]]} for n in "ab"],
    ...        "fusioner": {"rule": "plurality", "tie": "slot"}}
    >>> spec = from_document(doc)
    >>> spec.labels, spec.models, spec.build().slot
    (('x', 'y', 'z'), ('a', 'b'), 'b')
    """
    if declares_labels(doc):
        return _labelled_document(doc, file)
    name, description, slot = _header(doc, _TOP)
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
        if "scores" in model:
            kwargs["scores"] = _check_keys(model["scores"], set(SCORE_KEYS), f"{where}.scores")
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
    for key, owners in _RULE_KEYS.items():
        if key in fus and rule not in owners:
            said = " or ".join(map(repr, owners))
            raise NetworkFileError(
                f"fusioner.{key} is only read by rule {said}, and the rule is {rule!r}: "
                f"remove {key} or set rule = {owners[0]!r}")
    inputs = _strings(fus["inputs"], "fusioner.inputs") if "inputs" in fus else None
    if inputs is not None:
        repeated = sorted({m for m in inputs if inputs.count(m) > 1})
        if repeated:
            raise NetworkFileError(f"fusioner.inputs lists {repeated} more than once")
    if rule in SCORE_FUSIONERS:  # fuses score models: weights, threshold and bias as floats
        return _score_fusioner(fus, rule, inputs, builder)
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


def _score_fusioner(fus: dict[str, Any], rule: str, inputs: list[str] | None,
                    builder: SystemBuilder) -> str:
    """``[fusioner]`` with a score rule (``mean``, ``max``, ``min``, ``logistic``)."""
    weights: Any = fus.get("weights")
    if isinstance(weights, dict):
        weights = {k: _number(v, f"fusioner.weights.{k}", probability=False)
                   for k, v in weights.items()}
    elif isinstance(weights, list):
        weights = [_number(v, f"fusioner.weights[{i}]", probability=False)
                   for i, v in enumerate(weights)]
    elif weights is not None:
        raise NetworkFileError(
            "fusioner.weights must be a table of model = weight (weights = { images = 2, "
            f"history = 1 }}) or a list with one number per input, got {_short(weights)}")
    options = {key: _number(fus[key], f"fusioner.{key}", probability=False)
               for key in ("threshold", "bias") if key in fus}
    builder.set_fusioner(rule, name=_string(fus.get("name", "Fusioner"), "fusioner.name"),
                         inputs=inputs, weights=weights, **options)
    return rule


def _table(value: Any, where: str, k: int) -> list[list[float]]:
    rows = _rows(value, where, k)
    if len(rows) != k:
        raise NetworkFileError(f"{where} needs {k} rows (one per true label), got {len(rows)}")
    return rows


def _labelled_document(doc: dict[str, Any], file: str | None) -> NetworkSpec:
    """:func:`from_document` for a file declaring its labels (``[class] labels = [...]``)."""
    name, description, slot = _header(doc, _LABELLED_TOP)
    cls = _check_keys(doc["class"], _LABELLED_CLASS, "[class]")
    labels = _strings(cls["labels"], "class.labels")
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise NetworkFileError(f"class.labels must be at least 2 distinct labels, got {labels}")
    k = len(labels)
    prior = _distribution(_required(cls, "prior", "class"), "class.prior", k)
    try:
        builder = SystemBuilder(
            prior, labels=labels, class_node=_string(cls.get("name", "Class"), "class.name"),
            system_node=_string(cls.get("system_node", "System"), "class.system_node"),
            name=name)
        for i, lat in enumerate(doc.get("latents", [])):
            where = f"latents[{i}]"
            lat = _check_keys(lat, _LATENT, where)
            states = _strings(_required(lat, "states", where), f"{where}.states")
            builder.add_latent(_string(_required(lat, "name", where), f"{where}.name"), states,
                               _rows(_required(lat, "probabilities", where),
                                     f"{where}.probabilities", len(states)))
        models = []
        for i, mod in enumerate(doc.get("models", [])):
            where = f"models[{i}]"
            mod = _check_keys(mod, _LABELLED_MODEL, where)
            mname = _string(_required(mod, "name", where), f"{where}.name")
            conf = _required(mod, "confusion", where)
            if "latent" in mod:
                latent = _string(mod["latent"], f"{where}.latent")
                if not isinstance(conf, dict):
                    raise NetworkFileError(f"{where}.confusion must be a table latent state = "
                                           "K x K rates when latent is given")
                rates: Any = {z: _table(v, f"{where}.confusion.{z}", k) for z, v in conf.items()}
                builder.add_model(mname, confusion=rates, latent=latent)
            else:
                builder.add_model(mname, confusion=_table(conf, f"{where}.confusion", k))
            models.append(mname)
        fus = _check_keys(_required(doc, "fusioner", "the top level") if "fusioner" in doc
                          else {}, _LABELLED_FUSIONER, "[fusioner]")
        rule = _string(_required(fus, "rule", "fusioner"), "fusioner.rule")
        options: dict[str, Any] = {}
        if "tie" in fus:
            options["tie"] = fus["tie"] if isinstance(fus["tie"], str) else _strings(
                fus["tie"], "fusioner.tie")
        if "weights" in fus:
            w = fus["weights"]
            if isinstance(w, dict):
                w = [w.get(m) for m in models]
            if not isinstance(w, list) or any(v is None for v in w):
                raise NetworkFileError("fusioner.weights must be a list (one per model) or a "
                                       "table model = weight covering every model")
            options["weights"] = [_number(v, f"fusioner.weights[{i}]", probability=False)
                                  for i, v in enumerate(w)]
        if "order" in fus:
            options["order"] = _strings(fus["order"], "fusioner.order")
        if "label" in fus:
            options["label"] = _string(fus["label"], "fusioner.label")
        if "k" in fus:
            options["k"] = fus["k"]
        builder.set_fusioner(rule, **options)
    except CausalCostError as exc:
        if isinstance(exc, NetworkFileError):
            raise
        raise NetworkFileError(str(exc)) from None
    return NetworkSpec(name, description, slot, tuple(models), rule, file, builder,
                       tuple(labels))


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
