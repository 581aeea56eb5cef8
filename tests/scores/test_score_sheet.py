"""The score sheet (causalcost.sheet.score_sheet): prices, rounding, file, digest, signature,
display, instances.

Independent computations: :func:`~causalcost.pricing.scores.price_scores` on the runs' own
critical scores (the exact sheet must equal it); the exact sheet's bounds (a sheet on
breakpoints must never be tighter); numpy counts and quantiles of the critical scores; the
majority-vote sheet of the same 0/1 log priced by :func:`causalcost.evaluate` (the kinds
bound) for the mean-threshold sheet on 0/1 scores.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcost as cc
from causalcost.data.score_runs import score_runs
from causalcost.errors import SheetError, ValidationError
from causalcost.pricing.scores import price_scores
from causalcost.sheet.critical import CriticalScores
from causalcost.sheet.digest import content_digest
from causalcost.sheet.instances import decide_instances, row_fingerprint, score_sheet_instances
from causalcost.sheet.score_sheet import ScoreSheet, score_sheet_from_runs
from causalcost.sheet.signature import SignatureError, signing_available

COSTS = cc.CostMatrix(fn=5, fp=1)
REL = 1e-12
needs_signing = pytest.mark.skipif(not signing_available(), reason="needs cryptography")


def random_runs(seed: int, n: int, decimals: int = 2, fusioner: str = "mean"):
    """A log of three models' scores (rounded, so critical scores tie) and its runs."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    scores = np.clip(np.where(y[:, None], 0.6, 0.4) + rng.normal(0, 0.25, (n, 3)), 0, 1)
    frame = pd.DataFrame(np.round(scores, decimals), columns=["a", "b", "c"])
    frame["y"] = y
    options = {"weights": [1.0, 2.0, 1.0]} if fusioner == "mean" else {}
    return score_runs(frame, truth="y", models=["a", "b", "c"], slot="b",
                      fusioner=fusioner, threshold=0.5, **options), rng


def candidate(rng: np.random.Generator, sizes: tuple[int, int], decimals: int = 2):
    """A candidate's scores per class (P scores higher on average)."""
    return tuple(np.round(np.clip(rng.normal(mu, 0.3, n), 0, 1), decimals)
                 for mu, n in zip((0.65, 0.35), sizes))


def close(a: float, b: float) -> bool:
    return a == pytest.approx(b, rel=REL, abs=1e-9)


# ------------------------------------------------------------------ exact sheet = pricing
@pytest.mark.parametrize("same", [True, False])
def test_exact_sheet_prices_equal_price_scores_on_the_runs(same: bool) -> None:
    runs, rng = random_runs(1, 300)
    sheet = cc.sheet_from_data(runs, COSTS)
    assert isinstance(sheet, ScoreSheet) and sheet.exact
    assert sheet.class_sizes == runs.class_sizes
    sizes = runs.class_sizes if same else (57, 91)
    s = candidate(rng, sizes)
    got = sheet.price(s, same_instances=same, confidence=0.9)
    want = price_scores(runs.critical_by_class, s, COSTS, same_instances=same,
                        confidence=0.9)
    assert got.to_dict() == want.to_dict()


def test_exact_sheet_price_many_equals_price_scores_per_candidate() -> None:
    runs, rng = random_runs(2, 120)
    sheet = cc.sheet_from_data(runs, COSTS)
    many = [candidate(rng, runs.class_sizes) for _ in range(4)]
    table = sheet.price_many((np.stack([c[0] for c in many]), np.stack([c[1] for c in many])),
                             same_instances=True, confidence=0.95)
    for k, c in enumerate(many):
        one = price_scores(runs.critical_by_class, c, COSTS, confidence=0.95)
        assert close(table["eval1"][k], one.eval1)
        assert close(table["worst_cost"][k], one.worst_cost)
        assert close(table["best_cost"][k], one.best_cost)
        assert close(table["high_confidence_worst_cost"][k], one.high_confidence_worst_cost)


# ------------------------------------------------------------- breakpoints keep bounds valid
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(5, 150), st.sampled_from([2, 3, 5, 10, 40]),
       st.sampled_from(["mean", "max", "min"]), st.booleans(), st.integers(1, 3))
