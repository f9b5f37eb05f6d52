"""Training images for the segmenter: synthetic photos (:mod:`vision.synthetic`) rendered at
:data:`RENDER_SIZE_PX` and reduced by 2 to the working resolution, with their class masks.

Photo ``i`` of split seed ``S`` is :func:`vision.synthetic.generate.make_sample` ``(S, i)`` at a
fixed size and a difficulty chosen by ``i`` (:func:`difficulty_of`), so a split is
reproducible photo by photo. Splits (:data:`SPLITS`) use set seeds no other recipe uses for
tuning: train 1_000_000 (the ``train`` recipe's seed, other size), validation 2_000_000, held-out
3_000_000.

Reduction of the masks (:func:`reduce_labels`): each 2 x 2 block takes its most common class,
except that any string pixel in the block makes it string (the cord is 2-4 px wide in the
render; a plain majority would break it into dashes). The image is area-averaged, as the
pipeline's reduction of a working image does.

Cache: one ``NNNN.npz`` per photo (``image`` (H, W, 3) uint8 RGB, ``labels`` (H, W) uint8,
``difficulty`` str) in a split folder; rendering skips files already there.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from games.beer_pretzels.catalogue import load_catalogue
from vision.synthetic.generate import SynthOptions, make_sample
from vision.synthetic.scene_sampler import Difficulty
from vision.synthetic.semantic import SemanticClasses

RENDER_SIZE_PX = (1024, 768)
"""(width, height) of the rendered photo; the training image is half of it."""
REDUCTION = 2
CLASS_NAMES: tuple[str, ...] = tuple(
    name for _, name in sorted(SemanticClasses.for_catalogue(load_catalogue()).names().items())
)
"""Class names by id, exactly the renderer's semantic ids (background, table, string, one
coaster face per colour, coaster back, napkin, distractor)."""
STRING_CLASS = CLASS_NAMES.index("string")
_DIFFICULTY_CYCLE = (
    Difficulty.EASY,
    Difficulty.MEDIUM,
    Difficulty.HARD,
    Difficulty.MEDIUM,
    Difficulty.HARD,
)
"""Difficulty of photo ``i`` is ``_DIFFICULTY_CYCLE[i % 5]``: 20 % easy, 40 % medium, 40 % hard
(hard photos are where the model has to help)."""


@dataclass(frozen=True)
class Split:
    name: str
    seed: int
    n: int


SPLITS: dict[str, Split] = {
    "train": Split("train", 1_000_000, 400),
    "val": Split("val", 2_000_000, 40),
    "heldout": Split("heldout", 3_000_000, 40),
}


def difficulty_of(index: int) -> Difficulty:
    return _DIFFICULTY_CYCLE[index % len(_DIFFICULTY_CYCLE)]


def reduce_labels(semantic: np.ndarray, factor: int = REDUCTION) -> np.ndarray:
    """(H/f, W/f) uint8 class ids from (H, W) uint8 ones: the block's most common class, or
    string wherever the block holds any string pixel."""
    height, width = semantic.shape[0] // factor, semantic.shape[1] // factor
    cropped = semantic[: height * factor, : width * factor]
    blocks = cropped.reshape(height, factor, width, factor).transpose(0, 2, 1, 3)
    blocks = blocks.reshape(height, width, factor * factor)
    counts = np.stack([(blocks == k).sum(axis=2) for k in range(len(CLASS_NAMES))], axis=2)
    labels = counts.argmax(axis=2).astype(np.uint8)
    labels[counts[..., STRING_CLASS] > 0] = STRING_CLASS
    return labels


def render_example(seed: int, index: int) -> tuple[np.ndarray, np.ndarray, Difficulty]:
    """Photo ``index`` of split seed ``seed``: (image (h, w, 3) uint8 RGB, labels (h, w) uint8,
    difficulty) at the working resolution (:data:`RENDER_SIZE_PX` / :data:`REDUCTION`)."""
    difficulty = difficulty_of(index)
    options = SynthOptions(size_px=RENDER_SIZE_PX, difficulty=difficulty, exif_share=0.0)
    sample = make_sample(seed, index, options)
    width, height = RENDER_SIZE_PX[0] // REDUCTION, RENDER_SIZE_PX[1] // REDUCTION
    image = cv2.resize(sample.image_rgb, (width, height), interpolation=cv2.INTER_AREA)
    return image, reduce_labels(sample.semantic), difficulty


def example_path(folder: Path, index: int) -> Path:
    return folder / f"{index:04d}.npz"


def _render_to(args: tuple[int, int, str]) -> str:
    seed, index, folder = args
    path = example_path(Path(folder), index)
    if not path.exists():
        image, labels, difficulty = render_example(seed, index)
        partial = path.with_suffix(".tmp.npz")
        np.savez_compressed(partial, image=image, labels=labels, difficulty=difficulty.value)
        os.replace(partial, path)
    return str(path)


def render_split(split: Split, cache_dir: Path, workers: int = 2, n: int | None = None) -> Path:
    """Render the first ``n`` (default ``split.n``) photos of ``split`` into
    ``cache_dir/<name>`` (skipping those already there); returns the folder."""
    folder = Path(cache_dir) / split.name
    folder.mkdir(parents=True, exist_ok=True)
    count = split.n if n is None else n
    todo = [(split.seed, i, str(folder)) for i in range(count)]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for done, _ in enumerate(pool.map(_render_to, todo, chunksize=4), start=1):
            if done % 100 == 0 or done == count:
                elapsed = time.perf_counter() - started
                print(f"[{split.name}] {done}/{count} photos, {elapsed:.0f} s", flush=True)
    return folder


def load_split(folder: Path, n: int | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Images (N, h, w, 3) uint8, labels (N, h, w) uint8 and difficulties of a rendered split
    (the first ``n`` files, by index)."""
    paths = sorted(Path(folder).glob("[0-9][0-9][0-9][0-9].npz"))[:n]
    if not paths:
        raise FileNotFoundError(f"no rendered examples in {folder}")
    images, labels, difficulties = [], [], []
    for path in paths:
        with np.load(path) as data:
            images.append(data["image"])
            labels.append(data["labels"])
            difficulties.append(str(data["difficulty"]))
    return np.stack(images), np.stack(labels), difficulties


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render segmenter training data to a cache.")
    parser.add_argument("--cache", type=Path, default=Path("var/segmenter-cache"))
    parser.add_argument("--split", choices=sorted(SPLITS), action="append")
    parser.add_argument("--n", type=int, default=None, help="photos per split (default: all)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    for name in args.split or sorted(SPLITS):
        render_split(SPLITS[name], args.cache, args.workers, args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
