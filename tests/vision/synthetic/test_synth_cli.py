import json
from pathlib import Path

import pytest
from PIL import Image

from api.cli import main


def test_synth_writes_a_set_and_a_contact_sheet(tmp_path, capsys):
    out = tmp_path / "set"
    sheet = tmp_path / "sheet.png"
    code = main(
        [
            "synth",
            "--n",
            "2",
            "--seed",
            "4",
            "--out",
            str(out),
            "--size",
            "400x300",
            "--difficulty",
            "easy",
            "--contact-sheet",
            str(sheet),
        ]
    )
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "0000.instance.png",
        "0000.jpg",
        "0000.json",
        "0000.semantic.png",
        "0001.instance.png",
        "0001.jpg",
        "0001.json",
        "0001.semantic.png",
    ]
    labels = json.loads((out / "0001.json").read_text())
    assert labels["difficulty"] == "easy" and labels["seed"] == {"set": 4, "index": 1}
    assert Image.open(sheet).size[0] == 4 * 400
    assert sheet.stat().st_size < 1_000_000
    # Same command, same photos.
    again = tmp_path / "again"
    main(
        [
            "synth",
            "--n",
            "1",
            "--seed",
            "4",
            "--start",
            "1",
            "--out",
            str(again),
            "--size",
            "400x300",
            "--difficulty",
            "easy",
        ]
    )
    assert (again / "0001.json").read_text() == (out / "0001.json").read_text()
    assert json.loads((again / "0001.json").read_text())["decision_margin_mm"] == 0.0


def test_synth_takes_a_decision_margin_over_the_recipes(tmp_path):
    args = ["synth", "--recipe", "heldout", "--n", "1", "--size", "400x300"]
    assert main([*args, "--decision-margin", "1.5", "--out", str(tmp_path / "a")]) == 0
    assert json.loads((tmp_path / "a" / "0000.json").read_text())["decision_margin_mm"] == 1.5
    assert main([*args, "--decision-margin", "3", "--out", str(tmp_path / "b")]) == 2


def test_synth_refuses_bad_arguments(tmp_path, capsys):
    assert main(["synth", "--n", "2", "--out", str(tmp_path), "--size", "huge"]) == 2
    assert "1600x1200" in capsys.readouterr().err
    assert main(["synth", "--out", str(tmp_path)]) == 2
    assert "--n" in capsys.readouterr().err
    assert main(["synth", "--n", "1"]) == 2
    assert main(["synth", "--recipe", "nope", "--out", str(tmp_path)]) == 2
    assert "known recipes" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["synth", "--n", "1", "--out", str(blocker), "--size", "200x150"]) == 1
    assert "error:" in capsys.readouterr().err


def test_evaluate_reads_a_synthetic_set_with_predictions(tmp_path, capsys):
    out = tmp_path / "set"
    main(["synth", "--n", "2", "--seed", "9", "--out", str(out), "--size", "400x300"])
    truths = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    wrong = dict(truths[1])
    first = next(iter(wrong["scores"]))
    wrong["scores"] = {**wrong["scores"], first: wrong["scores"][first] + 1}
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text("\n".join(json.dumps(t) for t in (truths[0], wrong)))
    capsys.readouterr()
    args = ["evaluate", str(out), "--predictions", str(predictions)]
    assert main([*args, "--json", "--by-scale"]) == 0
    report = json.loads(capsys.readouterr().out)
    summary = report["summary"]
    assert [p["exact"] for p in report["photos"]] == [True, False]
    assert summary["all"]["photos"] == 2
    assert summary["all"]["exact_accuracy"] == 0.5
    assert summary["all"]["item_recall"] == 1.0 and summary["all"]["icons_accuracy"] == 1.0
    # 400 x 300 px photos of a whole table: coarser than any reference photo
    assert all(p["scale_px_per_mm"] < 0.8 for p in report["photos"])
    assert report["by_scale"]["< 0.8 px/mm"]["photos"] == 2
    assert main([*args, "--by-scale"]) == 0
    assert "< 0.8 px/mm" in capsys.readouterr().out


def test_evaluate_counts_the_batch_error_records_of_a_predictions_file(tmp_path, capsys):
    out = tmp_path / "set"
    main(["synth", "--n", "3", "--seed", "9", "--out", str(out), "--size", "400x300"])
    truths = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    failed = {"image": truths[1]["image"], "error": {"code": "no_game_found", "message": "..."}}
    predictions = tmp_path / "pred.jsonl"
    predictions.write_text("\n".join(json.dumps(r) for r in (truths[0], failed)))
    capsys.readouterr()
    assert main(["evaluate", str(out), "--predictions", str(predictions), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["error"] for p in report["photos"]] == [None, "no_game_found", "missing_prediction"]
    assert report["summary"]["all"]["errors"] == 2
    assert report["summary"]["all"]["exact_accuracy"] == 1 / 3


def test_evaluate_refuses_a_folder_without_ground_truth(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path)]) == 2
    assert "no photos" in capsys.readouterr().err


def test_evaluate_runs_the_scorer_and_survives_its_failures(tmp_path, capsys, monkeypatch):
    import vision.pipeline
    from vision.errors import NoGameFound

    out = tmp_path / "set"
    main(["synth", "--n", "3", "--seed", "9", "--out", str(out), "--size", "400x300"])
    truths = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}

    class Scored:
        def __init__(self, contract):
            self.contract = contract

    def fake_score_photo(photo, *, name=None, catalogue=None):
        stem = Path(photo).stem
        if stem == "0001":
            raise NoGameFound("no game")
        if stem == "0002":
            raise RuntimeError("scorer bug")
        return Scored(truths[stem])

    monkeypatch.setattr(vision.pipeline, "score_photo", fake_score_photo)
    capsys.readouterr()
    assert main(["evaluate", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    errors = {p["image"]: p["error"] for p in report["photos"]}
    assert errors["0000.jpg"] is None and errors["0001.jpg"] == "no_game_found"
    assert errors["0002.jpg"].startswith("internal_error (RuntimeError")
    assert report["summary"]["all"]["exact_accuracy"] == pytest.approx(1 / 3)
    assert all(p["seconds"] is not None for p in report["photos"])
