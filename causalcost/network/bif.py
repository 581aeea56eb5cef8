"""BIF: what a BIF file can carry, and the checks on the way out and in.

The Bayesian Interchange Format (Cozman, 1998) lists each variable with its states and each
conditional table, one row per parent configuration::

    variable images { type discrete [ 2 ] { P, N }; }
    probability ( images | Class ) { ( P ) 0.8, 0.2; ( N ) 0.2, 0.8; }

**Names.** Readers split that text on spaces, commas, braces, parentheses, ``|`` and ``;``,
drop ``//`` and ``/* */`` comments and quotes, and pgmpy's reader matches variable names
case-insensitively. So a node or state name written to BIF must be a *BIF word*: letters,
digits, ``_``, ``-`` and ``.`` only (:data:`BIF_WORD`), not a BIF keyword, and node names must
differ other than by case. :func:`write_bif` (``System.to_bif``) refuses any other name before
writing, naming it and the rule, rather than write a file that reads back as another network.

**Repeated entries.** pgmpy's reader keeps the last of two ``probability`` blocks for one
variable, or of two rows for one parent configuration, and fills a missing row with zeros.
:func:`scan_bif` (run by :func:`causalcost.load_bif` before pgmpy reads the file) refuses all
three, naming the variable and the configuration.

**Roles.** BIF has no roles, and its writer lists variables alphabetically. So that a system
reads back as written, :func:`write_bif` records on the system node, as BIF ``property``
lines (``property causalcost_models = zeta alpha mid ;``), the models in the fusioner's input
order and the rule, for any K (a binary vote's form; a K-label rule's name, labels and
options): see :mod:`causalcost.network.bif_rule`. Readers that do not know them skip them;
``load_bif`` reads them back and checks that the tables compute that rule.

**Precision.** Probabilities are written with every digit (the shortest decimal that reads
back as the same double), and pgmpy reads them back exactly. pyAgrum reads BIF probabilities
as 32-bit floats: its tables come back off by up to ~3e-8 (float32 keeps 24 bits). For a lossless
copy into pyAgrum, fill its tables from the arrays instead of a file:
``bn.cpt(name).fillWith(values)`` with the values of ``system.network.get_cpds(name)`` in
pyAgrum's variable order (pyAgrum stores doubles).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from causalcost.errors import NetworkFileError
from causalcost.network.bif_rule import PROPERTY_PREFIX, read_vote, vote_properties

__all__ = ["BIF_WORD", "BIF_KEYWORDS", "PROPERTY_PREFIX", "bif_name_problem",
           "check_bif_names", "read_vote", "scan_bif", "vote_properties", "write_bif"]

#: A name BIF readers read back as written: letters, digits, ``_``, ``-``, ``.``.
BIF_WORD = re.compile(r"^[\w.\-]+$")
#: Words of the BIF grammar, refused as names (case-insensitive).
BIF_KEYWORDS = frozenset({"network", "variable", "probability", "property", "type", "discrete",
                          "table", "default"})

_COMMENTS = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")|(/\*.*?\*/|//[^\n]*)', re.DOTALL)
_BLOCK = re.compile(r"(variable|probability).*?\}\n", re.DOTALL)
_HEADER = re.compile(r"probability\s*\(\s*(.+?)(?:\s*\|\s*(.+?))?\s*\)")
_VARIABLE = re.compile(r"variable\s+([^{]+?)\s*\{")
_STATES = re.compile(r"type\s+\w+\s*\[\s*\d+\s*\]\s*\{([^}]+)\}\s*;")
_ROW = re.compile(r"\(\s*([^)]*?)\s*\)\s*([^;]*);")


def bif_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be written to BIF, or ``None`` if it can.

    >>> bif_name_problem("clinical_history") is None
    True
    >>> bif_name_problem("my model")
    'it holds a space or another character outside letters, digits, _, - and .'
    """
    text = str(name)
    if not text:
        return "it is empty"
    if not BIF_WORD.match(text):
        return "it holds a space or another character outside letters, digits, _, - and ."
    if text.lower() in BIF_KEYWORDS:
        return f"it is a BIF keyword ({', '.join(sorted(BIF_KEYWORDS))})"
    return None


def check_bif_names(nodes: Iterable[Any], states: dict[Any, Iterable[Any]]) -> None:
    """Raise :class:`NetworkFileError` for the first node or state name BIF cannot carry."""
    seen: dict[str, Any] = {}
    for node in nodes:
        problem = bif_name_problem(node)
        if problem:
            raise NetworkFileError(
                f"cannot write node {str(node)!r} to BIF: {problem}; BIF names are words of "
                "letters, digits, _, - and . (rename the node)"
            )
        other = seen.setdefault(str(node).lower(), node)
        if other != node:
            raise NetworkFileError(
                f"cannot write nodes {str(other)!r} and {str(node)!r} to BIF: BIF readers "
                "(pgmpy's) match names regardless of case; rename one of them"
            )
        for state in states[node]:
            problem = bif_name_problem(state)
            if problem:
                raise NetworkFileError(
                    f"cannot write state {str(state)!r} of node {str(node)!r} to BIF: {problem};"
                    " BIF names are words of letters, digits, _, - and . (rename the state)"
                )


