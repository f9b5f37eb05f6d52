import numpy as np
import pytest

from vision.calibration.accuracy import (
    annotated_rgb,
    by_difficulty,
    confusion,
    score_folder,
    worst_photos,
)
from vision.synthetic.generate import SynthOptions, make_sample, write_sample
from vision.synthetic.scene_sampler import Difficulty


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("split")
    options = SynthOptions(size_px=(1280, 960), difficulty=Difficulty.EASY, exif_share=0.0)
    for index in range(3):
        write_sample(make_sample(5, index, options), folder)
    (folder / "0002.jpg").write_bytes(b"not a photo")  # the scorer fails on this one
    return score_folder(folder)


def test_scores_every_photo_and_summarises_by_difficulty(results):
    assert [r.image_path.name for r in results] == ["0000.jpg", "0001.jpg", "0002.jpg"]
    assert results[2].evaluation.error == "unreadable_image"
    summary = by_difficulty(results)
    assert list(summary) == ["all", "easy"]
    assert summary["all"].photos == 3
    assert summary["all"].errors == sum(r.scored is None for r in results) >= 1


def test_worst_photos_come_first_and_pictures_are_rgb(results):
    worst = worst_photos(results, n=3)
    failed = [r for r in worst if r.scored is None]
    assert worst[: len(failed)] == failed
    assert annotated_rgb(results[2]) is None
    picture = annotated_rgb(results[0], max_long_side_px=640)
    assert picture.shape[2] == 3 and max(picture.shape[:2]) == 640


@pytest.mark.parametrize("field", ["color", "type", "face"])
def test_confusion_counts_every_true_item(results, field):
    labels, matrix = confusion(results, field)
    items = [
        t
        for r in results
        for t in r.truth["items"]
        if field != "type" or (t["kind"] == "coaster" and t["face"] == "up")
    ]
    assert matrix.sum() == len(items)
    assert matrix.shape == (len(labels), len(labels))
    assert "(missed)" in labels  # the failed photo's items
    found = sum(r.evaluation.found.right for r in results)
    assert np.trace(matrix) > 0 or found == 0


def test_unknown_field_is_refused(results):
    with pytest.raises(ValueError, match="field"):
        confusion(results, "money")
