"""cc.fit_system on columns spelled otherwise than the network's states.

A value is read as a state only where that is provable: its ``str()`` (or ``str().strip()``)
is the state's name ("P " is "P"; the number 1 is a state named "1"). Everything else (1/0,
True/False, p/n for states P/N) is refused with a one-line DataError naming the column, the
values, the states and the fix, until the caller says the mapping (``state_names=``), which
then learns exactly what the clean frame learns.

(The bare pandas ``TypeError: Cannot setitem on a Categorical with a new category`` of the
report is raised by pandas when such a spelling is written into pgmpy's simulated frame, whose
columns are categoricals: ``data.loc[rows, "images"] = "P "``, before causalcost is called.
The frames below are built with ``assign``/``map``, as a user's own frame would be.)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import causalcost as cc

COLUMN = "images"  # a model of majority3, not the slot

#: the spellings of states P / N that are not provable, and the mapping that says them
SPELLINGS: dict[str, tuple[Callable[[pd.Series], pd.Series], dict[Any, str], str]] = {
    "1/0": (lambda s: s.map({"P": 1, "N": 0}).astype(int), {1: "P", 0: "N"}, "[0, 1]"),
    "p/n": (lambda s: s.str.lower(), {"p": "P", "n": "N"}, "['n', 'p']"),
    "True/False": (lambda s: s == "P", {True: "P", False: "N"}, "[False, True]"),
}


@pytest.fixture(scope="module")
def majority3() -> tuple[cc.System, pd.DataFrame]:
    system = cc.load_network("majority3")
    data = system.network.simulate(3000, seed=7, show_progress=False)
    return system, data.astype(str)  # a user's frame: plain labels


def fit(system: cc.System, frame: pd.DataFrame, **options: Any) -> cc.System:
    with warnings.catch_warnings():
        warnings.simplefilter("error", cc.NoDataWarning)  # every column learned from rows
        return cc.fit_system(system, frame, **options)


def assert_same_cpds(learned: cc.System, clean: cc.System) -> None:
    nodes = list(clean.network.nodes)
    assert sorted(learned.network.nodes) == sorted(nodes)
    for node in nodes:
        got, want = learned.network.get_cpds(node), clean.network.get_cpds(node)
        assert list(got.variables) == list(want.variables)
        assert got.state_names == want.state_names
        np.testing.assert_allclose(got.get_values(), want.get_values(), rtol=1e-12, atol=0)


@pytest.fixture(scope="module")
def clean_fit(majority3: tuple[cc.System, pd.DataFrame]) -> cc.System:
    return fit(*majority3)


@pytest.mark.parametrize("pad", [lambda s: s + "  ", lambda s: " " + s, lambda s: s + "\t"])
def test_spaces_around_a_state_are_that_state(majority3: tuple, clean_fit: cc.System,
                                              pad: Callable[[pd.Series], pd.Series]) -> None:
    system, data = majority3
    padded = data.assign(**{node: pad(data[node]) for node in data.columns})  # every column
    assert not padded[COLUMN].isin(["P", "N"]).any()
    assert_same_cpds(fit(system, padded), clean_fit)
    # a categorical column (pgmpy's own frames) reads the same way
    categorical = padded.assign(**{COLUMN: pd.Categorical(padded[COLUMN])})
    assert_same_cpds(fit(system, categorical), clean_fit)


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_an_unprovable_spelling_is_refused_naming_the_column(majority3: tuple,
                                                            spelling: str) -> None:
    system, data = majority3
    spell, _, shown = SPELLINGS[spelling]
    spelled = data.assign(**{COLUMN: spell(data[COLUMN])})
    with pytest.raises(cc.DataError) as info:
        cc.fit_system(system, spelled)
    text = str(info.value)
    assert isinstance(info.value, cc.CausalCostError) and "\n" not in text
    assert text.startswith(f"column {COLUMN!r} holds values {shown} that are not states of "
                           f"node {COLUMN!r} ['P', 'N'] (3,000 row(s)); ")
    said = shown.strip("[]").replace(", ", ": ..., ") + ": ..."
    assert text.endswith(f"say which state each stands for: data[{COLUMN!r}].map({{{said}}}) "
                         f"or state_names={{{COLUMN!r}: {{{said}}}}}")


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_the_mapping_said_learns_what_the_clean_frame_learns(majority3: tuple,
                                                             clean_fit: cc.System,
                                                             spelling: str) -> None:
    system, data = majority3
    spell, mapping, _ = SPELLINGS[spelling]
    spelled = data.assign(**{COLUMN: spell(data[COLUMN])})
    assert_same_cpds(fit(system, spelled, state_names={COLUMN: mapping}), clean_fit)
    # the fix the message names, done by the caller
    assert_same_cpds(fit(system, spelled.assign(**{COLUMN: spelled[COLUMN].map(mapping)})),
                     clean_fit)


def test_a_number_whose_text_is_a_state_is_that_state() -> None:
    system = (cc.SystemBuilder(class_prior=0.4, positive="1", negative="0")
              .add_model("a", sensitivity=0.8, specificity=0.7)
              .add_model("b", sensitivity=0.6, specificity=0.9)
              .set_fusioner("or").build(slot="b"))
    data = system.network.simulate(2000, seed=3, show_progress=False).astype(str)
    as_numbers = data.assign(**{n: data[n].astype(int) for n in ("Class", "a", "b")})
    assert as_numbers["a"].dtype.kind == "i"
    assert_same_cpds(fit(system, as_numbers), fit(system, data))
    floats = data.assign(a=data["a"].astype(float))  # "1.0" is not "1": not guessed
    with pytest.raises(cc.DataError, match=r"^column 'a' holds values \[0\.0, 1\.0\] that are "
                                           r"not states of node 'a' \['1', '0'\]"):
        cc.fit_system(system, floats)


def test_only_the_values_that_are_not_states_are_named(majority3: tuple) -> None:
    system, data = majority3
    mixed = data[COLUMN].astype(object)
    mixed.iloc[:5] = [1, 1, None, "maybe", "P "]  # "P " is read as P
    with pytest.raises(cc.DataError) as info:
        cc.fit_system(system, data.assign(**{COLUMN: mixed}))
    assert str(info.value) == (
        "column 'images' holds values [1, 'maybe'] and 1 null(s) that are not states of node "
        "'images' ['P', 'N'] (4 row(s)); say which state each stands for: data['images'].map("
        "{1: ..., 'maybe': ...}) or state_names={'images': {1: ..., 'maybe': ...}}; drop the "
        "null rows (data.dropna(subset=['images'])) or fill them with a state")
    # a partial mapping: the values it names are mapped, the rest read as always
    mixed.iloc[2] = "N"
    learned = fit(system, data.assign(**{COLUMN: mixed}),
                  state_names={COLUMN: {1: "P", "maybe": "N"}})
    assert learned.network.get_cpds(COLUMN).state_names[COLUMN] == ["P", "N"]


def test_state_names_are_checked(majority3: tuple) -> None:
    system, data = majority3
    with pytest.raises(cc.UnknownNameError, match=r"state_names names 'imgs', which is not a "
                                                  r"column of data that is a node"):
        cc.fit_system(system, data, state_names={"imgs": {1: "P"}})
    with pytest.raises(cc.ValidationError, match=r"state_names\['images'\] maps 1 to 'p', which "
                                                 r"is not a state of node 'images'; its states "
                                                 r"are \['P', 'N'\]"):
        cc.fit_system(system, data, state_names={COLUMN: {1: "p"}})
    for wrong in (["P", "N"], {COLUMN: ["P", "N"]}):
        with pytest.raises(cc.InputTypeError, match=r"state_names.* must (map a column to|be) "
                                                    r"a mapping \{value: state\}"):
            cc.fit_system(system, data, state_names=wrong)
