"""Issue 16.10: wrong inputs raise CausalCostError subclasses naming the argument (never a bare
TypeError / ValueError / AttributeError / OverflowError from deep inside), and sampling refuses
sample counts beyond its stated ceiling (10**9) in Python and on the command line."""

from __future__ import annotations

import pandas as pd
import pytest

import causalcost as cc
from causalcost.cli import main
from causalcost.inference.sampling import MAX_SAMPLES, outcome_counts

LOG = pd.DataFrame({"truth": [1, 0, 1, 0, 1, 0], "a": [1, 0, 0, 0, 1, 1],
                    "b": [1, 1, 1, 0, 1, 0], "c": [0, 0, 1, 0, 1, 0]})


def test_sheet_from_data_costs_as_a_dict() -> None:
    with pytest.raises(cc.InputTypeError) as info:
        cc.sheet_from_data(LOG, {"fn": 1, "fp": 1}, truth="truth", slot="a",
                           fusioner="majority", models=["a", "b", "c"])
    assert isinstance(info.value, cc.CausalCostError) and isinstance(info.value, TypeError)
    assert "costs must be a CostMatrix" in str(info.value) and "got dict" in str(info.value)


@pytest.mark.parametrize(("args", "needle"), [
    (("sheet.json", b"-----BEGIN PUBLIC KEY-----"), "public_key_path must be the path"),
    ((b"sheet.json", "key.pem"), "sheet_path must be the path"),
    (("sheet.json", None), "public_key_path must be the path"),
])
def test_verify_sheet_with_key_bytes(args: tuple, needle: str) -> None:
    with pytest.raises(cc.InputTypeError) as info:
        cc.verify_sheet(*args)
    assert isinstance(info.value, cc.CausalCostError)
    assert needle in str(info.value)


def test_sign_sheet_and_key_generation_name_their_paths() -> None:
    with pytest.raises(cc.InputTypeError, match="sheet_path must be the path"):
        cc.sign_sheet(b"sheet.json", "key.pem")
    with pytest.raises(cc.InputTypeError, match="public_path must be the path"):
        cc.generate_signing_key("never-written.pem", 3)


@pytest.fixture(scope="module")
def settings() -> tuple[cc.System, cc.ExplorerSettings]:
    system = cc.load_network("majority3")
    return system, cc.explorer_settings(system)


@pytest.mark.parametrize("rates", [
    [1, 2],  # used to raise TypeError: cannot unpack non-iterable int
    "abc",  # used to raise ValueError: not enough values to unpack
    (("images", 0.8),),
    ((1, 0.8, 0.9),),
    [("images", 0.8, 0.9)],
])
def test_explorer_settings_replace_rates(settings: tuple, rates: object) -> None:
    _, s = settings
    with pytest.raises(cc.ValidationError) as info:
        s.replace(rates=rates)
    assert isinstance(info.value, cc.CausalCostError)
    assert "rates must be a tuple of (model, sensitivity, specificity)" in str(info.value)


@pytest.mark.parametrize(("field", "value", "needle"), [
    ("rates", (("images", "high", 0.9),), "sensitivity of 'images'"),
    ("class_prior", "0.3", "class_prior"),
    ("correlation", (0.5,), "correlation must be None or"),
    ("high_confidence", "yes", "high_confidence must be True or False"),
    ("confidence", None, "confidence"),
])
def test_explorer_settings_other_fields(settings: tuple, field: str, value: object,
                                        needle: str) -> None:
    _, s = settings
    with pytest.raises(cc.ValidationError) as info:
        s.replace(**{field: value})
    assert needle in str(info.value)


def test_explorer_view_with_none(settings: tuple) -> None:
    system, s = settings
    with pytest.raises(cc.InputTypeError) as info:
        cc.explorer_view(None, s)
    assert "base must be" in str(info.value) and "got NoneType" in str(info.value)
    with pytest.raises(cc.InputTypeError, match="settings must be"):
        cc.explorer_view(system, None)
    with pytest.raises(cc.InputTypeError, match="previous must be None or the last"):
        cc.explorer_view(system, s, previous="view")
    with pytest.raises(cc.InputTypeError, match="system must be a causalcost System"):
        cc.explorer_settings(None)
    other = cc.load_network("thesis_and")
    with pytest.raises(cc.ValidationError, match=r"settings.rates name the models"):
        cc.explorer_view(other, s)


def test_fit_system_with_none() -> None:
    with pytest.raises(cc.InputTypeError, match="system must be a causalcost System"):
        cc.fit_system(None, LOG)


def test_builder_weighted_threshold_beyond_float_range() -> None:
    b = cc.SystemBuilder(0.3)
    for m in "abc":
        b.add_model(m, sensitivity=0.8, specificity=0.9)
    with pytest.raises(cc.ValidationError) as info:  # was OverflowError
        b.set_fusioner("weighted", weights=[1, 1, 1], threshold=10**400)
        b.build()
    assert isinstance(info.value, cc.CausalCostError) and "threshold" in str(info.value)


# ------------------------------------------------------------------------- sample ceiling
CEILING = r"samples \(10000000000\) exceeds the ceiling of 1000000000 \(10\*\*9"


@pytest.mark.parametrize("call", [
    lambda s: cc.interventional_table(s, method="sampling", samples=10**10, seed=0),
    lambda s: cc.sampled_table(s, samples=10**10, seed=0),
    lambda s: cc.simulate_forced_runs(s, samples=10**10, seed=0),
    lambda s: outcome_counts(s, samples=10**10, seed=0),
    lambda s: cc.sheet_from_network(s, cc.CostMatrix(), method="sampling", samples=10**10),
])
def test_python_sampling_refuses_beyond_the_ceiling(call: object) -> None:
    system = cc.load_network("thesis_and")
    with pytest.raises(cc.ValidationError, match=CEILING):  # up front: 10**10 draws take hours
        call(system)  # type: ignore[operator]


def test_the_ceiling_itself_is_accepted_by_the_check() -> None:
    from causalcost.inference.sampling import _check_samples

    assert MAX_SAMPLES == 10**9 and _check_samples(10**9) == 10**9
    with pytest.raises(cc.ValidationError, match="exceeds the ceiling"):
        _check_samples(10**9 + 1)


@pytest.mark.parametrize("argv", [
    ["query", "thesis_and", "--method", "sampling", "--samples", "1e10"],
    ["derive", "thesis_and", "--costs", "fn=1,fp=1", "--method", "sampling", "--samples",
     "10000000000"],
])
def test_cli_sampling_refuses_beyond_the_ceiling(capsys: pytest.CaptureFixture[str],
                                                 argv: list[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "--samples" in err and "exceeds the ceiling of 1000000000 (10**9" in err
    assert "--method exact" in err