def write_bif(network: Any, path: str | Path, *, system_node: str | None = None,
              models: Iterable[str] | None = None, fusioner: Any = None,
              slot: str | None = None) -> None:
    """Write a pgmpy network as BIF after checking every name (see the module docstring);
    with ``system_node`` and ``models``, record their order and the ``fusioner``'s rule (a
    binary vote or a K-label rule; ``slot``: the slot whose vote breaks ties to the slot) as
    properties of the system node
    (:func:`~causalcost.network.bif_rule.vote_properties`)."""
    from causalcost.network._pgmpy import bif_writer

    check_bif_names(sorted(network.nodes(), key=str),
                    {c.variable: c.state_names[c.variable] for c in network.get_cpds()})
    if system_node is not None and models is not None:
        network = network.copy()  # the properties go on a copy, not on the caller's network
        for node in network.nodes():
            network.nodes[node].clear()
        network.nodes[system_node].update(vote_properties(models, fusioner, slot))
    writer = bif_writer(network)
    write = getattr(writer, "write", None) or writer.write_bif  # renamed in pgmpy 1.1
    write(str(path))


def scan_bif(text: str, filename: str = "the file") -> None:
    """Refuse a BIF text whose tables pgmpy would read silently wrong.

    Raises
    ------
    NetworkFileError
        A variable declared twice, two ``probability`` blocks for one variable, two rows for
        one parent configuration, or a missing row.

    Examples
    --------
    >>> scan_bif("variable A { type discrete [ 2 ] { x, y }; }\\n"
    ...          "probability ( A ) { table 0.5, 0.5; }\\n"
    ...          "probability ( A ) { table 0.1, 0.9; }\\n")
    Traceback (most recent call last):
    ...
    causalcost.errors.NetworkFileError: the file: two probability blocks for variable 'A' ...
    """
    text = _COMMENTS.sub(lambda m: m.group(1) or "", text).replace('"', " ")
    states: dict[str, list[str]] = {}
    blocks: dict[str, tuple[list[str], str]] = {}
    for match in _BLOCK.finditer(text):
        block = match.group(0)
        if block.startswith("variable"):
            found = _VARIABLE.search(block)
            declared = _STATES.search(block)
            if not found or not declared:
                continue  # pgmpy reports what it cannot parse
            name = found.group(1).strip()
            if name.lower() in {n.lower() for n in states}:
                raise NetworkFileError(f"{filename}: variable {name!r} is declared twice; "
                                       "keep one declaration")
            raw = declared.group(1)
            states[name] = [s.strip() for s in (raw.split(",") if "," in raw else raw.split())
                            if s.strip()]
            continue
        header = _HEADER.search(block.split("\n")[0])
        if not header:
            continue
        name = header.group(1).strip()
        parents = [p.strip() for p in header.group(2).split(",")] if header.group(2) else []
        if not header.group(2) and len(name.split()) > 1:  # old style: "probability ( A B C )"
            name, *parents = name.split()
        if name.lower() in {n.lower() for n in blocks}:
            raise NetworkFileError(
                f"{filename}: two probability blocks for variable {name!r} (a reader keeps one "
                "and drops the other silently); keep one"
            )
        blocks[name] = (parents, block[block.index("{") + 1:] if "{" in block else "")
    by_lower = {n.lower(): s for n, s in states.items()}
    for name, (parents, body) in blocks.items():
        if not parents or re.search(r"(?:^|\{|;)\s*table\s", body, re.MULTILINE):
            continue
        rows = [tuple(s.strip() for s in m.group(1).split(",")) for m in _ROW.finditer(body)]
        seen = set()
        for row in rows:
            if row in seen:
                where = ", ".join(f"{p}={s}" for p, s in zip(parents, row))
                raise NetworkFileError(
                    f"{filename}: the table of {name!r} has two rows for ({where}) (a reader "
                    "keeps the last silently); keep one"
                )
            seen.add(row)
        if re.search(r"(?:^|\{|;)\s*default\s", body, re.MULTILINE):
            continue
        parent_states = [by_lower.get(p.lower()) for p in parents]
        if any(s is None for s in parent_states):
            continue  # an undeclared parent: pgmpy reports it
        if len(seen) >= _product(len(s) for s in parent_states):  # type: ignore[arg-type]
            continue
        for config in itertools.product(*parent_states):  # type: ignore[arg-type]
            if tuple(config) not in seen:
                where = ", ".join(f"{p}={s}" for p, s in zip(parents, config))
                raise NetworkFileError(
                    f"{filename}: the table of {name!r} has no row for ({where}); add it (a "
                    "reader would fill it with zeros)"
                )


def _product(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out
