"""Pictures for the calibration notebooks (matplotlib, from the ``notebooks`` extra).

Each function draws on a new figure (or the given axes) and returns the figure; nothing is
computed here that the library does not already return.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _plt():
    import matplotlib.pyplot as plt  # the notebooks extra; imported only when drawing

    return plt


def show_images(images: Sequence[np.ndarray], titles: Sequence[str] = (), columns: int = 3):
    """RGB images in a grid, with titles."""
    plt = _plt()
    rows = max(1, -(-len(images) // columns))
    fig, axes = plt.subplots(rows, columns, figsize=(5 * columns, 4 * rows), squeeze=False)
    for k, ax in enumerate(axes.ravel()):
        ax.axis("off")
        if k < len(images):
            ax.imshow(images[k])
            if k < len(titles):
                ax.set_title(titles[k], fontsize=9)
    fig.tight_layout()
    return fig


def plot_confusion(labels: Sequence[str], matrix: np.ndarray, title: str, ax=None):
    """A confusion matrix (true rows, decided columns) with its counts."""
    plt = _plt()
    if ax is None:
        fig, ax = plt.subplots(figsize=(1 + 0.7 * len(labels), 1 + 0.6 * len(labels)))
    else:
        fig = ax.figure
    ax.imshow(matrix, cmap="Blues")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("decided")
    ax.set_ylabel("true")
    ax.set_title(title)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            if matrix[i, j]:
                ax.text(j, i, str(matrix[i, j]), ha="center", va="center", fontsize=8)
    fig.tight_layout()
    return fig


def plot_clusters(
    points: np.ndarray,
    names: Sequence[str],
    references: dict[str, dict[str, tuple[float, float]]],
):
    """Observed item colours (chromaticity r, g) by confirmed colour, with each catalogue's
    reference colours (``references``: label -> colour name -> (r, g)) as markers."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 5))
    colours = sorted(set(names))
    cmap = plt.get_cmap("tab10")
    for k, name in enumerate(colours):
        mine = np.array([p for p, n in zip(points, names, strict=True) if n == name])
        ax.scatter(mine[:, 0], mine[:, 1], color=cmap(k), label=f"{name} (photo)", s=30)
        for marker, (label, refs) in zip("xP^", references.items(), strict=False):
            if name in refs:
                ax.scatter(
                    *refs[name], color=cmap(k), marker=marker, s=120, label=f"{name} {label}"
                )
    ax.set_xlabel("r / (r + g + b)")
    ax.set_ylabel("g / (r + g + b)")
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("colour clusters")
    fig.tight_layout()
    return fig


def plot_by_difficulty(
    summaries: dict,
    metrics: Sequence[str] = (
        "exact_accuracy",
        "player_accuracy",
        "color_accuracy",
        "type_accuracy",
        "icons_accuracy",
    ),
):
    """Bars of accuracy metrics per difficulty group (``vision.evaluation.Summary`` values)."""
    plt = _plt()
    data = {group: s.to_json() for group, s in summaries.items()}
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / max(1, len(metrics))
    for k, metric in enumerate(metrics):
        values = [data[g][metric] or 0.0 for g in data]
        ax.bar(np.arange(len(data)) + k * width, values, width, label=metric)
    ax.set_xticks(
        np.arange(len(data)) + 0.4 - width / 2, [f"{g} ({data[g]['photos']})" for g in data]
    )
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.legend(fontsize=8)
    ax.set_title("accuracy by difficulty (photos)")
    fig.tight_layout()
    return fig
