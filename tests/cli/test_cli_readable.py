"""Readable CLI output (issue 17): counts as integers, no Python reprs, lines under 100
characters, expected counts in witness sentences rounded and said to be expected.

Covers the commands whose text the CLI formats itself (``evaluate`` and ``roc`` print the
report and sweep objects, formatted elsewhere). Paths are kept short (the lines are measured;
a long path the user typed may make a line longer).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import causalcost as cc
from causalcost.cli.app import main

REPR = re.compile(r"\b[A-Z][A-Za-z]+\(")  # Confusion(...), CostMatrix(...), ForcedRuns(...)
FLOAT_COUNT = re.compile(r"(?<![\d.])\d+\.0(?![\d])")  # 2.0 where a count goes
FORCED = ["--forced-p", "tp=80,fn=20,fp=40,tn=160", "--forced-n", "tp=0,fn=100,fp=0,tn=200"]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    rows = [(1, 1, 0), (0, 0, 1), (1, 1, 1), (1, 0, 0), (0, 1, 1)] * 7
    Path("d.csv").write_text("y,a,b\n" + "".join(f"{y},{a},{b}\n" for y, a, b in rows))
    cc.sheet_from_network("thesis_and", cc.CostMatrix(fn=5, fp=1)).save("s.json")
    return tmp_path


ARGV = {
    "query": ["query", "thesis_and"],
    "query_sampling": ["query", "thesis_and", "--method", "sampling", "--samples", "1e4",
                       "--seed", "1"],
    "networks": ["networks"],
    "bound": ["bound", *FORCED, "--model", "tp=50,fn=50,fp=100,tn=100", "--costs", "fn=5,fp=1"],
    "bound_confidence": ["bound", *FORCED, "--model", "tp=50,fn=50,fp=100,tn=100",
                         "--confidence", "0.95", "--label-accuracy", "0.9"],
    "bound_none": ["bound", *FORCED, "--model", "tp=50,fn=50,fp=100,tn=100", "--assumption",
                   "none"],
    "runs": ["runs", "d.csv", "--truth", "y", "--models", "a,b", "--slot", "a", "--fusioner",
             "or", "--candidate", "b", "--confidence", "0.9"],
    "derive": ["derive", "thesis_and", "--costs", "fn=5,fp=1", "-o", "o.json"],
    "derive_forced": ["derive", *FORCED, "--slot", "s", "--costs", "fn=5,fp=1", "-o", "f.json"],
    "derive_data": ["derive", "--data", "d.csv", "--truth", "y", "--models", "a,b", "--slot",
                    "a", "--fusioner", "or", "--costs", "fn=5,fp=1", "-o", "g.json"],
    "reprice": ["derive", "s.json", "--costs", "fn=9,fp=2", "-o", "r.json"],
    "export": ["export", "thesis_and", "-o", "t.bif"],
    "evaluate": ["evaluate", "s.json", "--model", "tp=50,fn=40,fp=100,tn=110", "--confidence",
                 "0.95"],
    "compare": ["evaluate", "s.json", "--model", "x:tp=50,fn=50,fp=100,tn=100", "--model",
                "z:tp=70,fn=30,fp=60,tn=140", "--confidence", "0.95"],
    "backtest": ["backtest", "d.csv", "--truth", "y", "--models", "a", "--slot", "a",
                 "--fusioner", "and", "--candidates", "b", "--costs", "fn=5,fp=1"],
    "importance": ["importance", "d.csv", "--truth", "y", "--models", "a,b", "--fusioner", "or",
                   "--costs", "fn=5,fp=1"],
}


@pytest.mark.parametrize("case", sorted(ARGV))
def test_output_is_readable(capsys: pytest.CaptureFixture[str], here: Path, case: str) -> None:
    assert main(ARGV[case]) == 0
    out = capsys.readouterr().out
    assert out.strip()
    for line in out.splitlines():
        assert len(line) < 100, (case, line)
        assert not REPR.search(line), (case, line)
        assert not FLOAT_COUNT.search(line), (case, line)


def test_runs_text_holds_the_counts(capsys: pytest.CaptureFixture[str], here: Path) -> None:
    assert main(ARGV["runs"]) == 0
    out = capsys.readouterr().out
    runs = cc.forced_runs(cc.read_table("d.csv"), truth="y", models=["a", "b"], slot="a",
                          fusioner="or")
    p, n = runs.forced_p, runs.forced_n
    assert f"slot forced to P:  tp={p.tp:.0f} fn={p.fn:.0f} fp={p.fp:.0f} tn={p.tn:.0f}" in out
    assert f"slot forced to N:  tp={n.tp:.0f} fn={n.fn:.0f} fp={n.fp:.0f} tn={n.tn:.0f}" in out
    kinds = runs.kinds
    assert ("positives by kind: " + ", ".join(f"{k} {int(kinds.loc['P', k])}"
                                              for k in kinds.columns)) in out
    assert f"in {runs.n} instances" in out


def test_bound_text_wraps_but_keeps_every_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(ARGV["bound"]) == 0
    out = capsys.readouterr().out
    result = cc.bound(cc.Confusion(80, 20, 40, 160), cc.Confusion(0, 100, 0, 0 + 200),
                      cc.Confusion(50, 50, 100, 100), cc.CostMatrix(fn=5, fp=1))
    flat = " ".join(out.split())
    for sentence in result.worst_witness.describe().splitlines():
        assert " ".join(sentence.split()) in flat
    assert "model tp=50 fn=50 fp=100 tn=100 under costs tp=0 fn=5 fp=1 tn=0" in out


def test_expected_counts_in_a_report_say_about(capsys: pytest.CaptureFixture[str]) -> None:
    # a probability-form bound on 1000 positives and 2000 negatives: fractional expected counts
    b = cc.bound_from_rates(cc.ErrorRates(0.2, 1.0, 0.2087, 0.0),
                            cc.Confusion(565, 435, 977, 1023))
    text = str(b)
    flat = " ".join(text.split())
    assert "about 417 model mistakes" in flat and "about 417 system errors" in flat
    assert all(len(line) < 100 for line in text.splitlines())


def test_signing_output_is_readable(capsys: pytest.CaptureFixture[str], here: Path) -> None:
    pytest.importorskip("cryptography")
    outputs = []
    for argv in (["keygen", "k.pem", "k.pub.pem"], ["sign", "s.json", "--key", "k.pem"],
                 ["verify", "s.json", "--public-key", "k.pub.pem"]):
        assert main(argv) == 0
        outputs.append(capsys.readouterr().out)
    digest = cc.load_sheet("s.json").digest
    assert f"  sheet: {digest}" in outputs[2].splitlines()
    for line in "".join(outputs).splitlines():
        assert len(line) < 100 and not REPR.search(line), line


def test_experiment_summaries_are_readable_and_match_the_csv(
        capsys: pytest.CaptureFixture[str], here: Path) -> None:
    import pandas as pd

    assert main(["experiment", "coverage", "thesis_and", "--n1", "10,100", "--n2", "10,100",
                 "--repetitions", "20", "--quiet", "-o", "cov"]) == 0
    assert main(["experiment", "ratio", "--n", "200", "--repetitions", "20", "--quiet",
                 "-o", "rat"]) == 0
    out = capsys.readouterr().out
    frame = pd.read_csv("cov/coverage.csv")
    assert (f"plain worst case holds in {frame['p_plain'].min():.1%} to "
            f"{frame['p_plain'].max():.1%}") in out
    ratios = pd.read_csv("rat/ratio.csv")
    assert f"{(ratios['ratio_plain'] > 1).mean():.2%} plain" in out
    for line in out.splitlines():
        assert len(line) < 100 and not REPR.search(line), line
