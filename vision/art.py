"""The catalogue's printed art, prepared for recognition: feature templates and colour references.

Every distinct *side* a recogniser can see is one :class:`Side`: a coaster face per coaster type,
a coaster back per shape (backs differ only by shape), and the napkin face and back. The colours
of one side differ only in colour, so features are computed once per side, on the *ink channel*
(:func:`ink_channel`), the per-pixel minimum of B, G and R: every saturated player colour is dark
in it and paper, cream and white are bright, so one template serves all colours.

Frames and units
----------------
* Side-local frame: origin at the item centre, x right, y down, millimetres (as in the catalogue;
  a back is in its own mirrored frame, as seen from above).
* A template image at ``px_per_mm`` px/mm covers the side's bounding square; pixel (i, j) has its
  centre at ``x = (i + 0.5) / px_per_mm - size_mm / 2`` (same for y).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock

import cv2
import numpy as np
import platformdirs

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind, Shape

#: Turned art stacks kept in memory per library (the newest).
_TURNED_KEPT = 12
#: SIFT descriptor distance below which two template features are repeats of one motif.
TWIN_DESCRIPTOR_DISTANCE = 120.0
#: Environment variable naming the folder of cached templates; empty turns the disk cache off.
CACHE_DIR_ENV = "TABLESCORE_CACHE_DIR"
#: Bumped whenever the way templates are computed changes (old cache files are then ignored).
_TEMPLATE_FORMAT = 1


def ink_channel(image_bgr: np.ndarray) -> np.ndarray:
    """The per-pixel minimum of B, G and R (uint8): colour-independent structure of the art."""
    b, g, r = cv2.split(np.ascontiguousarray(image_bgr))
    return cv2.min(cv2.min(b, g), r)


@dataclass(frozen=True)
class Side:
    """One recognisable side of an item: ``type_name`` is None for napkins and coaster backs."""

    kind: ItemKind
    type_name: str | None
    face: Face
    shape: Shape

    @property
    def label(self) -> str:
        what = self.type_name or (self.shape.kind if self.kind is ItemKind.COASTER else "")
        return f"{self.kind.value}-{what}-{self.face.value}".replace("--", "-")


@dataclass(frozen=True)
class SideTemplate:
    """SIFT features of a side's ink-channel art at ``px_per_mm``.

    ``points_mm``: (N, 2) keypoint positions in the side-local frame (mm); ``descriptors``: (N, 128)
    float32; ``twins``: (N, N) bool, True where two features are near-identical repeats of the
    same printed motif (the three $1 pretzels of a triple, the rim text), which a plain ratio test
    would wrongly reject as ambiguous.
    """

    side: Side
    px_per_mm: float
    points_mm: np.ndarray
    descriptors: np.ndarray
    twins: np.ndarray
    angles_deg: np.ndarray  # (N,) SIFT orientation of each feature (OpenCV convention)
    sizes_px: np.ndarray  # (N,) SIFT size of each feature, template px
    blur_mm: float = 0.0  # Gaussian blur (sigma, mm on the item) of the art the features are of


@dataclass(frozen=True)
class TurnedInk:
    """A side's art ink turned about its centre: ``stack[i, j]`` is art variant ``j`` (reference
    colour x blur) turned by ``angles_deg[i]`` (clockwise on the y-down page, as item poses
    turn), an (n, n) float32 square whose centre pixel ``(n - 1) / 2`` is the side's centre."""

    angles_deg: np.ndarray
    stack: np.ndarray