def test_breakpoints_never_tighten_a_bound(seed: int, n: int, b: int, fusioner: str,
                                           same: bool, decimals: int) -> None:
    runs, rng = random_runs(seed, n, decimals, fusioner)
    costs = cc.CostMatrix(tp=rng.uniform(0, 1), fn=rng.uniform(1, 6), fp=rng.uniform(0, 3),
                          tn=0)
    exact = score_sheet_from_runs(runs, costs)
    rounded = score_sheet_from_runs(runs, costs, breakpoints=b)
    assert rounded.class_sizes == exact.class_sizes
    assert all(c.breakpoints.size <= b for c in rounded.critical)
    sizes = runs.class_sizes if same else tuple(int(v) for v in rng.integers(1, 30, 2))
    sizes = tuple(m if n_c else 0 for m, n_c in zip(sizes, runs.class_sizes))
    s = candidate(rng, sizes, decimals)
    e = exact.price(s, same_instances=same, confidence=0.9)
    r = rounded.price(s, same_instances=same, confidence=0.9)
    tol = 1e-9 * (1 + abs(e.worst_cost))
    assert r.worst_cost >= e.worst_cost - tol
    assert r.best_cost <= e.best_cost + tol
    assert r.eval1 >= e.eval1 - tol
    assert r.high_confidence_worst_cost >= e.high_confidence_worst_cost - tol
    assert r.high_confidence_best_cost <= e.high_confidence_best_cost + tol
    assert r.best_cost <= r.eval1 + tol and r.eval1 <= r.worst_cost + tol
    distinct = max(np.unique(t[np.isfinite(t)]).size for t in runs.critical_by_class)
    if b >= distinct:  # every distinct value kept: the sheet is exact
        assert rounded.exact
        assert [c.to_dict() for c in rounded.critical] == [c.to_dict() for c in exact.critical]
        assert r.to_dict() == e.to_dict()


def test_price_many_on_breakpoints_matches_price_per_candidate() -> None:
    runs, rng = random_runs(5, 200)
    sheet = score_sheet_from_runs(runs, COSTS, breakpoints=6)
    assert not sheet.exact
    many = [candidate(rng, runs.class_sizes) for _ in range(3)]
    table = sheet.price_many((np.stack([c[0] for c in many]), np.stack([c[1] for c in many])),
                             same_instances=True, confidence=0.9)
    for k, c in enumerate(many):
        one = sheet.price(c, same_instances=True, confidence=0.9)
        for column, value in (("eval1", one.eval1), ("worst_cost", one.worst_cost),
                              ("best_cost", one.best_cost),
                              ("high_confidence_worst_cost", one.high_confidence_worst_cost),
                              ("high_confidence_best_cost", one.high_confidence_best_cost)):
            assert close(table[column][k], value), column


# ---------------------------------------------------------------------- CriticalScores.of
finite_or_inf = st.one_of(st.sampled_from([-math.inf, math.inf]),
                          st.integers(-20, 20).map(lambda v: v / 8))


@settings(max_examples=200, deadline=None)
@given(st.lists(finite_or_inf, max_size=60), st.one_of(st.none(), st.integers(2, 12)))
def test_critical_scores_of_keeps_size_and_rounds_outward(values: list[float],
                                                          b: int | None) -> None:
    t = np.sort(np.array(values, dtype=float))
    c = CriticalScores.of(t, b)
    assert c.size == t.size
    assert c.always == int((t == -np.inf).sum()) and c.never == int((t == np.inf).sum())
    up, down = c.values("up"), c.values("down")
    assert up.size == down.size == t.size
    assert (up[:-1] <= up[1:]).all() and (down[:-1] <= down[1:]).all()  # sorted as built
    assert (up >= t).all() and (t >= down).all()  # elementwise, all three sorted
    finite = np.unique(t[np.isfinite(t)])
    if b is None or b >= finite.size:
        assert c.exact and np.array_equal(up, t) and np.array_equal(down, t)
        assert np.array_equal(c.breakpoints, finite)
    else:
        assert c.breakpoints.size <= b
        assert c.breakpoints[0] == finite[0] and c.breakpoints[-1] == finite[-1]
    # counts against numpy: at a breakpoint and strictly inside each gap
    bp = c.breakpoints
    assert c.at.tolist() == [int((t == v).sum()) for v in bp]
    assert c.between.tolist() == [int(((t > lo) & (t < hi)).sum()) for lo, hi in
                                  zip(bp[:-1], bp[1:])]
    assert CriticalScores.from_dict(json.loads(json.dumps(c.to_dict()))).to_dict() == \
        c.to_dict()


