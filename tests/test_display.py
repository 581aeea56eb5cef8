"""What a notebook shows: every value object's HTML (or SVG) is well formed and carries its
numbers, whole numbers whole; the system's picture is valid SVG with the mutilation drawn."""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.display import format_number, html_block, html_table

VOID = {"br", "img", "hr", "meta", "input"}
SVG = "{http://www.w3.org/2000/svg}"


class _Checker(HTMLParser):
    """Collects text and checks that every tag is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.cells: list[str] = []
        self._in_td = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "td":
            self._in_td, self._cell = True, ""

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag == "td":
            self._in_td = False
            self.cells.append(self._cell.strip())

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_td:
            self._cell += data


def parse_html(text: str) -> _Checker:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.stack == [], f"unclosed tags {checker.stack}"
    return checker


def words(text: str) -> str:
    return " ".join(" ".join(parse_html(text).text).split())


@pytest.fixture(scope="module")
def thesis() -> cc.System:
    return cc.load_network("thesis_and")


@pytest.fixture(scope="module")
def sheet(thesis: cc.System) -> cc.CostSheet:
    return cc.sheet_from_network(thesis, cc.CostMatrix(fn=5, fp=1))


# -------------------------------------------------------------------------- the system
def test_system_svg_is_valid_and_marks_roles(thesis: cc.System) -> None:
    root = ET.fromstring(thesis._repr_svg_())
    assert root.tag == f"{SVG}svg"
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    assert {f"node:{n}" for n in thesis.network.nodes} <= set(groups)
    edges = {p.get("id") for p in root.iter(f"{SVG}path") if p.get("id")}
    assert edges == {f"edge:{u}->{v}" for u, v in thesis.network.edges}
    for node in thesis.network.nodes:  # deterministic nodes are double-circled, others not
        circles = groups[f"node:{node}"].findall(f"{SVG}circle")
        assert len(circles) == (2 if node in thesis.deterministic_nodes else 1), node
    slot_circle = groups["node:clinical_history"].find(f"{SVG}circle")
    assert slot_circle is not None and slot_circle.get("stroke") == cc.network.picture.SLOT_INK


def test_mutilated_picture_cuts_the_edges_into_the_slot_only() -> None:
    system = cc.load_network("population_and")
    root = ET.fromstring(cc.system_picture(system, intervention="N").svg)
    edges = {p.get("id") for p in root.iter(f"{SVG}path") if p.get("id")}
    cut = {f"edge:{u}->{v}" for u, v in system.network.in_edges(system.slot)}
    assert cut and edges == {f"edge:{u}->{v}" for u, v in system.network.edges} - cut
    slot = next(g for g in root.iter(f"{SVG}g") if g.get("id") == f"node:{system.slot}")
    assert slot.find(f"{SVG}rect") is not None and slot.find(f"{SVG}circle") is None
    label = [t.text for t in slot.iter(f"{SVG}tspan")]
    assert label == ["do(clinical_", "history", "= N)"]  # the value on a line of its own


def test_intervention_picture_has_both_panels() -> None:
    system = cc.load_network("majority3")
    root = ET.fromstring(cc.intervention_picture(system, value="P").svg)
    ids = {g.get("id") for g in root.iter(f"{SVG}g") if g.get("id")}
    assert {f"node:{n}" for n in system.network.nodes} <= ids
    assert {f"do:node:{n}" for n in system.network.nodes} <= ids


def test_system_html_shows_picture_and_roles(thesis: cc.System) -> None:
    text = thesis._repr_html_()
    parse_html(text)
    assert "<svg" in text
    frame = thesis.to_frame()
    assert frame.loc["clinical_history", "role"] == "slot"
    assert frame.loc["Fusioner", "deterministic"] and not frame.loc["images", "deterministic"]
    said = words(text)
    for node, role in thesis.roles.items():
        assert node in said and role in said


def test_picture_of_a_bad_state_is_refused(thesis: cc.System) -> None:
    with pytest.raises(cc.UnknownNameError, match="valid states"):
        cc.system_picture(thesis, intervention="maybe")
    with pytest.raises(TypeError, match="System"):
        cc.system_picture(thesis.network)  # type: ignore[arg-type]


def test_picture_escapes_names() -> None:
    system = (cc.SystemBuilder(class_prior=0.4).add_model("a<b", sensitivity=0.8, specificity=0.7)
              .add_model("c&d", sensitivity=0.6, specificity=0.9).set_fusioner("or")
              .build(slot="c&d"))
    ET.fromstring(system._repr_svg_())  # well-formed XML despite < and &
    parse_html(system._repr_html_())


# ------------------------------------------------------------------- tables and results
def test_interventional_table_html_is_the_compact_grid_with_intervals(thesis: cc.System) -> None:
    exact = cc.interventional_table(thesis)
    checker = parse_html(exact._repr_html_())
    grid = exact.grid()
    assert grid.shape == (4, 4)
    assert [format_number(v) for v in grid.to_numpy().ravel()] == checker.cells[:16]
    sampled = cc.interventional_table(thesis, method="sampling", samples=4000, seed=3)
    cells = parse_html(sampled._repr_html_()).cells
    pattern = re.compile(r"^[\d.e+-]+ \[[\d.e+-]+, [\d.e+-]+\]$")
    assert all(pattern.match(c) for c in cells[:16]), cells[:16]
    low, high = sampled.lower.reshape(4, 4), sampled.upper.reshape(4, 4)
    estimate, lo, hi = (float(v) for v in re.findall(r"[\d.e+-]+", cells[0]))
    assert estimate == pytest.approx(sampled.grid().iat[0, 0], rel=1e-3)
    assert lo == pytest.approx(low[0, 0], rel=1e-3) and hi == pytest.approx(high[0, 0], rel=1e-3)
    assert lo <= estimate <= hi


def test_error_rates_and_monotonicity_have_html(thesis: cc.System) -> None:
    rates = cc.error_rates(thesis)
    assert parse_html(rates._repr_html_()).cells == ["0.2", "1", "0.2", "0"]
    good = words(cc.check_monotonicity(thesis)._repr_html_())
    assert "is monotone" in good
    bad = cc.inference.monotonicity.MonotonicityCheck("b", "S", False, {"a": "P"}, 2)
    text = words(bad._repr_html_())
    assert "NOT monotone" in text and "a violating assignment" in text


def test_report_html_keeps_the_witness_text_and_whole_numbers(sheet: cc.CostSheet) -> None:
    report = cc.evaluate(sheet, cc.Confusion(tp=50, fn=50, fp=100, tn=100))
    text = report._repr_html_()
    said = words(text)
    assert "How the worst case can happen" in said
    assert report.witnesses["worst"].describe().splitlines()[0] in said
    cells = parse_html(text).cells
    assert "320" in cells and "390" in cells and "250" in cells
    assert not any(re.fullmatch(r"-?\d+\.0", c) for c in cells)


def test_report_html_with_confidence_shows_intervals(sheet: cc.CostSheet) -> None:
    forced_p = cc.Confusion(tp=50, fn=0, fp=50, tn=0)
    forced_n = cc.Confusion(tp=25, fn=25, fp=25, tn=25)
    s = cc.sheet_from_forced_runs(forced_p, forced_n, cc.CostMatrix(fn=1, fp=1), slot="m",
                                  description="split A")
    report = cc.evaluate(s, cc.Confusion(tp=25, fn=25, fp=25, tn=25), confidence=0.95)
    said = words(report._repr_html_())
    assert "95% interval" in said
    assert format_number(report.high_confidence.worst_cost) in said


def test_bound_and_witness_html() -> None:
    result = cc.bound(forced_p=cc.Confusion(tp=50, fn=50, fp=0, tn=0),
                      forced_n=cc.Confusion(tp=0, fn=100, fp=0, tn=0),
                      model=cc.Confusion(tp=50, fn=50, fp=0, tn=0),
                      costs=cc.CostMatrix(fn=1, fp=1))
    said = words(result._repr_html_())
    assert "How the worst case can happen" in said and "How the best case can happen" in said
    cells = parse_html(result._repr_html_()).cells
    assert {"100", "75", "50"} <= set(cells)
    assert "system error" in words(result.worst_witness._repr_html_())


def test_sheet_runs_and_matrices_have_html(sheet: cc.CostSheet) -> None:
    said = words(sheet._repr_html_())
    assert sheet.digest in said and "cost function 1" in said
    cells = parse_html(cc.Confusion(tp=7, fn=3, fp=2, tn=8)._repr_html_()).cells
    assert cells == ["7", "3", "2", "8"]
    frame = pd.DataFrame({"y": [True, True, False, False, True, False],
                          "a": [True, False, True, False, True, False],
                          "b": [True, True, False, False, False, True]})
    runs = cc.forced_runs(frame, truth="y", models=["a", "b"], slot="b", fusioner="and")
    checker = parse_html(runs._repr_html_())
    assert not any(re.fullmatch(r"-?\d+\.0", c) for c in checker.cells)


def test_experiment_results_have_html() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        coverage = cc.coverage_experiment(n1=[20], n2=[20], repetitions=30, seed=1)
        ratio = cc.ratio_experiment(n=200, repetitions=30, seed=1)
    parse_html(coverage._repr_html_())
    parse_html(ratio._repr_html_())


def test_compare_prints_narrow_and_stays_a_dataframe(sheet: cc.CostSheet) -> None:
    table = cc.compare(sheet, {"a": cc.Confusion(tp=50, fn=50, fp=100, tn=100),
                               "b": cc.Confusion(tp=70, fn=30, fp=60, tn=140),
                               "always positive": cc.Confusion(tp=100, fn=0, fp=200, tn=0)})
    assert isinstance(table, pd.DataFrame)
    assert table.attrs["slot"] == "clinical_history"
    text = str(table)
    assert max(map(len, text.splitlines())) <= 80, text
    assert "..." not in text  # nothing elided
    for name in table.index:
        assert name in text
    assert format_number(table.loc["b", "worst_cost"]) in text
    parse_html(table._repr_html_())
    assert type(table.sort_values("eval2")) is pd.DataFrame


def test_comparison_results_have_html() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.4
    a, b = y ^ (rng.random(200) < 0.2), y ^ (rng.random(200) < 0.3)
    result = cc.mcnemar_test(y, a, b)
    parse_html(result._repr_html_())


# --------------------------------------------------------------------- the building blocks
@settings(max_examples=60, deadline=None)
@given(names=st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True),
       values=st.lists(st.one_of(st.integers(-10**6, 10**6),
                                 st.floats(allow_nan=False, allow_infinity=False, width=32)),
                       min_size=1, max_size=4))
def test_html_table_escapes_and_formats(names: list[str], values: list[float]) -> None:
    frame = pd.DataFrame({n: values for n in names})
    checker = parse_html(html_table(frame, caption="<caption & more>"))
    assert checker.cells == [format_number(v) for v in values for _ in names]
    text = " ".join(checker.text)
    for name in names:
        assert name.strip() == "" or name.split()[0] in text


def test_html_block_escapes_text() -> None:
    text = html_block("a <b>", ["x < y", "z & w"], notes=["<script>"])
    assert "<script>" not in text
    assert words(text) == "a <b> x < y z & w <script>"
