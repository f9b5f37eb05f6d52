"""Per-class intersection over union of predicted and true class masks (numpy only)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def confusion(predicted: np.ndarray, truth: np.ndarray, n_classes: int) -> np.ndarray:
    """(C, C) int64 pixel counts, rows = true class, columns = predicted class."""
    index = truth.astype(np.int64).ravel() * n_classes + predicted.astype(np.int64).ravel()
    return np.bincount(index, minlength=n_classes * n_classes).reshape(n_classes, n_classes)


def class_iou(matrix: np.ndarray) -> np.ndarray:
    """(C,) float64 IoU per class from a confusion matrix; NaN where a class is absent from
    both truth and prediction."""
    hits = np.diag(matrix).astype(np.float64)
    union = matrix.sum(axis=0) + matrix.sum(axis=1) - hits
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, hits / union, np.nan)


def iou_report(
    matrices: Sequence[np.ndarray], groups: Sequence[str], class_names: Sequence[str]
) -> dict[str, dict[str, float | None]]:
    """IoU per class, for all photos (``"all"``) and per group (e.g. difficulty); also the
    mean over classes present (``"mean"``). ``matrices``: one confusion matrix per photo."""
    report: dict[str, dict[str, float | None]] = {}
    for group in ["all", *sorted(set(groups))]:
        chosen = [m for m, g in zip(matrices, groups, strict=True) if group in ("all", g)]
        iou = class_iou(np.sum(chosen, axis=0))
        row: dict[str, float | None] = {
            name: None if np.isnan(v) else round(float(v), 4)
            for name, v in zip(class_names, iou, strict=True)
        }
        row["mean"] = round(float(np.nanmean(iou)), 4)
        report[group] = row
    return report
