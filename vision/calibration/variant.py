"""A re-coloured, re-drawn variant of a catalogue: new player colours and new icon placement.

Stands in for a player's own printed set in tests and benchmarks: the calibration must build a
working catalogue for it from photos alone. :func:`write_variant` derives every art PNG from the
base set's first colour:

* colours: the base colour's hue is moved to each new colour (saturation and brightness scaled),
  outside the icons only, so cream, black and the icon drawings keep their look;
* placement: per coaster type, the icon layout is turned about the coaster centre and every icon
  is turned about its own centre, within the README's rules (>= 3 mm inside the edge, >= 2 mm
  between icons, counting the printed halo); the holes left by the old icons are filled with the
  coaster's own background from a rotated or mirrored copy of the art.

The written ``components.json`` holds the true icon outlines (the base ones moved with their
icons); :func:`check_against` compares a calibrated set with it.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from shapely import affinity
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Catalogue, Face, ItemKind, load_catalogue
from vision.calibration.art_frame import (
    ART_PX_PER_MM,
    flatten_outside,
    polygon_alpha,
    shape_alpha,
)
from vision.calibration.coaster_set import IconRow, RectifiedSide, SideKey
from vision.calibration.rectify import quarter_turn, register

#: Colours of the default variant (name, sRGB): far from the default set's and from each other.
VARIANT_COLORS: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("orange", (236, 112, 24)),
    ("purple", (118, 52, 160)),
    ("teal", (0, 138, 140)),
    ("pink", (226, 78, 150)),
    ("lime", (120, 180, 30)),
)
#: Printed cream halo around the black line (mm), moved with its icon.
HALO_MM = 0.8
#: Rules of the README: icons >= 3 mm inside the edge, >= 2 mm from each other.
EDGE_CLEARANCE_MM = 3.0
ICON_CLEARANCE_MM = 2.0
#: Largest turn of one icon about its own centre (degrees).
MAX_ICON_TURN_DEG = 30.0
#: Hue window (degrees) around the base colour's hue that is re-coloured.
_HUE_WINDOW_DEG = 28.0


@dataclass(frozen=True)
class IconMove:
    """Where one icon went: a base face point p (mm) moves to ``R(angle_deg) @ p + shift_mm``."""

    icon_id: str
    angle_deg: float
    shift_mm: tuple[float, float]

    def matrix(self) -> np.ndarray:
        """(3, 3) affine map: base face mm -> variant face mm."""
        a = np.deg2rad(self.angle_deg)
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, -s, self.shift_mm[0]], [s, c, self.shift_mm[1]], [0.0, 0.0, 1.0]])

    def apply(self, polygon: Polygon) -> Polygon:
        m = self.matrix()
        return affinity.affine_transform(polygon, [m[0, 0], m[0, 1], m[1, 0], m[1, 1], *m[:2, 2]])


def plan_layout(
    rng: np.random.Generator, catalogue: Catalogue, type_name: str, attempts: int = 500
) -> tuple[IconMove, ...]:
    """New places for the icons of ``type_name``: a turn of the whole layout about the centre,
    then a turn of each icon about its own centroid; raises ValueError if no draw fits."""
    coaster = catalogue.coaster_type(type_name)
    allowed = coaster.shape.polygon_mm.buffer(-EDGE_CLEARANCE_MM)
    for _ in range(attempts):
        layout_deg = float(rng.uniform(60.0, 300.0))
        moves, placed = [], []
        for icon in coaster.icons:
            turned = affinity.rotate(icon.outline_mm, layout_deg, origin=(0.0, 0.0))
            spin = float(rng.uniform(-MAX_ICON_TURN_DEG, MAX_ICON_TURN_DEG))
            cx, cy = turned.centroid.x, turned.centroid.y
            total = layout_deg + spin
            # the whole move: rotate by `total` about the origin, then shift so the centroid of
            # the turned icon stays where the layout turn put it
            a = np.deg2rad(total)
            base_c = np.array(icon.outline_mm.centroid.coords[0])
            rotated_c = np.array(
                [
                    np.cos(a) * base_c[0] - np.sin(a) * base_c[1],
                    np.sin(a) * base_c[0] + np.cos(a) * base_c[1],
                ]
            )
            move = IconMove(icon.id, total, (float(cx - rotated_c[0]), float(cy - rotated_c[1])))
            moves.append(move)
            placed.append(move.apply(icon.outline_mm).buffer(HALO_MM))
        inside = all(allowed.contains(p) for p in placed)
        apart = all(
            placed[i].distance(placed[j]) >= ICON_CLEARANCE_MM
            for i in range(len(placed))
            for j in range(i + 1, len(placed))
        )
        if inside and apart:
            return tuple(moves)
    raise ValueError(f"no new icon layout of {type_name!r} fits the coaster")


def _hsv_of(rgb: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[rgb[::-1]]]), cv2.COLOR_BGR2HSV_FULL)[0, 0].astype(np.float32)


def recolour(
    bgra: np.ndarray,
    base_rgb: tuple[int, int, int],
    new_rgb: tuple[int, int, int],
    keep: np.ndarray | None = None,
) -> np.ndarray:
    """Move the pixels of ``base_rgb``'s hue to ``new_rgb`` (BGRA uint8 in and out).

    Hue is replaced, saturation and brightness scaled by the colours' ratios; the weight fades
    out towards the edge of the hue window and for unsaturated pixels. ``keep``: (H, W) float
    0..1 of pixels to leave alone (icons).
    """
    hsv = cv2.cvtColor(bgra[:, :, :3], cv2.COLOR_BGR2HSV_FULL).astype(np.float32)
    base, new = _hsv_of(base_rgb), _hsv_of(new_rgb)
    dh = np.abs(((hsv[:, :, 0] - base[0] + 128) % 256) - 128) * 360 / 256
    weight = np.clip((_HUE_WINDOW_DEG + 10 - dh) / 10, 0, 1)
    weight *= np.clip((hsv[:, :, 1] - 40) / 50, 0, 1)
    if keep is not None:
        weight *= 1 - keep
    moved = hsv.copy()
    moved[:, :, 0] = new[0]
    moved[:, :, 1] = np.clip(hsv[:, :, 1] * new[1] / max(base[1], 1), 0, 255)
    moved[:, :, 2] = np.clip(hsv[:, :, 2] * new[2] / max(base[2], 1), 0, 255)
    bgr_new = cv2.cvtColor(moved.astype(np.uint8), cv2.COLOR_HSV2BGR_FULL).astype(np.float32)
    w = weight[:, :, None]
    out = bgra.copy()
    out[:, :, :3] = np.round(bgra[:, :, :3] * (1 - w) + bgr_new * w).astype(np.uint8)
    return out


#: Copies of the art that may lend background to the holes left by moved icons.
_BACKGROUND_DONORS = (
    lambda a: cv2.rotate(a, cv2.ROTATE_180),
    lambda a: cv2.flip(a, 1),
    lambda a: cv2.flip(a, 0),
    lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE),
    lambda a: cv2.transpose(a),
)


def relayout_face(
    bgra: np.ndarray, catalogue: Catalogue, type_name: str, moves: tuple[IconMove, ...]
) -> np.ndarray:
    """The face art (BGRA, 10 px/mm) of ``type_name`` with its icons moved by ``moves``."""
    coaster = catalogue.coaster_type(type_name)
    size_mm = coaster.shape.size_mm
    n = bgra.shape[0]
    regions = [
        polygon_alpha(icon.outline_mm.buffer(HALO_MM + 0.3), size_mm).astype(np.float32) / 255
        for icon in coaster.icons
    ]
    hole = np.clip(np.sum(regions, axis=0), 0, 1)
    hole_dilated = cv2.dilate((hole > 0).astype(np.uint8), np.ones((5, 5), np.uint8))
    filled = bgra.astype(np.float32)
    todo = hole_dilated > 0
    for donor in _BACKGROUND_DONORS:
        if not todo.any():
            break
        donor_art, donor_hole = donor(bgra), donor(hole_dilated)
        usable = todo & (donor_hole == 0)
        filled[usable] = donor_art[usable]
        todo &= ~usable
    if todo.any():  # nowhere clean to copy from: the median background
        filled[todo] = np.median(bgra[~(hole_dilated > 0)], axis=0)
    # soft seam: blend the filled background in by the (anti-aliased) hole coverage
    seam = cv2.GaussianBlur(hole, (0, 0), 1.0)[:, :, None]
    out = bgra.astype(np.float32) * (1 - seam) + filled * seam
    px = ART_PX_PER_MM
    to_px = np.array([[px, 0, size_mm / 2 * px - 0.5], [0, px, size_mm / 2 * px - 0.5], [0, 0, 1]])
    for region, move in zip(regions, moves, strict=True):
        m = (to_px @ move.matrix() @ np.linalg.inv(to_px))[:2]
        icon_art = cv2.warpAffine(bgra.astype(np.float32), m, (n, n), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(region, m, (n, n), flags=cv2.INTER_LINEAR)[:, :, None]
        out = out * (1 - alpha) + icon_art * alpha
    result = np.clip(np.round(out), 0, 255).astype(np.uint8)
    result[:, :, 3] = bgra[:, :, 3]
    return result


def write_variant(
    out_dir: str | Path,
    *,
    seed: int = 0,
    base: Catalogue | None = None,
    colors: tuple[tuple[str, tuple[int, int, int]], ...] = VARIANT_COLORS,
    name: str = "variant",
    types: tuple[str, ...] | None = None,
) -> Path:
    """Write a variant catalogue folder (``components.json`` + ``art/``); returns the folder.

    ``colors`` replaces the base colours (any number >= 2); all art derives from the base set's
    first colour. ``types``: keep only these coaster types (default: all). Deterministic for a
    given ``seed``.
    """
    if len(colors) < 2 or len({c for c, _ in colors}) != len(colors):
        raise ValueError("a variant needs at least two colours with distinct names")
    base = base or load_catalogue()
    if types is not None:
        unknown = set(types) - set(base.type_names)
        if unknown or not types:
            raise ValueError(f"unknown coaster types {sorted(unknown)}; known: {base.type_names}")
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    (out / "art").mkdir(parents=True, exist_ok=True)
    base_color = base.colors[0]
    raw = json.loads((base.root / "components.json").read_text(encoding="utf-8"))
    raw["name"] = name
    raw["colors"] = [{"name": c, "rgb": list(rgb)} for c, rgb in colors]
    raw["art"] = {
        "coaster_face": "art/coaster-{color}-{type}-face.png",
        "coaster_back": "art/coaster-{color}-{type}-back.png",
        "napkin_face": "art/napkin-{color}-face.png",
        "napkin_back": "art/napkin-{color}-back.png",
    }
    raw["coaster_types"] = [t for t in raw["coaster_types"] if types is None or t["type"] in types]
    outlines: dict[tuple[str, str], list[list[float]]] = {}
    for coaster in base.coaster_types:
        if types is not None and coaster.type not in types:
            continue
        moves = plan_layout(rng, base, coaster.type)
        face = _read_art(base.art_path(ItemKind.COASTER, base_color.name, coaster.type, Face.UP))
        moved_face = relayout_face(face, base, coaster.type, moves)
        icon_cover = np.clip(
            sum(
                polygon_alpha(m.apply(i.outline_mm).buffer(HALO_MM), coaster.shape.size_mm).astype(
                    np.float32
                )
                for i, m in zip(coaster.icons, moves, strict=True)
            )
            / 255,
            0,
            1,
        )
        back = _read_art(base.art_path(ItemKind.COASTER, base_color.name, coaster.type, Face.DOWN))
        for icon, move in zip(coaster.icons, moves, strict=True):
            ring = np.asarray(move.apply(icon.outline_mm).exterior.coords)[:-1]
            outlines[(coaster.type, icon.id)] = np.round(ring, 2).tolist()
        alpha = shape_alpha(coaster.shape)
        for color, rgb in colors:
            for art, face_name, keep in ((moved_face, "face", icon_cover), (back, "back", None)):
                art_c = recolour(art, base_color.rgb, rgb, keep)
                art_c[:, :, 3] = alpha
                path = out / raw["art"][f"coaster_{face_name}"].format(
                    color=color, type=coaster.type
                )
                _write_art(path, flatten_outside(art_c))
    for t in raw["coaster_types"]:
        for icon in t["icons"]:
            icon["outline"] = outlines[(t["type"], icon["id"])]
    for face_name, side in (("face", Face.UP), ("back", Face.DOWN)):
        napkin = _read_art(base.art_path(ItemKind.NAPKIN, base_color.name, None, side))
        for color, rgb in colors:
            path = out / raw["art"][f"napkin_{face_name}"].format(color=color)
            _write_art(path, recolour(napkin, base_color.rgb, rgb))
    (out / "components.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return out


def _read_art(path: Path) -> np.ndarray:
    art = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if art is None or art.ndim != 3 or art.shape[2] != 4:
        raise FileNotFoundError(f"art {path} is missing or not an RGBA PNG")
    return art


def _write_art(path: Path, bgra: np.ndarray) -> None:
    if not cv2.imwrite(str(path), bgra, [cv2.IMWRITE_PNG_COMPRESSION, 3]):
        raise OSError(f"cannot write {path}")


@dataclass(frozen=True)
class IconCheck:
    """A calibrated icon against the truth: the row confirmed with the true id, kind and value,
    and ``outline_error_mm``, the Hausdorff distance to the true outline (after turning the
    calibrated face frame onto the true one; a new set's frame is free)."""

    row: IconRow
    outline_error_mm: float


def check_against(
    truth: Catalogue, sides: dict[SideKey, RectifiedSide], icons: list[IconRow]
) -> list[IconCheck]:
    """Confirm ``icons`` the way a person would, from a known catalogue ``truth`` (each row
    takes the id, kind and value of the nearest true icon), and measure the outline errors.
    One check per row, in order."""
    turns: dict[str, float] = {}
    checks = []
    for row in icons:
        if row.coaster_type not in turns:
            side = next(
                s
                for k, s in sides.items()
                if k.kind == "coaster" and k.face == "face" and k.type_name == row.coaster_type
            )
            turns[row.coaster_type] = float(np.rad2deg(_turn_onto_truth(truth, side)))
        outline = affinity.rotate(
            Polygon(row.outline_mm), turns[row.coaster_type], origin=(0.0, 0.0)
        )
        centre = outline.centroid
        true_icons = truth.coaster_type(row.coaster_type).icons
        icon = min(true_icons, key=lambda i, c=centre: i.outline_mm.centroid.distance(c))
        confirmed = dataclasses.replace(
            row, icon_id=icon.id, kind=icon.kind.value, value=icon.value
        )
        checks.append(IconCheck(confirmed, float(outline.hausdorff_distance(icon.outline_mm))))
    return checks


def _turn_onto_truth(truth: Catalogue, side: RectifiedSide) -> float:
    """Turn (radians) from a calibrated face's frame onto the true art's frame."""
    key = side.side
    path = truth.art_path(ItemKind.COASTER, key.color, key.type_name, Face.UP)
    true_art = _read_art(path)[:, :, :3]
    small = round(side.shape.size_mm * 4)
    built = cv2.resize(side.art_bgra[:, :, :3], (small, small), interpolation=cv2.INTER_AREA)
    true_small = cv2.resize(true_art, (small, small), interpolation=cv2.INTER_AREA)
    if side.shape.kind == "rounded_square":
        return quarter_turn(built, true_small)
    found = register(built, true_small, side.shape.size_mm, 4.0)
    if found is None:
        raise ValueError(f"{key.label}: cannot register the calibrated face on the true art")
    return found.angle_rad
