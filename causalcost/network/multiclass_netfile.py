"""Network files for K-label systems: ``[class]`` with ``labels``.

A network file whose ``[class]`` table has ``labels`` declares a K-label system (the binary
format is unchanged)::

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

Keys are checked as in the binary format (unknown keys and bad numbers are errors naming the
field). :func:`causalcost.network.netfile.read_network` calls :func:`from_multiclass_document`
for these files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from causalcost.errors import CausalCostError, NetworkFileError
from causalcost.network.multiclass_builder import MulticlassSystemBuilder
from causalcost.network.multiclass_system import MulticlassSystem
from causalcost.network.netschema import (
    FORMAT,
    VERSION,
    _check_keys,
    _distribution,
    _number,
    _required,
    _rows,
    _string,
    _strings,
)

__all__ = ["MulticlassNetworkSpec", "from_multiclass_document", "is_multiclass_document"]

_TOP = {"format", "version", "name", "description", "slot", "class", "latents", "models",
        "fusioner"}
_CLASS = {"name", "labels", "prior", "system_node"}
_LATENT = {"name", "states", "probabilities"}
_MODEL = {"name", "confusion", "latent"}
_FUSIONER = {"rule", "tie", "weights", "order", "label", "k"}


def is_multiclass_document(doc: Any) -> bool:
    """Whether a parsed network file declares K labels (``[class]`` has ``labels``)."""
    return isinstance(doc, dict) and isinstance(doc.get("class"), dict) and \
        "labels" in doc["class"]


@dataclass(frozen=True)
class MulticlassNetworkSpec:
    """A K-label network file read and checked, not yet built.

    Examples
    --------
    >>> doc = {"format": "causalcost-network", "version": 1, "slot": "b",
    ...        "class": {"labels": ["x", "y", "z"], "prior": [0.5, 0.3, 0.2]},
    ...        "models": [{"name": n, "confusion": [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1],
    ...                                              [0.1, 0.1, 0.8]]} for n in "ab"],
    ...        "fusioner": {"rule": "plurality", "tie": "slot"}}
    >>> spec = from_multiclass_document(doc)
    >>> spec.labels, spec.models, spec.build().slot
    (('x', 'y', 'z'), ('a', 'b'), 'b')
    """

    name: str
    description: str
    slot: str | None
    labels: tuple[str, ...]
    models: tuple[str, ...]
    fusioner: str
    file: str | None = None
    _builder: MulticlassSystemBuilder | None = field(default=None, repr=False, compare=False)

    def build(self, slot: str | None = None) -> MulticlassSystem:
        """The validated system (``slot`` overrides the file's)."""
        if self._builder is None:
            raise NetworkFileError("this spec was not read from a file: use read_network")
        try:
            return self._builder.build(slot=slot or self.slot)
        except CausalCostError as exc:
            if not self.file:
                raise
            raise type(exc)(f"{self.file}: {exc}") from None

    def summary(self) -> str:
        """One line: stem, slot, labels, models, rule, description."""
        stem = (self.file or self.name).removesuffix(".toml")
        return (f"{stem:20s} slot={self.slot!s:18s} fusioner={self.fusioner:9s} "
                f"labels={', '.join(self.labels)} models={', '.join(self.models)}  "
                f"({self.description})")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {"name": self.name, "description": self.description, "slot": self.slot,
                "labels": list(self.labels), "models": list(self.models),
                "fusioner": self.fusioner, "file": self.file}


def _table(value: Any, where: str, k: int) -> list[list[float]]:
    rows = _rows(value, where, k)
    if len(rows) != k:
        raise NetworkFileError(f"{where} needs {k} rows (one per true label), got {len(rows)}")
    return rows


def from_multiclass_document(doc: dict[str, Any], *, file: str | None = None
                             ) -> MulticlassNetworkSpec:
    """Check a parsed K-label network file and declare it on a builder (not built).

    Raises
    ------
    NetworkFileError
        Unknown keys, wrong types, bad probabilities (the field is named).
    """
    _check_keys(doc, _TOP, "the top level")
    if doc.get("format") != FORMAT:
        raise NetworkFileError(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version != VERSION:
        raise NetworkFileError(f"version must be the integer {VERSION}, got {version!r}")
    name = _string(doc.get("name", "system"), "name")
    description = _string(doc["description"], "description") if "description" in doc else ""
    slot = _string(doc["slot"], "slot") if "slot" in doc else None
    cls = _check_keys(doc["class"], _CLASS, "[class]")
    labels = _strings(cls["labels"], "class.labels")
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise NetworkFileError(f"class.labels must be at least 2 distinct labels, got {labels}")
    k = len(labels)
    prior = _distribution(_required(cls, "prior", "class"), "class.prior", k)
    try:
        builder = MulticlassSystemBuilder(
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
            mod = _check_keys(mod, _MODEL, where)
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
                          else {}, _FUSIONER, "[fusioner]")
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
    return MulticlassNetworkSpec(name, description, slot, tuple(labels), tuple(models), rule,
                                 file, builder)
