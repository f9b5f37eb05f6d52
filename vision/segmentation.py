"""The learned segmenter (``models/segmenter.onnx``) run with onnxruntime: per-pixel class
probabilities of a working image at the model's low working resolution.

The model (trained by :mod:`models.segmenter.train`, described in ``models/MODEL_CARD.md``)
takes ``image`` (N, 3, h, w) float32 RGB 0..1 with h and w multiples of 16 and returns
``probabilities`` (N, C, h, w) float32 (softmax over the classes named in the ONNX metadata
``class_names``: background, table, string, coaster face per colour, coaster back, napkin,
distractor). A working image is area-reduced so that its long side is :data:`MODEL_LONG_SIDE_PX`
(the short side rounded to a multiple of 16).

One :class:`Segmenter` per process (:func:`segmenter`), onnxruntime with
``intra_op_num_threads`` from ``TABLESCORE_SEGMENTER_THREADS`` (default 1); ``run`` is
thread-safe. Whether the pipeline uses the model is :func:`segmenter_enabled`
(``TABLESCORE_SEGMENTER``: ``1`` on, ``0`` off).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort

MODEL_LONG_SIDE_PX = 512
"""Long side (px) of the image the model sees."""
SIZE_MULTIPLE_PX = 16
"""The model's input height and width must be multiples of this (four stride-2 stages)."""
ENABLED_ENV = "TABLESCORE_SEGMENTER"
THREADS_ENV = "TABLESCORE_SEGMENTER_THREADS"
ENABLED_BY_DEFAULT = True
"""Whether the pipeline uses the model when :data:`ENABLED_ENV` is not set (on: where it sees
coasters the outline search compares the art, which gained 4 exact photos of 246 held-out and
validation photos and lost none; ``models/MODEL_CARD.md``)."""
INPUT_NAME = "image"
OUTPUT_NAME = "probabilities"
ITEM_CLASS_PREFIXES = ("coaster", "napkin")
"""The classes that are game items: each coaster face colour, the coaster back, the napkin."""
ITEM_REGION_PROBABILITY = 0.1
"""A model pixel is in the items' region (:meth:`Segmentation.item_region`) where the item
classes (coaster faces, backs, napkins) together have this probability or more..."""
ITEM_REGION_REACH_PX = 8
"""...or within this many model px of such a pixel (about 30 working px at the default working
size). On the 30 dev photos and 300 held-out photos, every true item's visible part lies in
the region (the least share: 99.4% on dev, 98.3% on held-out), which holds a quarter of a dev
photo and a fifth of a held-out one on average; the table's own texture, most of SIFT's
features, mostly lies outside."""


class SegmenterUnavailable(RuntimeError):
    """The ONNX model file is missing or not the documented segmenter."""


def default_model_path() -> Path:
    """The committed model, from the ``models`` package data."""
    return Path(str(resources.files("models").joinpath("segmenter.onnx")))


def model_size_px(image_size_px: tuple[int, int]) -> tuple[int, int]:
    """(width, height) the model sees for a working image of ``image_size_px`` (width, height):
    long side :data:`MODEL_LONG_SIDE_PX`, both sides multiples of :data:`SIZE_MULTIPLE_PX`."""
    width, height = image_size_px
    if width < 1 or height < 1:
        raise ValueError(f"image size must be positive, got {image_size_px}")
    factor = MODEL_LONG_SIDE_PX / max(width, height)

    def side(pixels: int) -> int:
        return max(SIZE_MULTIPLE_PX, round(pixels * factor / SIZE_MULTIPLE_PX) * SIZE_MULTIPLE_PX)

    return side(width), side(height)