def test_critical_scores_refuses_bad_input() -> None:
    with pytest.raises(ValidationError, match="NaN"):
        CriticalScores.of([0.1, float("nan")])
    with pytest.raises(ValidationError, match="breakpoints must be a whole number >= 2"):
        CriticalScores.of([0.1, 0.2], breakpoints=1)
    with pytest.raises(ValidationError, match="rounding must be 'up' or 'down'"):
        CriticalScores.of([0.1]).values("sideways")


# --------------------------------------------------------------------------- the JSON file
def test_json_round_trip_through_load_sheet(tmp_path) -> None:
    runs, _ = random_runs(7, 80)
    for b in (None, 4):
        sheet = cc.sheet_from_data(runs, COSTS, breakpoints=b, description="test log",
                                   row_ids=[f"r{i}" for i in range(80)])
        again = cc.load_sheet(sheet.save(tmp_path / f"s{b}.json"))
        assert isinstance(again, ScoreSheet) and again == sheet
        assert again.digest == sheet.digest and again.exact == (b is None)
        for c, d in zip(again.critical, sheet.critical):
            assert c.to_dict() == d.to_dict()
    vote = cc.sheet_from_network("thesis_and", COSTS)
    assert cc.load_sheet(vote.save(tmp_path / "vote.json")) == vote


def test_digest_changes_with_any_content_change() -> None:
    runs, _ = random_runs(8, 40)
    sheet = cc.sheet_from_data(runs, COSTS, breakpoints=5)
    body = sheet.to_dict()
    changes = {"slot": "x", "system_name": "other", "rule": "max >= 1", "models": ["a", "c"],
               "costs": {**body["costs"], "fn": 6.0}, "created": "2020-01-01T00:00:00+00:00",
               "causalcost_version": "0.0.0", "provenance": {"source": "elsewhere"}}
    digests = {sheet.digest}
    for key, value in changes.items():
        fields = {k: v for k, v in body.items() if k not in ("digest", "signature")}
        fields[key] = value
        digests.add(content_digest(fields))
    for c in "PN":
        for key in ("at", "between"):
            fields = json.loads(json.dumps({k: v for k, v in body.items()
                                            if k not in ("digest", "signature")}))
            if fields["critical"][c][key]:
                fields["critical"][c][key][0] += 1
                digests.add(content_digest(fields))
    assert len(digests) == 1 + len(changes) + 4
    assert sheet.with_costs(cc.CostMatrix(fn=6, fp=1)).digest not in digests


def test_a_tampered_file_is_refused(tmp_path) -> None:
    runs, _ = random_runs(9, 40)
    path = cc.sheet_from_data(runs, COSTS).save(tmp_path / "s.json")
    data = json.loads(path.read_text())
    data["critical"]["N"]["never"] += 1
    path.write_text(json.dumps(data))
    with pytest.raises(SheetError, match="s.json: the score sheet's digest does not match its "
                                         "content: it was changed after it was issued"):
        cc.load_sheet(path)


def _body(seed: int = 10) -> dict:
    runs, _ = random_runs(seed, 30)
    return cc.sheet_from_data(runs, COSTS, breakpoints=3).to_dict()


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(extra=1), r"unknown keys \['extra'\]"),
    (lambda d: d.pop("rule"), r"missing keys \['rule'\]"),
    (lambda d: d.update(format="causalcost-sheet-x"), "format: 'causalcost-sheet-x'"),
    (lambda d: d.update(version=2), "version: .* not 2"),
    (lambda d: d.update(version=True), "version: "),
    (lambda d: d.update(labels=["N", "P"]), "labels: "),
    (lambda d: d["critical"]["P"].update(at=[-1] + d["critical"]["P"]["at"][1:]),
     r"critical.P.at: a list of counts \(whole numbers >= 0\), got the number -1 "),
    (lambda d: d["critical"]["N"].update(never=-2), "critical.N.never: a count of instances"),
    (lambda d: d["critical"]["P"].update(
        breakpoints=d["critical"]["P"]["breakpoints"][::-1]),
     "critical.P.breakpoints: finite numbers in strictly increasing order"),
    (lambda d: d["critical"]["P"].update(
        breakpoints=[float("nan")] + d["critical"]["P"]["breakpoints"][1:]),
     "critical.P.breakpoints: finite numbers .* got the number nan"),
    (lambda d: d["critical"]["N"].update(extra=0), r"critical.N: unknown keys \['extra'\]"),
    (lambda d: d["critical"].pop("N"), "critical: an object with one entry per class"),
    (lambda d: d["costs"].update(fn=float("nan")), "costs: "),
    (lambda d: d.update(models="a,b"), "models: a list"),
    (lambda d: d.update(slot=3), "slot: a string"),
    (lambda d: d.update(provenance=[]), "provenance: an object"),
    (lambda d: d.update(digest="abc"), "digest: an object"),
])
def test_bad_fields_raise_sheet_error_naming_the_field(edit, message: str) -> None:
    data = _body()
    edit(data)
    with pytest.raises(SheetError, match=message):
        ScoreSheet.from_dict(data)


