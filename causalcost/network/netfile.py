"""Network files: human-readable TOML declarations of a system, and BIF import.

A network file mirrors :class:`~causalcost.SystemBuilder` (see ``networks/*.toml``)::

    format = "causalcost-network"
    version = 1                        # the integer 1
    name = "thesis_and"
    description = "..."                # optional
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
(``name``, ``states``, ``probabilities``, ``class_positive``: one per state), ``[[nodes]]`` for
features and latents (``name``, ``states``, ``parents``, ``cpd``: one row per parent
configuration, each with one probability per state), ``[[models]]`` (``name`` with
``sensitivity``/``specificity`` or ``parents``/``positive_probability``), ``[[correlated]]``
(``models``, and pairs ``sensitivity``, ``specificity``; ``correlation_positive``,
``correlation_negative``, ``latent``), ``[fusioner]`` (``rule``, ``name``, ``inputs``; ``k``
for ``k_of_n`` only; ``weights`` (a table model = weight, or a list) and ``threshold`` for
``weighted`` only; ``tie`` for ``majority`` only; ``divorce``: ``true`` to declare a vote as a
chain of count nodes, ``false`` for one table over every model, absent for automatic, i.e.
beyond 12 models, see :mod:`causalcost.network.divorce`).

Unknown keys, wrong types, numbers that are not finite doubles (``1e309``, 400-digit
integers), lists of the wrong length and bad probabilities are errors naming the field; so are
files that are not UTF-8 text or are nested too deeply to parse.

Reading a file (:func:`read_network`, :func:`list_networks`) does not import pgmpy; only
building the :class:`~causalcost.System` (:func:`load_network`, :meth:`NetworkSpec.build`)
does.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from causalcost.errors import CausalCostError, NetworkFileError, UnknownNameError
from causalcost.network.netschema import FORMAT, VERSION, DecimalFloat, NetworkSpec, from_document

if TYPE_CHECKING:
    from causalcost.network.system import System

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["load_network", "load_bif", "list_networks", "network_path", "read_network",
           "NetworkSpec", "FORMAT", "VERSION"]


def list_networks(fusing: str | None = None) -> list[str]:
    """Stems of the networks shipped with causalcost (nothing built).

    Parameters
    ----------
    fusing : {None, "votes", "scores"}
        None (default): every shipped network, no file read. ``"votes"``: those whose
        fusioner fuses votes; ``"scores"``: those whose models output scores over bins
        (:mod:`causalcost.network.scores`); each file is read (no pgmpy) to tell.

    Examples
    --------
    >>> "thesis_and" in list_networks()
    True
    >>> list_networks("scores")
    ['soft_vote3']
    """
    stems = sorted(p.name[:-5] for p in resources.files("causalcost.network.shipped").iterdir()
                   if p.name.endswith(".toml"))
    if fusing is None:
        return stems
    if fusing not in ("votes", "scores"):
        raise UnknownNameError(f"fusing must be None, 'votes' or 'scores', got {fusing!r}")
    from causalcost.network.score_rules import SCORE_FUSIONERS

    return [s for s in stems
            if (read_network(s).fusioner in SCORE_FUSIONERS) == (fusing == "scores")]


def shipped_summary(stem: str) -> dict[str, Any]:
    """What ``causalcost networks`` lists of a shipped network: its slot, rule, models and
    description, read from the file without declaring it (a shipped file is checked whole by
    :func:`read_network` in the tests; a listing needs neither pgmpy nor scipy).

    >>> shipped_summary("soft_vote3")["fusioner"]
    'mean'
    """
    doc = _toml(network_path(stem))
    models = [str(m.get("name")) for m in doc.get("models", []) if isinstance(m, dict)]
    models += [str(name) for pair in doc.get("correlated", []) if isinstance(pair, dict)
               for name in pair.get("models", [])]  # declared in this order (netschema)
    return {"slot": doc.get("slot"), "fusioner": str(doc.get("fusioner", {}).get("rule")),
            "models": models, "description": doc.get("description")}


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


def read_network(spec: str | Path) -> NetworkSpec:
    """Read and check a network file (or a shipped network by stem) without building it.

    Every field is checked as in :func:`load_network`, and pgmpy is not imported: listing
    networks with their descriptions costs milliseconds.

    Raises
    ------
    NetworkFileError
        Unknown keys, wrong types, bad numbers or probabilities (the message names the file
        and the field), a file that is not UTF-8 TOML.
    UnknownNameError
        No such file or shipped network.

    Examples
    --------
    >>> import causalcost as cc
    >>> [cc.read_network(stem).description for stem in cc.list_networks()][-1]
    'Thesis §4 example 2: images 25 % on positives / 50 % on negatives, OR fusioner'
    """
    path = network_path(spec)
    if path.suffix.lower() == ".bif":
        raise NetworkFileError(
            f"{path.name} is a BIF file: load it with load_bif(path, class_node=..., "
            "system_node=..., positive=...)"
        )
    try:
        doc = _toml(path)
        return from_document(doc, file=path.name)
    except CausalCostError as exc:
        raise type(exc)(f"{path.name}: {exc}") from None


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
    return read_network(spec).build(slot=slot)


def load_bif(
    path: str | Path,
    *,
    class_node: str,
    system_node: str,
    positive: Any = None,
    slot: str | None = None,
    models: Sequence[str] | None = None,
) -> System:
    """Read a BIF file (pgmpy's reader) and name its roles.

    A BIF file need not contain a confusion node: it is derived from class and system
    prediction. The text is checked first (:func:`causalcost.network.bif.scan_bif`): a
    repeated ``probability`` block or table row, or a missing row, is refused rather than
    read as pgmpy would (last one wins, zeros). Every check of :meth:`System.from_pgmpy`
    applies, including its defaults: ``positive`` is ``"P"``, or ``"1"`` when the class's
    states are ``0``/``1``; the models are found behind any count nodes, and a vote the tables
    compute (one written by ``System.to_bif``, divorced or not) is recognised.

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
    from causalcost.network.bif import scan_bif
    from causalcost.network.bif_rule import (
        read_label_rule,
        read_score_rule,
        read_vote,
        with_recorded_rule,
    )
    from causalcost.network.system import System

    file = Path(path)
    if not file.is_file():
        raise UnknownNameError(f"no BIF file {str(path)!r}")
    try:
        text = _text(file)
    except NetworkFileError as exc:
        raise NetworkFileError(f"{file.name}: {exc}") from None
    scan_bif(text, file.name)
    recorded, fusioner = read_vote(text, system_node, file.name)  # written by System.to_bif
    rule, rule_slot = read_label_rule(text, system_node, file.name)
    scores = read_score_rule(text, system_node, file.name)
    if models is None:
        models = recorded
    elif recorded is None or list(models) != recorded:
        fusioner = rule = None  # the caller's order wins; the tables' vote is recognised
    try:
        network = bif_reader(str(file)).get_model()
    except Exception as exc:  # pgmpy raises assorted parser errors
        raise NetworkFileError(f"{file.name}: cannot read as BIF: {exc}") from None
    confusion = "Confusion" if "Confusion" in network.nodes() else None
    try:
        if scores is not None and recorded is not None and list(models or ()) == recorded:
            from causalcost.network.scores import score_fusioner  # rebuilt on the bins

            values = scores.pop("values")
            missing = [m for m in recorded if m not in network.nodes()]
            if missing or len(values) != len(recorded):
                raise NetworkFileError(
                    f"property causalcost_scores holds {len(values)} score lists for "
                    f"{len(recorded)} models {recorded}"
                    + (f"; not in the network: {missing}" if missing else ""))
            fusioner = score_fusioner(
                scores.pop("rule"), recorded,
                [list(network.get_cpds(m).state_names[m]) for m in recorded], values, **scores)
        system = System.from_pgmpy(network, class_node=class_node, system_node=system_node,
                                   slot=slot, positive=positive, models=models,
                                   confusion_node=confusion, name=file.stem, fusioner=fusioner)
    except CausalCostError as exc:
        raise type(exc)(f"{file.name}: {exc}") from None
    if rule is not None and system.declaration is not None:  # a K-label rule, by name
        system = with_recorded_rule(system, rule, rule_slot, file.name)
    return system


def _text(path: Path) -> str:
    data = path.read_bytes()
    if b"\x00" in data:
        raise NetworkFileError("a binary file, not a text network file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NetworkFileError(
            f"not UTF-8 text (byte {exc.start}: {data[exc.start:exc.start + 1]!r}); "
            "save the file as UTF-8"
        ) from None


def _toml(path: Path) -> dict[str, Any]:
    text = _text(path)
    try:
        return tomllib.loads(text, parse_float=DecimalFloat)
    except tomllib.TOMLDecodeError as exc:
        raise NetworkFileError(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise NetworkFileError(
            "nested too deeply to parse (arrays or tables inside each other thousands of "
            "levels deep); a network file needs at most two levels (a cpd's rows)"
        ) from None