@dataclass
class ArtLibrary:
    """Sides, art and feature templates of one catalogue; build with :func:`art_library`."""

    catalogue: Catalogue
    sides: tuple[Side, ...]
    _art_cache: dict[tuple[str, str, float], np.ndarray] = field(default_factory=dict, repr=False)
    _template_cache: dict[tuple[str, float, float], SideTemplate] = field(
        default_factory=dict, repr=False
    )
    _turned_cache: dict[tuple[str, float, float, tuple[float, ...]], TurnedInk] = field(
        default_factory=dict, repr=False
    )
    _lock: Lock = field(default_factory=Lock, repr=False)

    def art_path(self, side: Side, color: str) -> Path:
        type_name = side.type_name
        if side.kind is ItemKind.COASTER and type_name is None:
            type_name = next(t.type for t in self.catalogue.coaster_types if t.shape == side.shape)
        return self.catalogue.art_path(side.kind, color, type_name, side.face)

    def art_rgba(self, side: Side, color: str, px_per_mm: float) -> np.ndarray:
        """The side's art in ``color`` as BGRA uint8 at ``px_per_mm`` (bounding square)."""
        key = (side.label, color, round(px_per_mm, 4))
        with self._lock:
            cached = self._art_cache.get(key)
        if cached is not None:
            return cached
        path = self.art_path(side, color)
        art = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if art is None or art.ndim != 3 or art.shape[2] != 4:
            raise FileNotFoundError(f"art {path} is missing or not an RGBA PNG")
        size_px = max(8, round(side.shape.size_mm * px_per_mm))
        art = cv2.resize(art, (size_px, size_px), interpolation=cv2.INTER_AREA)
        art.setflags(write=False)
        with self._lock:
            self._art_cache[key] = art
        return art

    def reference_colors(self) -> tuple[str, ...]:
        """The colours whose art the templates are built from: the darkest and the palest in the
        ink channel (e.g. yellow and gray), so that both ends of the contrast range are covered.
        The features of both lie at the same art positions; repeats become twins."""
        by_ink = sorted(self.catalogue.colors, key=lambda c: min(c.rgb))
        return tuple(dict.fromkeys([by_ink[0].name, by_ink[-1].name]))

    def template(self, side: Side, px_per_mm: float, blur_mm: float = 0.0) -> SideTemplate:
        """SIFT features of ``side`` at ``px_per_mm``, of its art as printed or, with ``blur_mm``
        (sigma, mm on the item), as an out-of-focus camera sees it: computed once per process
        and kept in memory, and kept on disk (:func:`template_cache_dir`) so that later processes
        only load them. The disk copy is keyed by the art files' bytes and the OpenCV version."""
        key = (side.label, round(px_per_mm, 4), round(blur_mm, 3))
        with self._lock:
            cached = self._template_cache.get(key)
        if cached is not None:
            return cached
        path = self._template_file(side, px_per_mm, blur_mm)
        template = _read_template(path, side, px_per_mm, blur_mm) if path is not None else None
        if template is None:
            template = self._compute_template(side, px_per_mm, blur_mm)
            if path is not None:
                _write_template(path, template)
        with self._lock:
            self._template_cache[key] = template
        return template

    def ink_variants(
        self, side: Side, px_per_mm: float, blurs_mm: tuple[float, ...]
    ) -> list[np.ndarray]:
        """The side's art ink (float32) at ``px_per_mm``: of each reference colour, blurred by
        each of ``blurs_mm`` (sigma, mm on the item; 0 is sharp), in that order."""
        out = []
        for color in self.reference_colors():
            art = self.art_rgba(side, color, px_per_mm)
            ink = ink_channel(art[:, :, :3]).astype(np.float32)
            for blur in blurs_mm:
                out.append(cv2.GaussianBlur(ink, (0, 0), blur * px_per_mm) if blur > 0 else ink)
        return out

    def turned_ink(
        self, side: Side, px_per_mm: float, step_deg: float, blurs_mm: tuple[float, ...]
    ) -> TurnedInk:
        """The side's art ink (of each reference colour, blurred by each of ``blurs_mm``: sigma,
        mm on the item) at ``px_per_mm``, turned about its centre every ``step_deg``; computed
        once per process (the newest :data:`_TURNED_KEPT` side and scale pairs, 8 MB each at
        the outline search's usual 0.8 px/mm)."""
        key = (side.label, round(px_per_mm, 4), round(step_deg, 3), tuple(blurs_mm))
        with self._lock:
            cached = self._turned_cache.get(key)
        if cached is not None:
            return cached
        n = 2 * int(np.ceil(side.shape.size_mm / 2 * px_per_mm)) + 1
        arts = self.ink_variants(side, px_per_mm, blurs_mm)
        angles = np.arange(0.0, 360.0, step_deg)
        stack = np.empty((len(angles), len(arts), n, n), np.float32)
        for i, angle in enumerate(angles):
            for j, ink in enumerate(arts):
                centre = (ink.shape[1] - 1) / 2
                # OpenCV turns counter-clockwise on screen; a pose angle turns clockwise (y down)
                m = cv2.getRotationMatrix2D((centre, centre), -float(angle), 1.0)
                m[:, 2] += (n - 1) / 2 - centre
                stack[i, j] = cv2.warpAffine(
                    ink, m, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
                )
        turned = TurnedInk(angles, stack)
        with self._lock:
            self._turned_cache[key] = turned
            while len(self._turned_cache) > _TURNED_KEPT:  # views come at a few scales
                self._turned_cache.pop(next(iter(self._turned_cache)))
        return turned

    def _template_file(self, side: Side, px_per_mm: float, blur_mm: float) -> Path | None:
        """Where the disk copy of a template lives (None when the disk cache is off)."""
        folder = template_cache_dir()
        if folder is None:
            return None
        scale = f"{round(px_per_mm, 4)}|{round(blur_mm, 3)}"
        digest = hashlib.sha256(
            f"{_TEMPLATE_FORMAT}|{cv2.__version__}|{side.label}|{scale}".encode()
        )
        for color in self.reference_colors():
            try:
                digest.update(self.art_path(side, color).read_bytes())
            except OSError:
                return None  # art_rgba reports the missing file when computing
        return folder / f"{side.label}-{digest.hexdigest()[:32]}.npz"

    def _compute_template(self, side: Side, px_per_mm: float, blur_mm: float) -> SideTemplate:
        points_list, descriptor_list, angles, sizes = [], [], [], []
        sift = cv2.SIFT_create()
        for color in self.reference_colors():
            art = self.art_rgba(side, color, px_per_mm)
            mask = cv2.erode((art[:, :, 3] > 128).astype(np.uint8) * 255, np.ones((5, 5), np.uint8))
            ink = ink_channel(art[:, :, :3])
            if blur_mm > 0:
                ink = cv2.GaussianBlur(ink, (0, 0), blur_mm * px_per_mm)
            keypoints, found = sift.detectAndCompute(ink, mask)
            if found is None:
                continue
            size_mm = art.shape[0] / px_per_mm
            points = np.array([kp.pt for kp in keypoints], dtype=np.float64).reshape(-1, 2)
            points_list.append((points + 0.5) / px_per_mm - size_mm / 2)
            descriptor_list.append(found)
            angles += [kp.angle for kp in keypoints]
            sizes += [kp.size for kp in keypoints]
        points_mm = np.concatenate(points_list) if points_list else np.zeros((0, 2))
        descriptors = (
            np.concatenate(descriptor_list) if descriptor_list else np.zeros((0, 128), np.float32)
        )
        descriptors = descriptors.astype(np.float32)
        sq = (descriptors**2).sum(axis=1)
        dist2 = sq[:, None] + sq[None, :] - 2 * descriptors @ descriptors.T
        twins = dist2 < TWIN_DESCRIPTOR_DISTANCE**2
        np.fill_diagonal(twins, False)
        return SideTemplate(
            side,
            px_per_mm,
            points_mm,
            descriptors,
            twins,
            np.array(angles, np.float64),
            np.array(sizes, np.float64),
            blur_mm,
        )