def test_nan_in_a_file_is_refused(tmp_path) -> None:
    data = _body()
    data["critical"]["P"]["breakpoints"][0] = float("nan")
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(data))  # writes NaN, which is not JSON
    with pytest.raises(SheetError, match="nan.json: .*NaN"):
        cc.load_sheet(path)


def test_with_costs_is_a_new_unsigned_sheet_naming_its_parent(tmp_path) -> None:
    runs, rng = random_runs(11, 60)
    sheet = cc.sheet_from_data(runs, COSTS, breakpoints=4)
    other = sheet.with_costs(cc.CostMatrix(fn=10, fp=1))
    assert other.digest != sheet.digest and other.signature is None
    assert other.provenance["repriced_from"] == sheet.digest
    assert [c.to_dict() for c in other.critical] == [c.to_dict() for c in sheet.critical]
    s = candidate(rng, runs.class_sizes)
    # same critical scores, the costs' cells weigh the same confusions
    a, b = sheet.price(s, same_instances=True), other.price(s, same_instances=True)
    assert a.worst.to_dict() == b.worst.to_dict()
    assert close(b.worst_cost, 10 * a.worst.fn + a.worst.fp)
    if signing_available():
        private, _ = cc.generate_signing_key(tmp_path / "k.pem", tmp_path / "k.pub")
        signed = cc.load_sheet(cc.sign_sheet(sheet.save(tmp_path / "s.json"), private))
        assert signed.signature is not None
        repriced = signed.with_costs(cc.CostMatrix(fn=10, fp=1))
        assert repriced.signature is None and not repriced.signature_checked
        assert repriced.provenance["repriced_from"] == signed.digest


# ------------------------------------------------------ the hard-vote requirement
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(3, 120), st.floats(0.55, 0.95),
       st.floats(0.5, 10))
def test_mean_threshold_on_0_1_scores_equals_the_majority_vote_sheet(
        seed: int, n: int, accuracy: float, fn: float) -> None:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    if y.all() or not y.any():
        y[0] = not y[0]
    votes = {m: np.where(rng.random(n) < acc, y, ~y) for m, acc in
             (("a", accuracy), ("b", 0.7), ("c", 0.75))}
    log = pd.DataFrame({"y": y, **votes})
    costs = cc.CostMatrix(fn=fn, fp=1)
    runs = score_runs(log.astype({m: float for m in votes}), truth="y", models=["a", "b", "c"],
                      slot="b", fusioner="mean", threshold=0.5)
    score_sheet = cc.sheet_from_data(runs, costs)
    vote_sheet = cc.sheet_from_data(log, costs, truth="y", models=["a", "b", "c"], slot="b",
                                    fusioner="majority")
    pred = np.where(rng.random(n) < accuracy, y, ~y)
    scores = {"P": pred[y].astype(float), "N": pred[~y].astype(float)}
    tp, fp = int(pred[y].sum()), int(pred[~y].sum())
    confusion = cc.Confusion(tp=tp, fn=int(y.sum()) - tp, fp=fp, tn=int((~y).sum()) - fp)
    for same in (True, False):
        got = score_sheet.price(scores, same_instances=same)
        report = cc.evaluate(vote_sheet, confusion, same_instances=same)
        assert got.eval1 == pytest.approx(report.eval1, rel=REL, abs=1e-12), same
        assert got.worst_cost == pytest.approx(report.worst_cost, rel=REL, abs=1e-12), same
        assert got.best_cost == pytest.approx(report.best_cost, rel=REL, abs=1e-12), same


