"""``evaluate --label-accuracy`` and ``runs --threshold`` on K-label sheets and logs (K = 2, 3, 4).

The label-noise range the CLI prints is the Python API's (``cc.label_noise_range``) on the
candidate's confusion counted here with numpy; the range holds Eval1 as counted, which a
numpy sum over the sheet's table gives. ``--threshold`` with ``--labels`` counts the
thresholded weighted vote that a per-row re-run gives.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import causalcost as cc
from causalcost.cli.app import main

sys.path.insert(0, str(Path(__file__).parents[1] / "evaluation"))
from klabel_fixtures import MODELS, labels_of, log, sheet_of  # noqa: E402


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def numpy_confusion(k: int, truth, pred) -> np.ndarray:
    index = {n: i for i, n in enumerate(labels_of(k))}
    out = np.zeros((k, k))
    np.add.at(out, (truth.map(index).to_numpy(), pred.map(index).to_numpy()), 1)
    return out


@pytest.fixture(scope="module", params=[2, 3, 4])
def setup(request, tmp_path_factory):
    k = request.param
    tmp = tmp_path_factory.mktemp(f"noise{k}")
    frame = log(k)
    frame.to_csv(tmp / "log.csv", index=False)
    frame[["truth", "cand"]].rename(columns={"cand": "prediction"}).to_csv(
        tmp / "cand.csv", index=False)
    sheet = sheet_of(k, frame)
    sheet.save(tmp / "s.json")
    return k, tmp, frame, cc.load_sheet(tmp / "s.json")


def test_label_accuracy_gives_the_k_label_range(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    counts = numpy_confusion(k, frame["truth"], frame["cand"])
    expected = cc.label_noise_range(sheet, cc.Confusion(counts, labels=labels_of(k)), 0.9)
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--predictions", tmp / "cand.csv",
                         "--label-accuracy", "0.9", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["label_noise"] == json.loads(json.dumps(expected.to_dict()))
    text = ";".join(",".join(f"{v:g}" for v in row) for row in counts)
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--model", f"cand:{text}",
                         "--label-accuracy", "0.9")
    assert code == 0, err
    assert out.rstrip().endswith(str(expected).rstrip())


def test_the_range_holds_eval1_as_counted(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    counts = numpy_confusion(k, frame["truth"], frame["cand"])
    eval1 = float(np.einsum("cj,cjs,cs->", counts, np.asarray(sheet.table_array),
                            np.asarray(sheet.costs_array)))
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--predictions", tmp / "cand.csv",
                         "--label-accuracy", "0.8", "--json")
    assert code == 0, err
    noise = json.loads(out)["label_noise"]["eval1"]
    assert noise["observed"] == pytest.approx(eval1, rel=1e-12)
    assert noise["low"] <= noise["observed"] <= noise["high"]


def test_label_accuracy_with_two_candidates_exits_2(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    text = ";".join(",".join("1" for _ in range(k)) for _ in range(k))
    code, out, err = run(capsys, "evaluate", tmp / "s.json", "--model", f"a:{text}",
                         "--model", f"b:{text}", "--label-accuracy", "0.9")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--label-accuracy applies to one candidate; 2 were given" in err


def test_runs_threshold_with_labels(setup, capsys) -> None:
    k, tmp, frame, sheet = setup
    labels = labels_of(k)
    label = labels[-1]
    code, out, err = run(capsys, "runs", tmp / "log.csv", "--labels", ",".join(labels),
                         "--truth", "truth", "--models", ",".join(MODELS), "--slot", "m2",
                         "--fusioner", "weighted", "--weights", "1,2,1", "--threshold", "2",
                         "--label", label, "--json")
    assert code == 0, err
    forced = json.loads(out)["forced"]
    weights = dict(zip(MODELS, (Fraction(1), Fraction(2), Fraction(1))))
    expected = np.zeros((k, k, k), dtype=int)
    for row in frame.to_dict("records"):
        for j, lab in enumerate(labels):
            votes = {m: lab if m == "m2" else row[m] for m in MODELS}
            tally = {v: sum((weights[m] for m in MODELS if votes[m] == v), Fraction(0))
                     for v in labels}
            if tally[label] >= 2:
                out_label = label
            else:
                top = max(tally[v] for v in labels if v != label)
                out_label = next(v for v in labels if v != label and tally[v] == top)
            expected[j, labels.index(row["truth"]), labels.index(out_label)] += 1
    for j, lab in enumerate(labels):
        assert forced[lab] == expected[j].tolist()
    code, out, err = run(capsys, "runs", tmp / "log.csv", "--labels", ",".join(labels),
                         "--truth", "truth", "--models", ",".join(MODELS), "--slot", "m2",
                         "--fusioner", "plurality", "--positive-label", labels[0])
    assert code == 2 and "--positive-label are binary options" in err
    assert len(err.strip().splitlines()) == 1
