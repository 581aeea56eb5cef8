"""The fusion rule written into a BIF file as ``property`` lines, and read back, for any K.

BIF has no fusion rules, only tables. So that a system reads back as the rule it was,
:func:`causalcost.network.bif.write_bif` records on the system node the models in the
fusioner's input order (``causalcost_models``) and the rule:

* a binary vote (``and``, ``or``, ``majority``, ``k_of_n``, ``weighted``): its vote form,
  ``causalcost_rule``, ``causalcost_weights``, ``causalcost_threshold`` (decimal text);
* a K-label rule (``plurality``, ``weighted``, ``priority``, ``k_of_n``): ``causalcost_labels``
  (the labels in order) with ``causalcost_rule`` and the options that make it:
  ``causalcost_weights``, ``causalcost_threshold``, ``causalcost_label``, ``causalcost_k``,
  ``causalcost_order``, ``causalcost_tie`` (``slot`` or a label order) and, for ties to the
  slot, ``causalcost_slot`` (the slot whose vote broke the ties in the written table).

A user function or a table has no such form: only the models are recorded, and the system
reads back as its table. Readers that do not know the properties skip them. On the way back
the rule is rebuilt and checked against the tables it names (a rule the tables do not compute
is refused, naming the properties to fix or delete).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from causalcost.errors import CausalCostError, NetworkFileError

__all__ = ["PROPERTY_PREFIX", "read_label_rule", "read_properties", "read_score_rule",
           "read_vote", "score_properties", "vote_properties", "with_recorded_rule"]

#: Prefix of the properties recorded on the system node.
PROPERTY_PREFIX = "causalcost_"

_COMMENTS = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")|(/\*.*?\*/|//[^\n]*)', re.DOTALL)
#: K-label rules that a few options rebuild (a user function or a table has no such form).
_LABEL_RULES = ("plurality", "weighted", "priority", "k_of_n")


def vote_properties(models: Iterable[str], fusioner: Any, slot: str | None = None
                    ) -> dict[str, str]:
    """The properties recording the models' order and the fusioner's rule.

    >>> from causalcost.network.fusioners import make_fusioner
    >>> vote_properties(["b", "a"], make_fusioner("weighted", ["b", "a"], weights=[2, 0.5],
    ...                                           threshold=2))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'causalcost_models': 'b a', 'causalcost_rule': 'weighted', 'causalcost_weights': '2 0.5',
     'causalcost_threshold': '2'}
    >>> vote_properties(["a", "b", "c"], make_fusioner(
    ...     "k_of_n", ["a", "b", "c"], labels=["ok", "flu", "covid"], label="covid", k=2))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'causalcost_models': 'a b c', 'causalcost_labels': 'ok flu covid',
     'causalcost_rule': 'k_of_n', 'causalcost_label': 'covid', 'causalcost_k': '2'}
    """
    from causalcost.network.exact_votes import number_text

    out = {f"{PROPERTY_PREFIX}models": " ".join(map(str, models))}
    if fusioner is None:
        return out
    if getattr(fusioner, "is_score", False):  # a score rule: its options and bins' scores
        out.update(score_properties(fusioner))
        return out
    if getattr(fusioner, "boolean", False):
        if fusioner.is_vote:
            out[f"{PROPERTY_PREFIX}rule"] = fusioner.rule
            out[f"{PROPERTY_PREFIX}weights"] = " ".join(number_text(w)
                                                        for w in fusioner.exact_weights)
            out[f"{PROPERTY_PREFIX}threshold"] = number_text(fusioner.exact_threshold)
        return out
    if fusioner.kind not in _LABEL_RULES:
        return out
    labels = [str(v) for v in fusioner.labels]
    found = {"labels": " ".join(labels), "rule": fusioner.kind}
    if fusioner.kind == "weighted":
        found["weights"] = " ".join(number_text(w) for w in fusioner.exact_weights)
        if fusioner.exact_threshold is not None:
            found["threshold"] = number_text(fusioner.exact_threshold)
            found["label"] = labels[fusioner.label]
    if fusioner.kind == "k_of_n":
        found.update(label=labels[fusioner.label], k=str(fusioner.k))
    if fusioner.kind == "priority":
        found["order"] = " ".join(labels[i] for i in fusioner.order)
    if fusioner.tie == "slot":
        found["tie"] = "slot"
        if slot is not None:
            found["slot"] = str(slot)
    elif fusioner.tie_order != tuple(range(len(labels))):
        found["tie"] = " ".join(labels[i] for i in fusioner.tie_order)
    out.update({f"{PROPERTY_PREFIX}{key}": value for key, value in found.items()})
    return out


def score_properties(fusioner: Any) -> dict[str, str]:
    """The properties of a score fusioner (:mod:`causalcost.network.scores`): its rule,
    weights, threshold, bias and each model's representative scores (``|`` between models),
    numbers written exactly (``repr``). A user function is not recorded (its table is).

    >>> from causalcost.network.scores import score_fusioner
    >>> score_properties(score_fusioner("mean", ["a", "b"], [("lo", "hi")] * 2,
    ...                                 [(0.25, 0.75)] * 2, weights=[2, 1]))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'causalcost_rule': 'mean', 'causalcost_threshold': '0.5', 'causalcost_weights': '2.0 1.0',
     'causalcost_scores': '0.25 0.75 | 0.25 0.75'}
    """
    r = fusioner.rule
    if r.kind == "function":
        return {}
    found = {"rule": r.kind, "threshold": repr(float(r.threshold))}
    if r.given_weights is not None:
        found["weights"] = " ".join(repr(float(w)) for w in r.given_weights)
    if r.kind == "logistic":
        found["bias"] = repr(float(r.bias))
    found["scores"] = " | ".join(" ".join(repr(float(v)) for v in vs) for vs in fusioner.values)
    return {f"{PROPERTY_PREFIX}{key}": value for key, value in found.items()}


def read_score_rule(text: str, system_node: str, filename: str = "the file"
                    ) -> dict[str, Any] | None:
    """The score rule recorded by :func:`score_properties` on ``system_node``, as keyword
    arguments of :func:`causalcost.network.scores.score_fusioner` (with ``values``), or None.

    Raises
    ------
    NetworkFileError
        A recorded number that is not one (the message names the property).
    """
    from causalcost.network.score_rules import SCORE_FUSIONERS

    found = read_properties(text, system_node)
    if not found or found.get("rule") not in SCORE_FUSIONERS or "scores" not in found:
        return None
    where = f"{filename}: property {PROPERTY_PREFIX}"

    def numbers(key: str, value: str) -> list[float]:
        try:
            return [float(v) for v in value.split()]
        except ValueError:
            raise NetworkFileError(f"{where}{key} must hold numbers, got {value!r}") from None

    out: dict[str, Any] = {"rule": found["rule"],
                           "values": [numbers("scores", part)
                                      for part in found["scores"].split("|")]}
    for key in ("threshold", "bias"):
        if key in found:
            got = numbers(key, found[key])
            if len(got) != 1:
                raise NetworkFileError(f"{where}{key} must be one number, got {found[key]!r}")
            out[key] = got[0]
    if "weights" in found:
        out["weights"] = numbers("weights", found["weights"])
    return out


def read_properties(text: str, system_node: str) -> dict[str, str] | None:
    """The ``causalcost_`` properties of ``system_node`` in a BIF text (keys without the
    prefix), or ``None`` when the node is not declared."""
    text = _COMMENTS.sub(lambda m: m.group(1) or "", text)
    block = re.search(rf"variable\s+{re.escape(str(system_node))}\s*\{{(.*?)\}}\s*\n", text,
                      re.DOTALL | re.IGNORECASE)
    if block is None:
        return None
    return {m.group(1).lower(): m.group(2).strip() for m in re.finditer(
        rf"property\s+{PROPERTY_PREFIX}(\w+)\s*=\s*([^;]*);", block.group(1))}


def read_vote(text: str, system_node: str, filename: str = "the file"
              ) -> tuple[list[str] | None, Any]:
    """The models' order and the binary vote recorded on ``system_node`` by
    :func:`causalcost.network.bif.write_bif` (``(None, None)`` when the file records none;
    the fusioner is None without a binary rule: a K-label rule is :func:`read_label_rule`'s).

    Raises
    ------
    NetworkFileError
        A recorded property that does not make a rule (the message names it).
    """
    from causalcost.network.exact_votes import exact_number
    from causalcost.network.fusioners import make_fusioner

    found = read_properties(text, system_node)
    if not found or "models" not in found:
        return None, None
    models = found["models"].split()
    rule = found.get("rule")
    if rule is None or "labels" in found or "scores" in found:  # scores: read_score_rule
        return models, None
    where = f"{filename}: property {PROPERTY_PREFIX}"
    try:
        weights = [exact_number(w, f"{where}weights") for w in found.get("weights", "").split()]
        threshold = exact_number(found.get("threshold", ""), f"{where}threshold")
        n = len(models)
        if len(weights) != n:
            raise NetworkFileError(f"{where}weights holds {len(weights)} weights for {n} models")
        options: dict[str, Any] = {}
        if rule == "weighted":
            options = {"weights": weights, "threshold": threshold}
        elif rule == "k_of_n":
            options = {"k": int(threshold)}
        elif rule == "majority" and n % 2 == 0:
            options = {"tie": "positive" if threshold == n // 2 else "negative"}
        fusioner = make_fusioner(rule, models, **options)
    except NetworkFileError:
        raise
    except CausalCostError as exc:
        raise NetworkFileError(f"{where}rule {rule!r} does not make a rule: {exc}") from None
    if (list(fusioner.exact_weights or ()), fusioner.exact_threshold) != (weights, threshold):
        raise NetworkFileError(f"{where}rule {rule!r} disagrees with the recorded weights and "
                               "threshold; fix or delete the causalcost_ properties")
    return models, fusioner


def read_label_rule(text: str, system_node: str, filename: str = "the file"
                    ) -> tuple[Any, str | None]:
    """The K-label rule recorded on ``system_node`` (and the slot whose vote broke its ties
    in the written table), or ``(None, None)`` when the file records none.

    Raises
    ------
    NetworkFileError
        Recorded properties that do not make a rule (the message names them).
    """
    from causalcost.network.fusioners import make_fusioner

    found = read_properties(text, system_node)
    if not found or "labels" not in found or "rule" not in found or "models" not in found:
        return None, None
    rule, labels = found["rule"], found["labels"].split()
    options: dict[str, Any] = {}
    for key in ("weights", "order"):
        if key in found:
            options[key] = found[key].split()
    for key in ("threshold", "label"):
        if key in found:
            options[key] = found[key]
    if "k" in found:
        options["k"] = int(found["k"]) if found["k"].isdigit() else found["k"]
    if "tie" in found:
        options["tie"] = "slot" if found["tie"] == "slot" else found["tie"].split()
    try:
        if rule not in _LABEL_RULES:
            raise NetworkFileError(f"it is not one of {', '.join(_LABEL_RULES)}")
        fusioner = make_fusioner(rule, found["models"].split(), labels=labels, **options)
    except CausalCostError as exc:
        raise NetworkFileError(f"{filename}: property {PROPERTY_PREFIX}rule {rule!r} with its "
                               f"options does not make a rule: {exc}; fix or delete the "
                               "causalcost_ properties") from None
    return fusioner, found.get("slot")


def with_recorded_rule(system: Any, rule: Any, rule_slot: str | None,
                       filename: str = "the file") -> Any:
    """``system`` (read from BIF, its fusioner a table) with the recorded K-label ``rule`` as
    its fusioner, once checked to compute the system node's table.

    A rule whose ties go to the slot names the written table only for the slot it was written
    with: for another slot (or none) the system keeps the table.

    Raises
    ------
    NetworkFileError
        The rule's labels or models are not the file's, or the rule does not compute the
        system node's table.
    """
    from causalcost.network.labelled import fusion_table

    table = system.fusioner
    where = f"{filename}: property {PROPERTY_PREFIX}rule {rule.kind!r}"
    if tuple(map(str, rule.labels)) != tuple(map(str, system.labels)) or tuple(
            rule.models) != tuple(system.models):
        raise NetworkFileError(f"{where} is recorded for labels {list(rule.labels)} and models "
                               f"{list(rule.models)}; the file's are {list(system.labels)} and "
                               f"{list(system.models)}: fix or delete the causalcost_ "
                               "properties")
    if rule.tie == "slot" and (rule_slot is None or system.slot != rule_slot):
        return system
    named = type(system).declared(system.declaration, rule, slot=system.slot,
                                  class_node=system.class_node,
                                  system_node=system.system_node, name=system.name)
    if not np.array_equal(fusion_table(named, rule_slot), np.asarray(table.table, dtype=float)):
        raise NetworkFileError(f"{where} ({rule.description}) is not what the table of "
                               f"{system.system_node!r} computes: fix or delete the "
                               "causalcost_ properties")
    return named
