"""Tests for the segmenter's training labels (models.segmenter.dataset) and IoU metrics
(models.segmenter.metrics); neither needs torch."""

from __future__ import annotations

import numpy as np

from models.segmenter.dataset import CLASS_NAMES, STRING_CLASS, difficulty_of, reduce_labels
from models.segmenter.metrics import class_iou, confusion, iou_report
from vision.synthetic.scene_sampler import Difficulty


def test_classes_are_the_renderers() -> None:
    assert CLASS_NAMES[:3] == ("background", "table", "string")
    assert CLASS_NAMES[-1] == "distractor"
    assert STRING_CLASS == 2


def test_reduction_keeps_thin_string_and_takes_the_majority_elsewhere() -> None:
    semantic = np.ones((8, 8), np.uint8)  # table
    semantic[0:2, 0:2] = 9  # a napkin block
    semantic[4:8, 4] = STRING_CLASS  # a 1 px string: one pixel of each 2x2 block
    semantic[0, 6] = 9  # a single napkin pixel in a table block
    labels = reduce_labels(semantic)
    assert labels.shape == (4, 4)
    assert labels[0, 0] == 9
    assert labels[0, 3] == 1
    assert list(labels[2:4, 2]) == [STRING_CLASS, STRING_CLASS]
    assert np.count_nonzero(labels == STRING_CLASS) == 2


def test_difficulty_cycle() -> None:
    counts = [difficulty_of(i) for i in range(10)]
    assert counts.count(Difficulty.EASY) == 2
    assert counts.count(Difficulty.HARD) == 4


def test_iou_per_class_and_group() -> None:
    truth = np.array([[0, 0, 1, 1]])
    predicted = np.array([[0, 1, 1, 1]])
    matrix = confusion(predicted, truth, 3)
    iou = class_iou(matrix)
    assert iou[0] == 0.5
    assert abs(iou[1] - 2 / 3) < 1e-9
    assert np.isnan(iou[2])
    report = iou_report([matrix, confusion(truth, truth, 3)], ["hard", "easy"], ["a", "b", "c"])
    assert report["easy"]["a"] == 1.0
    assert report["hard"]["c"] is None
    assert report["all"]["a"] == round(3 / 4, 4)
