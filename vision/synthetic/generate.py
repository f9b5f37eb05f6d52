"""Make synthetic photos with labels, deterministically per (set seed, photo index), and write
them to disk.

Photo ``i`` of a set with seed ``S`` draws everything from
``numpy.random.default_rng(SeedSequence((S, i)))``, so a photo can be regenerated alone and two
sets with different seeds never share a random stream.

Files per photo ``NNNN`` (index zero-padded to at least 4 digits):

* ``NNNN.jpg`` - the photo (JPEG; pixels stored rotated when it carries an EXIF orientation);
* ``NNNN.json`` - ground truth (:func:`vision.synthetic.labels.photo_labels`) plus how it
  was made (``seed``, ``generator``, ``exif_orientation``, ``stored_size``, ``jpeg_quality``,
  ``masks``);
* ``NNNN.semantic.png`` - 8-bit class ids (``semantic_classes`` in the JSON), displayed
  orientation;
* ``NNNN.instance.png`` - 16-bit, item index + 1 (0 = no item), displayed orientation.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageOps

from games.beer_pretzels.catalogue import Catalogue, load_catalogue
from games.beer_pretzels.scoring import SceneScore, score_scene
from vision.synthetic.close_calls import clear_of_close_calls
from vision.synthetic.labels import photo_labels
from vision.synthetic.render import render_photo
from vision.synthetic.scene_sampler import (
    REFERENCE_TOUCH_STRING_GAP_MM,
    TOUCH_STRING_GAP_MM,
    Difficulty,
    SampledRound,
    sample_round,
)
from vision.synthetic.style import sample_look

GENERATOR = "tablescore-synth-1"

#: Phone photo sizes (width, height) and how often each is drawn when no size is fixed.
PHONE_SIZES: tuple[tuple[tuple[int, int], float], ...] = (
    ((4032, 3024), 0.22),
    ((3024, 4032), 0.08),
    ((4000, 3000), 0.05),
    ((3000, 4000), 0.05),
    ((1600, 1200), 0.25),
    ((1200, 1600), 0.1),
    ((2048, 1536), 0.1),
    ((1280, 960), 0.1),
    ((1920, 1080), 0.05),
)

#: Share of each difficulty in a ``mix`` set.
MIX: dict[Difficulty, float] = {
    Difficulty.EASY: 0.3,
    Difficulty.MEDIUM: 0.4,
    Difficulty.HARD: 0.3,
}

#: EXIF orientations drawn for the share of photos that carry one.
EXIF_ORIENTATIONS = (3, 6, 8)

#: Rounds sampled at most for a photo whose verdict must stand at a decision margin; the last
#: is kept (tagged ``close_call``) when none does.
MAX_ROUNDS = 40


@dataclass(frozen=True)
class SynthOptions:
    """What a set looks like. ``size_px`` fixes every photo's displayed size (width, height);
    ``None`` draws from :data:`PHONE_SIZES`. ``difficulty`` is a :class:`Difficulty` or ``None``
    for the :data:`MIX`. ``exif_share`` of the photos are stored rotated with an EXIF tag.
    ``decision_margin_mm`` > 0 makes rounds as the reference photos have them
    (:mod:`vision.synthetic.close_calls`): items touching the string lie over its edge, and a
    round is sampled again until every verdict stands at that margin (mm); 0 keeps every close
    call."""

    size_px: tuple[int, int] | None = None
    difficulty: Difficulty | None = None
    exif_share: float = 0.15
    decision_margin_mm: float = 0.0

    def __post_init__(self) -> None:
        if self.size_px is not None and (min(self.size_px) < 64 or max(self.size_px) > 12000):
            raise ValueError(f"photo size must be 64..12000 px per side, got {self.size_px}")
        if not 0.0 <= self.exif_share <= 1.0:
            raise ValueError(f"exif_share must be within 0..1, got {self.exif_share}")
        if not 0.0 <= self.decision_margin_mm <= 2.0:
            raise ValueError(
                f"decision_margin_mm must be within 0..2 mm, got {self.decision_margin_mm}"
            )


@dataclass(frozen=True)
class Sample:
    """One synthetic photo: displayed RGB image, masks and ground-truth labels."""

    name: str
    image_rgb: np.ndarray  # (H, W, 3) uint8, displayed orientation
    semantic: np.ndarray  # (H, W) uint8
    instance: np.ndarray  # (H, W) uint16
    labels: dict[str, Any]
    exif_orientation: int
    jpeg_quality: int


def photo_rng(set_seed: int, index: int) -> np.random.Generator:
    """The random generator of photo ``index`` of the set with seed ``set_seed``."""
    if set_seed < 0 or index < 0:
        raise ValueError("seeds and photo indices must be non-negative")
    return np.random.default_rng(np.random.SeedSequence((set_seed, index)))


def photo_name(index: int) -> str:
    return f"{index:04d}"


def make_sample(
    set_seed: int,
    index: int,
    options: SynthOptions | None = None,
    catalogue: Catalogue | None = None,
) -> Sample:
    """Sample, render and label photo ``index`` of set ``set_seed`` (deterministic)."""
    options = options or SynthOptions()
    catalogue = catalogue or load_catalogue()
    rng = photo_rng(set_seed, index)
    difficulty = options.difficulty or draw_weighted(rng, list(MIX.items()))
    size = options.size_px or draw_weighted(rng, list(PHONE_SIZES))
    round_, score, clear = _sample_scored_round(rng, catalogue, difficulty, options)
    look = sample_look(rng, difficulty)
    photo = render_photo(rng, round_, catalogue, size, look)
    exif = int(rng.choice(EXIF_ORIENTATIONS)) if rng.random() < options.exif_share else 1
    name = photo_name(index)
    labels = photo_labels(f"{name}.jpg", round_, photo, score, catalogue)
    if exif != 1:
        labels["tags"] = sorted({*labels["tags"], f"exif_orientation_{exif}"})
    if not clear:
        labels["tags"] = sorted({*labels["tags"], "close_call"})
    stored = _to_stored(photo.image_rgb, exif)
    labels.update(
        {
            "exif_orientation": exif,
            "stored_size": [int(stored.shape[1]), int(stored.shape[0])],
            "jpeg_quality": look.jpeg_quality,
            "masks": {"semantic": f"{name}.semantic.png", "instance": f"{name}.instance.png"},
            "seed": {"set": set_seed, "index": index},
            "decision_margin_mm": options.decision_margin_mm,
            "generator": GENERATOR,
        }
    )
    return Sample(
        name=name,
        image_rgb=photo.image_rgb,
        semantic=photo.semantic,
        instance=photo.instance,
        labels=labels,
        exif_orientation=exif,
        jpeg_quality=look.jpeg_quality,
    )


def _sample_scored_round(
    rng: np.random.Generator,
    catalogue: Catalogue,
    difficulty: Difficulty,
    options: SynthOptions,
) -> tuple[SampledRound, SceneScore, bool]:
    """A round, its true score, and whether its verdict stands at the options' decision margin
    (always, without one: the first round is taken)."""
    margin = options.decision_margin_mm
    touch_gap = REFERENCE_TOUCH_STRING_GAP_MM if margin > 0 else TOUCH_STRING_GAP_MM
    for _ in range(MAX_ROUNDS if margin > 0 else 1):
        round_ = sample_round(rng, catalogue, difficulty, touch_string_gap_mm=touch_gap)
        players = list(round_.players)
        score = score_scene(round_.scene, catalogue, players=players)
        clear = margin == 0 or clear_of_close_calls(round_.scene, score, catalogue, players, margin)
        if clear:
            break
    return round_, score, clear


def draw_weighted(rng: np.random.Generator, weighted: list[tuple[Any, float]]) -> Any:
    """One value of ``weighted`` ((value, weight) pairs), drawn with ``rng``."""
    weights = np.array([w for _, w in weighted], dtype=np.float64)
    return weighted[int(rng.choice(len(weighted), p=weights / weights.sum()))][0]


#: PIL transposes that turn the displayed image into the stored one, per EXIF orientation
#: (a viewer applies the inverse: 3 = rotate 180, 6 = rotate 90 clockwise, 8 = 90 counter).
_STORE_TRANSPOSE = {
    3: Image.Transpose.ROTATE_180,
    6: Image.Transpose.ROTATE_90,
    8: Image.Transpose.ROTATE_270,
}


def _to_stored(image_rgb: np.ndarray, exif: int) -> np.ndarray:
    if exif == 1:
        return image_rgb
    return np.asarray(Image.fromarray(image_rgb).transpose(_STORE_TRANSPOSE[exif]))


def encode_jpeg(image_rgb: np.ndarray, quality: int, exif_orientation: int = 1) -> bytes:
    """JPEG bytes of a displayed image, stored rotated with an EXIF orientation tag when
    ``exif_orientation`` is not 1."""
    stored = Image.fromarray(_to_stored(image_rgb, exif_orientation))
    out = io.BytesIO()
    if exif_orientation == 1:
        stored.save(out, format="JPEG", quality=quality)
    else:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        stored.save(out, format="JPEG", quality=quality, exif=exif.tobytes())
    return out.getvalue()


def write_sample(sample: Sample, out_dir: str | Path) -> Path:
    """Write the photo, its JSON and masks into ``out_dir``; returns the JSON path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{sample.name}.jpg").write_bytes(
        encode_jpeg(sample.image_rgb, sample.jpeg_quality, sample.exif_orientation)
    )
    png = [cv2.IMWRITE_PNG_COMPRESSION, 1]
    for kind, mask in (("semantic", sample.semantic), ("instance", sample.instance)):
        path = out / f"{sample.name}.{kind}.png"
        if not cv2.imwrite(str(path), mask, png):
            raise OSError(f"could not write {path}")
    json_path = out / f"{sample.name}.json"
    json_path.write_text(json.dumps(sample.labels, indent=1), encoding="utf-8")
    return json_path


def read_sample(json_path: str | Path) -> Sample:
    """Read back a written sample (for training code): the photo as displayed (EXIF applied,
    RGB), its masks and labels."""
    path = Path(json_path)
    labels = json.loads(path.read_text(encoding="utf-8"))
    with Image.open(path.parent / labels["image"]) as photo:
        image = np.asarray(ImageOps.exif_transpose(photo).convert("RGB"))
    masks = labels["masks"]
    semantic = cv2.imread(str(path.parent / masks["semantic"]), cv2.IMREAD_UNCHANGED)
    instance = cv2.imread(str(path.parent / masks["instance"]), cv2.IMREAD_UNCHANGED)
    if semantic is None or instance is None:
        raise FileNotFoundError(f"masks of {path} are missing or unreadable")
    return Sample(
        name=path.stem,
        image_rgb=image,
        semantic=semantic,
        instance=instance,
        labels=labels,
        exif_orientation=int(labels.get("exif_orientation", 1)),
        jpeg_quality=int(labels.get("jpeg_quality", 0)),
    )