def template_cache_dir() -> Path | None:
    """The folder of cached art templates: ``$TABLESCORE_CACHE_DIR`` if set (empty: no disk
    cache), else the user cache folder (e.g. ``~/.cache/tablescore/templates``)."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured is not None:
        return Path(configured) if configured.strip() else None
    return Path(platformdirs.user_cache_dir("tablescore")) / "templates"


_TEMPLATE_ARRAYS = ("points_mm", "descriptors", "twins", "angles_deg", "sizes_px")


def _read_template(path: Path, side: Side, px_per_mm: float, blur_mm: float) -> SideTemplate | None:
    """The template stored at ``path``, or None when it is absent or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in _TEMPLATE_ARRAYS}
    except (OSError, ValueError, KeyError):
        return None
    n = len(arrays["points_mm"])
    shapes_ok = (
        arrays["points_mm"].shape == (n, 2)
        and arrays["descriptors"].shape == (n, 128)
        and arrays["twins"].shape == (n, n)
        and arrays["angles_deg"].shape == arrays["sizes_px"].shape == (n,)
    )
    if not shapes_ok:
        return None
    return SideTemplate(
        side,
        px_per_mm,
        arrays["points_mm"].astype(np.float64),
        arrays["descriptors"].astype(np.float32),
        arrays["twins"].astype(bool),
        arrays["angles_deg"].astype(np.float64),
        arrays["sizes_px"].astype(np.float64),
        blur_mm,
    )


def _write_template(path: Path, template: SideTemplate) -> None:
    """Store ``template`` at ``path`` atomically; a folder that cannot be written is skipped
    (the template is then computed again by the next process)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                np.savez(out, **{name: getattr(template, name) for name in _TEMPLATE_ARRAYS})
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return


def _sides(catalogue: Catalogue) -> tuple[Side, ...]:
    sides = [Side(ItemKind.COASTER, t.type, Face.UP, t.shape) for t in catalogue.coaster_types]
    back_shapes: list[Shape] = []
    for t in catalogue.coaster_types:
        if t.shape not in back_shapes:
            back_shapes.append(t.shape)
    sides += [Side(ItemKind.COASTER, None, Face.DOWN, s) for s in back_shapes]
    sides += [Side(ItemKind.NAPKIN, None, f, catalogue.napkin.shape) for f in (Face.UP, Face.DOWN)]
    return tuple(sides)


_LIBRARIES: dict[tuple[Path, str, int], ArtLibrary] = {}
_LIBRARIES_LOCK = Lock()


def art_library(catalogue: Catalogue) -> ArtLibrary:
    """The (process-wide, cached) art library of ``catalogue``."""
    key = (catalogue.root, catalogue.name, catalogue.version)
    with _LIBRARIES_LOCK:
        library = _LIBRARIES.get(key)
        if library is None:
            library = ArtLibrary(catalogue=catalogue, sides=_sides(catalogue))
            _LIBRARIES[key] = library
        return library