@dataclass(frozen=True)
class Segmentation:
    """Class probabilities of one working image, at the model's resolution.

    ``probabilities``: (C, h, w) float32, summing to 1 over C. ``class_names``: C names.
    ``image_size_px``: (width, height) of the working image it was computed from; model pixel
    (u, v) covers working pixels ``((u + 0.5) * W / w - 0.5, (v + 0.5) * H / h - 0.5)``.
    """

    probabilities: np.ndarray
    class_names: tuple[str, ...]
    image_size_px: tuple[int, int]

    def probability(self, class_name: str) -> np.ndarray:
        """(h, w) float32 probability of one class, at the model's resolution."""
        try:
            return self.probabilities[self.class_names.index(class_name)]
        except ValueError:
            raise KeyError(f"the segmenter has no class {class_name!r}") from None

    def labels(self) -> np.ndarray:
        """(h, w) uint8: the most probable class id per model pixel."""
        return self.probabilities.argmax(axis=0).astype(np.uint8)

    @property
    def scale(self) -> tuple[float, float]:
        """(x, y) model px per working px (``model px + 0.5 = (working px + 0.5) * scale``)."""
        h, w = self.probabilities.shape[1:]
        width, height = self.image_size_px
        return (w / width, h / height)

    def coasters(self) -> CoasterProbabilities:
        """The probabilities of the coaster classes (each face colour, the back)."""
        names = [name for name in self.class_names if name.startswith("coaster")]
        channels = [self.class_names.index(name) for name in names]
        return CoasterProbabilities(
            np.ascontiguousarray(self.probabilities[channels].transpose(1, 2, 0)),
            tuple(names),
            self.scale,
        )

    def item_region(self) -> ItemRegion:
        """Where game items may lie: :data:`ITEM_REGION_PROBABILITY`, grown by
        :data:`ITEM_REGION_REACH_PX`."""
        channels = [
            k for k, name in enumerate(self.class_names) if name.startswith(ITEM_CLASS_PREFIXES)
        ]
        likely = self.probabilities[channels].sum(axis=0) >= ITEM_REGION_PROBABILITY
        reach = 2 * ITEM_REGION_REACH_PX + 1
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        region = cv2.dilate(likely.astype(np.uint8), disc).astype(np.float32)
        return ItemRegion(region, self.scale)

    def resized(self, class_name: str, size_px: tuple[int, int]) -> np.ndarray:
        """(height, width) float32 probability of one class, bilinearly resampled to
        ``size_px`` (width, height), e.g. the working image's or an analysis image's size."""
        return cv2.resize(self.probability(class_name), size_px, interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class CoasterProbabilities:
    """Where the segmenter sees coasters: ``probabilities`` (h, w, C) float32 0..1, one channel
    per coaster class named in ``class_names``, at the model's resolution; ``scale``: (x, y)
    model px per working px (``model px + 0.5 = (working px + 0.5) * scale``)."""

    probabilities: np.ndarray
    class_names: tuple[str, ...]
    scale: tuple[float, float]


@dataclass(frozen=True)
class ItemRegion:
    """Where the segmenter sees game items, or near them (:meth:`Segmentation.item_region`):
    ``mask`` (h, w) float32, 1 in the region and 0 elsewhere, at the model's resolution;
    ``scale``: (x, y) model px per working px, as :attr:`CoasterProbabilities.scale`."""

    mask: np.ndarray
    scale: tuple[float, float]


class Segmenter:
    """An onnxruntime session of the segmenter (created once; ``segment`` is thread-safe)."""

    def __init__(self, model_path: str | os.PathLike | None = None, *, threads: int = 1) -> None:
        path = Path(model_path) if model_path is not None else default_model_path()
        if not path.is_file():
            raise SegmenterUnavailable(f"segmenter model not found: {path}")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise SegmenterUnavailable(f"cannot load segmenter {path}: {exc}") from exc
        inputs = [i.name for i in self._session.get_inputs()]
        outputs = [o.name for o in self._session.get_outputs()]
        meta = self._session.get_modelmeta().custom_metadata_map
        if inputs != [INPUT_NAME] or outputs != [OUTPUT_NAME] or "class_names" not in meta:
            raise SegmenterUnavailable(f"{path} is not a segmenter (inputs {inputs}, {outputs})")
        self.class_names: tuple[str, ...] = tuple(json.loads(meta["class_names"]))

    def segment(self, image_bgr: np.ndarray) -> Segmentation:
        """Class probabilities of a (H, W, 3) uint8 BGR working image."""
        if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
            raise ValueError(
                f"image_bgr must be (H, W, 3) uint8, got {image_bgr.shape} {image_bgr.dtype}"
            )
        height, width = image_bgr.shape[:2]
        size = model_size_px((width, height))
        small = cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA)
        batch = cv2.cvtColor(small, cv2.COLOR_BGR2RGB).astype(np.float32)
        batch = (batch * np.float32(1.0 / 255.0)).transpose(2, 0, 1)[None]
        probabilities = self._session.run([OUTPUT_NAME], {INPUT_NAME: batch})[0][0]
        return Segmentation(probabilities, self.class_names, (width, height))


@functools.lru_cache(maxsize=1)
def segmenter() -> Segmenter:
    """The process's segmenter: the committed model, ``TABLESCORE_SEGMENTER_THREADS`` (default 1)
    onnxruntime threads."""
    raw = os.environ.get(THREADS_ENV, "1")
    try:
        threads = int(raw)
    except ValueError:
        raise ValueError(f"{THREADS_ENV} must be a whole number, got {raw!r}") from None
    return Segmenter(threads=threads)


def segmenter_enabled() -> bool:
    """Whether the pipeline should use the segmenter: ``TABLESCORE_SEGMENTER`` = ``1``/``0``
    (also true/false, on/off), else :data:`ENABLED_BY_DEFAULT`."""
    raw = os.environ.get(ENABLED_ENV, "").strip().lower()
    if raw in ("1", "true", "on", "yes"):
        return True
    if raw in ("0", "false", "off", "no"):
        return False
    if raw:
        raise ValueError(f"{ENABLED_ENV} must be 1 or 0, got {raw!r}")
    return ENABLED_BY_DEFAULT