# ---------------------------------------------------------------------------- signing
@needs_signing
def test_sign_and_verify_a_score_sheet(tmp_path) -> None:
    runs, _ = random_runs(12, 50)
    sheet = cc.sheet_from_data(runs, COSTS, breakpoints=6)
    private, public = cc.generate_signing_key(tmp_path / "o.pem", tmp_path / "o.pub")
    path = cc.sign_sheet(sheet.save(tmp_path / "s.json"), private)
    verified = cc.verify_sheet(path, public)
    assert isinstance(verified.sheet, ScoreSheet)
    assert verified.digest == sheet.digest
    assert verified.sheet.signature_checked and verified.sheet.signed_by == \
        verified.fingerprint
    assert not sheet.signature_checked and sheet.signed_by is None
    assert "signed by ed25519:" in str(verified.sheet)
    # another owner's key
    _, other = cc.generate_signing_key(tmp_path / "x.pem", tmp_path / "x.pub")
    with pytest.raises(SignatureError, match="not with the key in x.pub"):
        cc.verify_sheet(path, other)
    # changed after signing, with a fresh digest: the signature no longer verifies
    data = json.loads(path.read_text())
    data["critical"]["P"]["always"] += 1
    data["digest"] = {"sha256": content_digest({k: v for k, v in data.items()
                                                if k not in ("digest", "signature")})}
    path.write_text(json.dumps(data))
    with pytest.raises(SignatureError, match="changed after it was signed"):
        cc.load_sheet(path)
    unsigned = sheet.save(tmp_path / "u.json")
    with pytest.raises(SignatureError, match="not signed"):
        cc.verify_sheet(unsigned, public)


@needs_signing
def test_a_carried_signature_is_checked_on_construction(tmp_path) -> None:
    runs, _ = random_runs(13, 30)
    sheet = cc.sheet_from_data(runs, COSTS)
    private, _ = cc.generate_signing_key(tmp_path / "o.pem", tmp_path / "o.pub")
    signed = cc.load_sheet(cc.sign_sheet(sheet.save(tmp_path / "s.json"), private))
    fields = dict(slot=signed.slot, system_name=signed.system_name, costs=signed.costs,
                  critical=signed.critical, rule=signed.rule, models=signed.models,
                  provenance=signed.provenance, created=signed.created,
                  causalcost_version=signed.causalcost_version)
    assert ScoreSheet(**fields, signature=signed.signature).signature_checked
    with pytest.raises(SignatureError, match="does not verify"):
        ScoreSheet(**{**fields, "system_name": "forged"}, signature=signed.signature)


# ---------------------------------------------------------------------------- display
def test_text_repr_html_and_frames() -> None:
    runs, _ = random_runs(14, 90)
    exact = cc.sheet_from_data(runs, COSTS, description="the March log")
    text = str(exact)
    for part in ("slot 'b'", runs.rule, f"{runs.class_sizes[0]} positives",
                 f"{runs.class_sizes[1]} negatives", "exact", "fn=5 fp=1", exact.digest,
                 "the March log", "50%"):
        assert part in text, part
    q = exact.critical_quantiles()
    for c, t in zip("PN", runs.critical_by_class):
        want = np.quantile(t, [0, 0.1, 0.5, 0.9, 1], method="inverted_cdf")
        got = q.loc[(c, "exact"), ["min", "10%", "50%", "90%", "max"]].to_numpy(float)
        assert np.array_equal(got, want)
        assert q.loc[(c, "exact"), "n"] == t.size
    small = cc.sheet_from_data(runs, COSTS, breakpoints=3)
    assert "on 3 breakpoints" in str(small) and "rounded outward" in str(small)
    qs = small.critical_quantiles()
    assert (qs.xs("down", level="rounded")["50%"] <= q.xs("exact", level="rounded")["50%"]).all()
    assert (qs.xs("up", level="rounded")["50%"] >= q.xs("exact", level="rounded")["50%"]).all()
    assert "on 3 breakpoints" in repr(small) and "ScoreSheet(slot='b'" in repr(small)
    html = small._repr_html_()
    assert html.startswith('<div class="causalcost">') and "Critical scores per class" in html
    assert small.digest in html
    # to_frame: the share said P with the slot forced to each breakpoint, against the runs
    def said_p(c: str, score: float) -> float:
        forced, (n_p, n_n) = runs.forced_at(score), runs.class_sizes
        return forced.tp / n_p if c == "P" else forced.fp / n_n

    for (c, score), row in exact.to_frame().iterrows():
        assert row["forced_p_low"] == pytest.approx(said_p(c, score), abs=1e-15)
        assert row["forced_p_high"] == row["forced_p_low"] and row["between_next"] == 0
    rounded = small.to_frame()
    for (c, score), row in rounded.iterrows():  # the breakpoints are real critical scores
        assert row["forced_p_low"] == pytest.approx(said_p(c, score), abs=1e-15)
        later = rounded.loc[c].index[rounded.loc[c].index > score]
        below_next = np.nextafter(later[0], -np.inf) if len(later) else score
        assert row["forced_p_high"] == pytest.approx(said_p(c, below_next), abs=1e-15)
    with pytest.raises(ValidationError, match="levels"):
        exact.critical_quantiles([2.0])


def test_sheet_contract_views() -> None:
    runs, _ = random_runs(15, 20)
    sheet = cc.sheet_from_data(runs, COSTS)
    assert (sheet.k, sheet.binary, sheet.label_names, sheet.verified) == \
        (2, True, ("P", "N"), True)
    assert sheet.class_counts == runs.class_sizes


# ----------------------------------------------------------------- which rows: instances
def test_row_fingerprint_proves_the_same_instances() -> None:
    runs, _ = random_runs(16, 40)
    ids = [f"row{i}" for i in range(40)]
    sheet = cc.sheet_from_data(runs, COSTS, row_ids=ids)
    same, other = row_fingerprint(ids[::-1]), row_fingerprint(ids[:-1] + ["new"])
    assert score_sheet_instances(sheet, False, same)
    assert not score_sheet_instances(sheet, False, other)
    assert not score_sheet_instances(sheet, False, None)
    assert score_sheet_instances(sheet, True, None)
    with pytest.raises(ValidationError, match="contradicts"):
        score_sheet_instances(sheet, True, other)
    with pytest.raises(ValidationError, match="must be a 'sha256:...' string"):
        score_sheet_instances(sheet, False, "abc")
    unmarked = cc.sheet_from_data(runs, COSTS)
    with pytest.raises(ValidationError, match="records no row fingerprint"):
        score_sheet_instances(unmarked, False, same)
    with pytest.raises(ValidationError, match="True or False"):
        score_sheet_instances(sheet, "yes", None)  # type: ignore[arg-type]
    # the general decision names what the score sheet counted, and checks the class sizes
    n_p, n_n = runs.class_sizes
    decided = decide_instances(sheet, n_p, n_n, row_fingerprint=same)
    assert decided.same and decided.how == "fingerprint"
    assert "critical scores" in decided.text()
    with pytest.raises(SheetError, match="the sheet's critical scores counted"):
        decide_instances(sheet, n_p + 1, n_n, same_instances=True)
    with pytest.raises(ValidationError, match="row_ids has 3 identifiers"):
        cc.sheet_from_data(runs, COSTS, row_ids=["a", "b", "c"])


def test_score_sheet_instances_refuses_a_cost_sheet() -> None:
    with pytest.raises(ValidationError, match="takes a ScoreSheet"):
        score_sheet_instances(cc.sheet_from_network("thesis_and", COSTS), True, None)


def test_constructor_refuses_bad_fields_by_name() -> None:
    c = CriticalScores.of([0.5])
    good = dict(slot="b", system_name="s", costs=COSTS, critical=(c, c), rule="mean >= 0.5")
    for key, value, message in (("slot", "", "slot: "), ("system_name", 3, "system_name: "),
                                ("rule", None, "rule: "), ("provenance", [], "provenance: "),
                                ("critical", (c,), "critical: one CriticalScores per class"),
                                ("labels", ("N", "P"), "labels are")):
        with pytest.raises(ValidationError, match=message):
            ScoreSheet(**{**good, key: value})
    empty = CriticalScores.of([])
    with pytest.raises(ValidationError, match="at least one instance"):
        ScoreSheet(**{**good, "critical": (empty, empty)})
