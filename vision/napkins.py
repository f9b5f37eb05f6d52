"""Find napkins by their straight edges: a Hough vote for rounded squares of known size.

A napkin's back is plain paper with a pale border stripe, too featureless for feature matching.
Its outline and stripe, though, are straight lines at known distances from its centre (the
catalogue's napkin size, the art's stripe). In the rectified view every edge pixel, with its
gradient direction, votes for the centres that would put it on one of those lines (on either
side), together with the square's orientation (the direction modulo 90 degrees). Peaks are
napkin candidates; the voters of a peak then fit its centre and angle by least squares, and
the best supported of a few candidates is taken. A napkin found (or known from its features)
takes its edge pixels out of the vote, so a napkin lying half under it (a stack of napkins)
still shows its own peak. A candidate must be paper inside a darker stripe (or a stripe too
faint to tell whose border profiles follow the art all the same), and its lines must end at its
corners (planks and a table's edge run on).

Frames: canvas px of a :class:`vision.detect.CanvasView`; results in table mm.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from games.beer_pretzels.catalogue import Face, ItemKind
from vision.art import ArtLibrary, Side, ink_channel
from vision.detect import CanvasView, SideDetection
from vision.plane import ItemPose

#: Distances of the napkin's straight edges from its centre, as a share of its half size:
#: the paper's edge and the border stripe's outer and inner edges (face and back).
EDGE_OFFSETS = (1.0, 60.0 / 65.0, 56.0 / 65.0, 57.5 / 65.0)
#: Hough cell (mm) and orientation bin (degrees, modulo 90).
CELL_MM = 3.0
ANGLE_BIN_DEG = 5.0
#: Gradient magnitude (ink levels per px, Sobel) above which a pixel votes.
MIN_GRADIENT = 25.0
#: A peak needs, on each of two perpendicular sides, this share of a full side's votes...
MIN_CORNER_SHARE = 0.1
#: ...and its fitted lines this share of the line pixels of a fully visible napkin's back, times
#: the share of its outline clear of the items known and the napkins found (at least
#: :data:`MIN_CLEAR_OUTLINE_SHARE`): the bottom napkin of a stack shows only its clear lines.
MIN_FULL_SHARE = 0.4
MIN_CLEAR_OUTLINE_SHARE = 0.35
#: A napkin found on fewer lines than a whole one's share must show its printed border where
#: its outline is clear (:func:`_clear_border_agreement`): a square beside a napkin, half over
#: it, finds a few of its lines (dev 0022; the pipeline's own bound is 0.3).
MIN_BORDER_SHOWN = 0.3
#: A napkin's lines run on past its corners by at most this share of their pixels within it
#: (:func:`_line_overrun`; real napkins logged on validation photos: 0.00-0.03; squares fitted
#: to the planks of a pale wooden table and its edge, validation 0017: 0.12-0.18).
MAX_LINE_OVERRUN = 0.08
#: Inside the stripe a napkin is paper: at least this share of it is unsaturated...
MIN_PAPER_SHARE = 0.5
#: ...that is, (max - min) / max of B, G, R below this; and the stripe's ink is darker than the
#: paper's by at least this share of the paper's, along at least two of the four sides (a
#: napkin partly under another still shows a corner).
MAX_PAPER_SATURATION = 0.3
MIN_STRIPE_CONTRAST = 0.15
MIN_STRIPE_SIDES = 2
#: A stripe fainter than that is still a napkin's printed border where at least this share of
#: its border profiles clear of other items follows the art (:func:`_clear_border_agreement`;
#: stricter than :data:`MIN_BORDER_SHOWN`): the gray back's stripe is the palest (its art's
#: ink 40 % below the paper's, the other colours' 75 %), and blur and an overexposed photo
#: wash it out to 9-13 % (validation 90-149's 0091 and 0099, their profiles agreeing 69 % and
#: 84 %).
MIN_FAINT_STRIPE_BORDER = 0.5
#: The stripe is looked for this far (share of the half size) in and out of its place in the
#: art, and the border profiles (:func:`border_agreement`) sampled so much smaller and larger:
#: the plane may be a few per cent off in scale (held-out 0000: 4 %, which put a napkin back's
#: 2.5 mm stripe beside the band looked at).
STRIPE_SHIFTS = (-0.04, -0.02, 0.0, 0.02, 0.04)
#: A candidate this close to a known napkin (centres, mm; angles modulo 90 degrees) is that
#: napkin. Stacked napkins lie farther apart or turned (valid. 30-89's 0038: 47 mm apart, 57% of
#: their area shared); a napkin matched on a few features may be placed up to about 20 mm off.
SAME_NAPKIN_MM = 25.0
SAME_NAPKIN_DEG = 10.0
#: Around each peak tried, and around the centre fitted to it, this share of the half size is
#: taken out of the vote (the peak's spread over neighbouring cells); around a peak refused (its
#: lines too few, or no paper inside them), this share.
TRIED_RADIUS_SHARE = 0.25
REFUSED_RADIUS_SHARE = 0.5
#: After a napkin is found, edge pixels this close to its lines (px, and normals within
#: :data:`EXPLAINED_ANGLE_DEG` of its axes) are explained: they neither vote nor fit again.
EXPLAINED_PX = 3.0
EXPLAINED_ANGLE_DEG = 20.0
#: Cell rows of the vote worked out at a time (a strip's buffers stay small and warm).
_STRIP_ROWS = 32
#: At most this many napkins are looked for, among at most this many peaks (each fit costs
#: about 9 ms; the napkins taken on the dev and validation photos logged were first proposed by
#: peaks 1-7, a crowded table has a hundred peaks); each napkin is the best supported (most edge
#: pixels on its lines) of this many candidate peaks.
MAX_NAPKINS = 12
MAX_PEAKS = 30
CANDIDATES_PER_NAPKIN = 4
#: A napkin placed by its features is fitted again to its lines (:func:`fit_to_lines`) only
#: within this of where they put it (mm, deg): farther, the lines fitted are another napkin's
#: or an item's beside it.
MAX_LINE_FIT_MOVE_MM = 3.0
MAX_LINE_FIT_TURN_DEG = 3.0
#: A napkin placed far off (:func:`napkin_on_its_lines`) is fitted to its lines again from
#: where the last fit left it, until it moves less than half a pixel, at most this many times.
LINE_SETTLE_ROUNDS = 5


@dataclass(frozen=True)
class _Edges:
    """Strong edge pixels in row-major order (sorted by y): (N, 2) canvas px and unit normals."""

    points: np.ndarray
    normals: np.ndarray

    def subset(self, keep: np.ndarray) -> _Edges:
        """The edge pixels where the boolean mask ``keep`` is set (row-major order kept)."""
        return _Edges(self.points[keep], self.normals[keep])

    def near(self, centre: np.ndarray, radius: float) -> np.ndarray:
        """Indices (ascending) of the edge pixels closer than ``radius`` px to ``centre``."""
        rows = np.searchsorted(self.points[:, 1], [centre[1] - radius, centre[1] + radius])
        band = self.points[rows[0] : rows[1]]
        inside = np.linalg.norm(band - centre, axis=1) < radius
        return rows[0] + np.flatnonzero(inside)


def _edge_pixels(view: CanvasView) -> _Edges:
    gx, gy = view.ink_gradients
    mag = np.sqrt(gx**2 + gy**2)
    strong = mag > MIN_GRADIENT
    ys, xs = np.nonzero(strong)
    n = np.stack([gx[ys, xs], gy[ys, xs]], 1) / mag[ys, xs, None]
    return _Edges(np.stack([xs, ys], 1).astype(np.float64), n.astype(np.float64))


def _vote_cells(
    edges: _Edges, half_px: float, cell: float, n_bins: int, grid: tuple[int, int]
) -> np.ndarray:
    """Flat accumulator indices (side, cell row, cell column, orientation bin) of every vote.

    Each edge pixel votes, for each line offset and on either side of it, for the centre cell
    (``cell`` px, ``grid`` = (columns, rows)) that would put it on that line, with the square's
    orientation bin (modulo 90 degrees) and the side of the square it would lie on.
    """
    nx, ny = grid
    x, y = (np.ascontiguousarray(edges.points[:, k]) for k in (0, 1))
    normal_x, normal_y = (np.ascontiguousarray(edges.normals[:, k]) for k in (0, 1))
    theta = np.arctan2(normal_y, normal_x)
    abin = np.floor((np.rad2deg(theta) % 90.0) / ANGLE_BIN_DEG).astype(np.int64) % n_bins
    bin_centre = np.deg2rad((abin + 0.5) * ANGLE_BIN_DEG)
    column, row = np.empty_like(x), np.empty_like(y)
    votes = []
    for sign in (1.0, -1.0):
        # the side of the square this pixel would lie on: its outward normal's quadrant
        outward = theta + (np.pi if sign > 0 else 0.0)
        side_k = (
            np.floor(((outward - bin_centre) % (2 * np.pi)) / (np.pi / 2) + 0.5).astype(np.int64)
            % 4
        )
        base = (side_k * ny).astype(np.float64)
        for share in EDGE_OFFSETS:
            offset = sign * share * half_px
            # in place, in float64 (exact for these integers): floor((x + offset * normal) / cell)
            for out, position, normal in ((column, x, normal_x), (row, y, normal_y)):
                np.multiply(normal, offset, out=out)
                out += position
                out /= cell
                np.floor(out, out=out)
            ok = (column >= 0) & (column < nx) & (row >= 0) & (row < ny)
            row += base
            row *= nx
            row += column
            row *= n_bins
            row += abin
            votes.append(row[ok].astype(np.int64))
    return np.concatenate(votes)


def find_napkins(
    view: CanvasView,
    library: ArtLibrary,
    known: list[SideDetection],
    light_bgr: np.ndarray | None = None,
) -> list[SideDetection]:
    """Napkins in ``view`` not already among ``known`` detections (poses in table mm).

    ``light_bgr``: the light's per-channel gains (:func:`vision.identify.light_gains`), divided
    out before the paper is judged unsaturated (a warm light makes white paper look cream);
    None judges the pixels as they are.
    """
    side = next(s for s in library.sides if s.kind is ItemKind.NAPKIN and s.face is Face.DOWN)
    half_px = side.shape.size_mm / 2 * view.px_per_mm
    edges = _edge_pixels(view)
    if len(edges.points) == 0:
        return []
    h, w = view.image_bgr.shape[:2]
    cell = CELL_MM * view.px_per_mm
    known_poses = [d.pose for d in known if d.side.kind is ItemKind.NAPKIN]
    # the napkins known already do not vote: a square half over one of them would find its
    # lines and folds (dev 0009: a face-up napkin and a false one beside it sharing its edge)
    for pose in known_poses:
        centre = view.table_to_canvas(np.array([pose.center_mm]))[0]
        edges = edges.subset(~_explained(edges, centre, pose.angle_rad, half_px))
    vote = _Vote(edges, half_px, cell, (int(np.ceil(w / cell)) + 1, int(np.ceil(h / cell)) + 1))
    side_votes = 3 * (2 * half_px * 0.8)  # three straight lines per side (edge, stripe)
    full_edges = _full_napkin_edges(library, side, view.px_per_mm)

    # what hides napkins' lines: the items known and the napkins found
    covering = unary_union([_outline(d.side, d.pose) for d in known])

    def candidate(centre: np.ndarray, angle: float) -> _Candidate | None:
        """The napkin fitted from ``centre``, ``angle`` (canvas px, rad), if it is one."""
        fitted = _fit_square(edges, centre, angle, half_px)
        least = MIN_FULL_SHARE * full_edges
        if fitted is None or len(fitted[2]) < least * MIN_CLEAR_OUTLINE_SHARE:
            return None
        centre, angle, inliers = fitted
        centre_mm = view.canvas_to_table(centre[None])[0]
        pose = ItemPose((float(centre_mm[0]), float(centre_mm[1])), angle)
        ring = _outline(side, pose).exterior
        clear = 1.0 - ring.intersection(covering).length / ring.length
        if len(inliers) < least * max(clear, MIN_CLEAR_OUTLINE_SHARE):
            return None
        if any(same_napkin(pose, k) for k in known_poses):
            return None
        if len(inliers) < least and (
            _clear_border_agreement(view, library, pose, covering) < MIN_BORDER_SHOWN
        ):
            return None  # found on its clear lines alone: its printed border must show there
        if _line_overrun(edges, centre, angle, half_px) > MAX_LINE_OVERRUN:
            return None
        if not _is_paper(view, centre, angle, half_px, light_bgr) and (
            _paper_ink(view, centre, angle, half_px, light_bgr) is None
            or _clear_border_agreement(view, library, pose, covering) < MIN_FAINT_STRIPE_BORDER
        ):
            return None
        return _Candidate(centre, angle, inliers, pose)

    found: list[SideDetection] = []
    waiting: list[_Candidate] = []  # napkins that lost to a better supported one
    peaks = 0
    while len(found) < MAX_NAPKINS:
        # the best supported of a few candidates first: where napkins are stacked, a peak
        # between them fits the lines of both poorly, the napkin on top fits its own fully
        candidates = [c for c in (candidate(w.centre_px, w.angle_rad) for w in waiting) if c]
        while len(candidates) < CANDIDATES_PER_NAPKIN and peaks < MAX_PEAKS:
            centre, angle, votes = vote.peak()
            if votes < MIN_CORNER_SHARE * side_votes:
                break
            peaks += 1
            vote.mark_tried(centre, TRIED_RADIUS_SHARE * half_px)
            one = candidate(centre, angle)
            if one is None:
                vote.mark_tried(centre, REFUSED_RADIUS_SHARE * half_px)
                continue
            vote.mark_tried(one.centre_px, TRIED_RADIUS_SHARE * half_px)
            # a weaker peak of a napkin already fitted (its stripe's lines, or the paper's edge
            # against the stripe's when the plane is a little off in scale) stays unfitted
            if not any(same_napkin(one.pose, c.pose) for c in candidates):
                candidates.append(one)
        if not candidates:
            break
        best = max(candidates, key=lambda c: len(c.inliers))
        waiting = [c for c in candidates if c is not best]
        pose = best.pose
        local = pose.table_to_local(view.canvas_to_table(edges.points[best.inliers]))
        canvas = view.table_to_canvas(pose.local_to_table(local))
        found.append(_detection(side, pose, local, canvas))
        known_poses.append(best.pose)
        covering = covering.union(_outline(side, best.pose))
        explained = _explained(edges, best.centre_px, best.angle_rad, half_px)
        vote.remove(edges.subset(explained))
        edges = edges.subset(~explained)
    return found


def napkin_on_its_lines(
    view: CanvasView,
    library: ArtLibrary,
    pose: ItemPose,
    light_bgr: np.ndarray | None = None,
) -> ItemPose | None:
    """A napkin placed loosely at ``pose`` (table mm), placed on the straight lines of its
    paper's edge and border stripe around there, when they show as a whole napkin's do: at
    least :data:`MIN_FULL_SHARE` of a fully visible back's line pixels, not running on past
    its corners (:data:`MAX_LINE_OVERRUN`), unsaturated paper inside a darker stripe
    (:func:`_is_paper`; ``light_bgr`` as in :func:`find_napkins`); else None.

    A napkin matched on a few features (its back's faint print) can lie 20 mm and several
    degrees from where they put it, too far for its printed border to be found from there;
    the edge search then skips its lines as that napkin's (ref. held-out 0244: a green
    napkin's back in full view on gingham, placed 20 mm off by 8 features, its lines 83 % of
    a whole napkin's)."""
    side = next(s for s in library.sides if s.kind is ItemKind.NAPKIN and s.face is Face.DOWN)
    half_px = side.shape.size_mm / 2 * view.px_per_mm
    local = view.around(pose.center_mm, 2.5 * half_px)
    edges = _edge_pixels(local)
    centre = local.table_to_canvas(np.array([pose.center_mm]))[0]
    angle = pose.angle_rad
    for _ in range(LINE_SETTLE_ROUNDS):  # from far off, each fit takes it part of the way
        fitted = _fit_square(edges, centre, angle, half_px)
        if fitted is None:
            return None
        moved = np.hypot(*(fitted[0] - centre))
        centre, angle, inliers = fitted
        if moved < 0.5:
            break
    if len(inliers) < MIN_FULL_SHARE * _full_napkin_edges(library, side, view.px_per_mm):
        return None
    if _line_overrun(edges, centre, angle, half_px) > MAX_LINE_OVERRUN:
        return None
    if not _is_paper(local, centre, angle, half_px, light_bgr):
        return None
    centre_mm = local.canvas_to_table(centre[None])[0]
    return ItemPose((float(centre_mm[0]), float(centre_mm[1])), angle)


def fit_to_lines(view: CanvasView, size_mm: float, poses: list[ItemPose]) -> list[ItemPose]:
    """Each pose (table mm) of a napkin ``size_mm`` across, fitted again to the straight lines
    of its paper's edge and border stripe in ``view`` (:func:`_fit_square`, canvas px; the view
    is the table's, so angles are the same in both frames). A pose stays where the fit fails,
    or would move it more than :data:`MAX_LINE_FIT_MOVE_MM` or turn it more than
    :data:`MAX_LINE_FIT_TURN_DEG`.

    A napkin's face shows a few features (its logo) over plain paper, so its pose from them is
    a millimetre or so off, while its lines run all around it: on validation 90-149, the median
    gap between a napkin's outline and the true one fell from 0.76 to 0.58 mm. An icon covered
    by a napkin's edge by half a millimetre is still covered.
    """
    half_px = size_mm / 2 * view.px_per_mm
    fitted_poses = []
    for pose in poses:
        # the view around the napkin, its lines and the gradient's reach (_fit_square looks
        # 1.1 half sizes from the centre)
        local = view.around(pose.center_mm, 1.2 * half_px + 4)
        centre = local.table_to_canvas(np.array([pose.center_mm]))[0]
        fitted = _fit_square(_edge_pixels(local), centre, pose.angle_rad, half_px)
        if fitted is None:
            fitted_poses.append(pose)
            continue
        centre_px, angle, _ = fitted
        centre_mm = local.canvas_to_table(centre_px[None])[0]
        # the square repeats every 90 degrees: the fitted angle nearest the old one
        turn = (angle - pose.angle_rad + np.pi / 4) % (np.pi / 2) - np.pi / 4
        move = float(np.hypot(*(centre_mm - np.asarray(pose.center_mm))))
        if move > MAX_LINE_FIT_MOVE_MM or abs(turn) > np.deg2rad(MAX_LINE_FIT_TURN_DEG):
            fitted_poses.append(pose)
            continue
        fitted_poses.append(
            ItemPose((float(centre_mm[0]), float(centre_mm[1])), pose.angle_rad + turn)
        )
    return fitted_poses


@dataclass(frozen=True)
class _Candidate:
    """A napkin fitted to the edge pixels: centre (canvas px), angle (rad), the indices of its
    line pixels (into the edges it was fitted to) and its pose (table mm)."""

    centre_px: np.ndarray
    angle_rad: float
    inliers: np.ndarray
    pose: ItemPose


class _Vote:
    """The Hough accumulator of napkin centres over a grid of ``cell`` px cells (``grid`` =
    columns, rows of the canvas), for napkins ``half_px`` px from centre to side.

    A napkin's votes at a cell and orientation bin are, on the better pair of its perpendicular
    sides, the fewer votes of the two (:func:`_corner_votes`); per cell, ``best`` holds the most
    over the orientation bins (0 where tried) and ``best_bin`` the bin. The raw votes fill a few
    per cent of the (side, cell row, cell column, bin) grid, so they are kept sparse and the
    corner votes worked out a strip of rows at a time; removing edge pixels updates them only
    where theirs fell.
    """

    def __init__(self, edges: _Edges, half_px: float, cell: float, grid: tuple[int, int]):
        self.half_px, self.cell, self.grid = half_px, cell, grid
        self.n_bins = round(90 / ANGLE_BIN_DEG)
        nx, ny = grid
        cells, counts = np.unique(self._cells(edges), return_counts=True)
        self.cells, self.counts = cells, counts.astype(np.float32)  # flat indices, ascending
        self.best = np.zeros((ny, nx), np.float32)
        self.best_bin = np.zeros((ny, nx), np.int64)
        self.tried = np.zeros((ny, nx), bool)
        for y0 in range(0, ny, _STRIP_ROWS):
            self._update(y0, min(y0 + _STRIP_ROWS, ny), 0, nx)

    def _cells(self, edges: _Edges) -> np.ndarray:
        return _vote_cells(edges, self.half_px, self.cell, self.n_bins, self.grid)

    def _raw(self, y0: int, y1: int, x0: int, x1: int) -> np.ndarray:
        """Dense raw votes (side, cell rows y0:y1, cell columns x0:x1, bin), float32."""
        nx, ny = self.grid
        row_size = nx * self.n_bins
        block = np.zeros((4, y1 - y0, x1 - x0, self.n_bins), np.float32)
        for k in range(4):
            start = (k * ny + y0) * row_size
            lo, hi = np.searchsorted(self.cells, [start, start + (y1 - y0) * row_size])
            rows, rest = np.divmod(self.cells[lo:hi] - start, row_size)
            columns, bins = np.divmod(rest, self.n_bins)
            keep = (columns >= x0) & (columns < x1)
            block[k, rows[keep], columns[keep] - x0, bins[keep]] = self.counts[lo:hi][keep]
        return block

    def _update(self, y0: int, y1: int, x0: int, x1: int) -> None:
        """Work out ``best`` and ``best_bin`` again over cell rows y0:y1, columns x0:x1."""
        nx, ny = self.grid
        # the 3 x 3 box sum reaches one cell out
        ya, yb, xa, xb = max(y0 - 1, 0), min(y1 + 1, ny), max(x0 - 1, 0), min(x1 + 1, nx)
        corners = _corner_votes(self._raw(ya, yb, xa, xb))[y0 - ya : y1 - ya, x0 - xa : x1 - xa]
        self.best[y0:y1, x0:x1] = np.where(self.tried[y0:y1, x0:x1], 0.0, corners.max(axis=2))
        self.best_bin[y0:y1, x0:x1] = corners.argmax(axis=2)

    def peak(self) -> tuple[np.ndarray, float, float]:
        """The strongest untried cell: its centre (canvas px), orientation (rad) and votes."""
        iy, ix = np.unravel_index(int(np.argmax(self.best)), self.best.shape)
        centre = np.array([(ix + 0.5) * self.cell, (iy + 0.5) * self.cell])
        angle = np.deg2rad((self.best_bin[iy, ix] + 0.5) * ANGLE_BIN_DEG)
        return centre, float(angle), float(self.best[iy, ix])

    def remove(self, edges: _Edges) -> None:
        """Take the votes of ``edges`` out (pixels that voted before)."""
        if len(edges.points) == 0:
            return
        cells, counts = np.unique(self._cells(edges), return_counts=True)
        self.counts[np.searchsorted(self.cells, cells)] -= counts
        nx, ny = self.grid
        rows, columns = (cells // (nx * self.n_bins)) % ny, (cells // self.n_bins) % nx
        # the 3 x 3 box sum carries a vote one cell out
        y0, y1 = max(int(rows.min()) - 1, 0), min(int(rows.max()) + 2, ny)
        x0, x1 = max(int(columns.min()) - 1, 0), min(int(columns.max()) + 2, nx)
        self._update(y0, y1, x0, x1)

    def mark_tried(self, centre_px: np.ndarray, radius_px: float) -> None:
        """No peak within ``radius_px`` of ``centre_px`` (canvas px) any more."""
        cx, cy = np.asarray(centre_px) / self.cell - 0.5
        r = max(radius_px / self.cell, 1.0)
        ny, nx = self.tried.shape
        y0, x0 = min(max(int(cy - r), 0), ny), min(max(int(cx - r), 0), nx)
        y1, x1 = min(max(int(cy + r) + 2, 0), ny), min(max(int(cx + r) + 2, 0), nx)
        ys, xs = np.ogrid[y0:y1, x0:x1]
        disk = (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
        self.tried[y0:y1, x0:x1] |= disk
        self.best[y0:y1, x0:x1][disk] = 0.0


def _corner_votes(votes: np.ndarray) -> np.ndarray:
    """:class:`_Vote`'s corner votes (cell row, cell column, orientation bin) of raw votes
    (side, cell row, cell column, orientation bin), float32; a side at a time, in reused
    buffers (the grid is large and mostly empty)."""
    boxed = np.empty(votes.shape[1:], np.float32)

    def spread(k: int, out: np.ndarray) -> np.ndarray:
        # neighbouring cells and orientation bins share a peak (3 x 3 cells, 3 bins, circular)
        cv2.boxFilter(votes[k], -1, (3, 3), dst=boxed, normalize=False)
        np.copyto(out, boxed)
        out[..., 1:] += boxed[..., :-1]
        out[..., 0] += boxed[..., -1]
        out[..., :-1] += boxed[..., 1:]
        out[..., -1] += boxed[..., 0]
        return out

    # a napkin shows at least two perpendicular sides (a corner); parallel clutter (wood grain,
    # cloth stripes) votes for opposite sides only
    first = spread(0, np.empty_like(boxed))
    previous = spread(1, np.empty_like(boxed))
    corners = np.minimum(first, previous)
    current, pair = np.empty_like(boxed), np.empty_like(boxed)
    for k in (2, 3):
        spread(k, current)
        np.maximum(corners, np.minimum(previous, current, out=pair), out=corners)
        previous, current = current, previous
    np.maximum(corners, np.minimum(previous, first, out=pair), out=corners)
    return corners


def _clear_border_agreement(
    view: CanvasView, library: ArtLibrary, pose: ItemPose, covering: BaseGeometry
) -> float:
    """The best :func:`border_agreement` of a napkin at ``pose`` over its sides and colours,
    on its border profiles whose middle lies clear of ``covering`` (table mm); 0 when fewer than
    a side's worth are clear."""
    sides = [s for s in library.sides if s.kind is ItemKind.NAPKIN]
    middles = _profile_points(sides[0], view.px_per_mm)
    middles = pose.local_to_table(middles[:, middles.shape[1] // 2])
    clear = ~shapely.contains_xy(covering, middles[:, 0], middles[:, 1])
    if clear.sum() < _PROFILES_PER_SIDE:
        return 0.0
    return max(
        float(np.mean(correlations[clear] >= _MIN_PROFILE_CORRELATION))
        for correlations in (
            _border_correlations(view, library, side, color.name, pose)
            for side in sides
            for color in library.catalogue.colors
        )
    )


def same_napkin(a: ItemPose, b: ItemPose) -> bool:
    """Whether two napkin poses (table mm) are one napkin (:data:`SAME_NAPKIN_MM`,
    :data:`SAME_NAPKIN_DEG`; a square's angle counts modulo 90 degrees)."""
    turn = np.rad2deg(a.angle_rad - b.angle_rad) % 90.0
    return bool(
        np.hypot(a.center_mm[0] - b.center_mm[0], a.center_mm[1] - b.center_mm[1]) < SAME_NAPKIN_MM
        and min(turn, 90.0 - turn) < SAME_NAPKIN_DEG
    )


def _outline(side: Side, pose: ItemPose) -> Polygon:
    local = np.asarray(side.shape.polygon_mm.exterior.coords)[:-1]
    return Polygon(pose.local_to_table(local))


def _full_napkin_edges(library: ArtLibrary, side: Side, px_per_mm: float) -> int:
    """Line pixels the fit finds on the napkin's back art alone (on a plain dark ground)."""
    art = library.art_rgba(side, library.reference_colors()[0], px_per_mm)
    alpha = art[:, :, 3:4] / 255.0
    size = art.shape[0] + 40
    canvas = np.full((size, size, 3), 60.0)
    canvas[20:-20, 20:-20] = art[:, :, :3] * alpha + 60.0 * (1 - alpha)
    view = CanvasView(canvas.astype(np.uint8), (0.0, 0.0), px_per_mm)
    half_px = side.shape.size_mm / 2 * px_per_mm
    fitted = _fit_square(_edge_pixels(view), np.full(2, size / 2 - 0.5), 0.0, half_px)
    return 0 if fitted is None else len(fitted[2])


def _is_paper(
    view: CanvasView,
    centre: np.ndarray,
    angle: float,
    half_px: float,
    light_bgr: np.ndarray | None = None,
) -> bool:
    """Whether the candidate looks like a napkin: unsaturated paper inside a darker stripe.

    Canvas px. Inside the stripe most pixels are unsaturated (paper), and along at least
    :data:`MIN_STRIPE_SIDES` sides a band at the stripe's place, give or take
    :data:`STRIPE_SHIFTS`, is clearly darker in the ink channel than that paper (a printed
    border, not bare table; the other sides may lie under other items).
    The light's gains, when given, are divided out first (only their ratios matter here).
    """
    paper_ink = _paper_ink(view, centre, angle, half_px, light_bgr)
    if paper_ink is None:
        return False
    white = _white(light_bgr)
    darkest = np.zeros(4)  # per side, the darkest stripe band found (ink below the paper's)
    for shift in STRIPE_SHIFTS:
        inner, outer = (half_px * (share + shift) for share in (57.8 / 65, 59.7 / 65))
        stripe = _square_band_sides(view, centre, angle, inner, outer)
        for k, side in enumerate(stripe):
            if len(side) >= 5:
                drop = paper_ink - float(np.median((side / white).min(axis=1)))
                darkest[k] = max(darkest[k], drop)
    return int(np.sum(darkest > MIN_STRIPE_CONTRAST * paper_ink)) >= MIN_STRIPE_SIDES


def shows_paper(
    view: CanvasView, pose: ItemPose, size_mm: float, light_bgr: np.ndarray | None = None
) -> bool:
    """Whether a napkin ``size_mm`` across at ``pose`` (table mm) is unsaturated paper inside
    its stripe (:func:`_paper_ink`; the light's gains, when given, divided out)."""
    centre = view.table_to_canvas(np.array([pose.center_mm]))[0]
    half_px = size_mm / 2 * view.px_per_mm
    return _paper_ink(view, centre, pose.angle_rad, half_px, light_bgr) is not None


def _paper_ink(
    view: CanvasView,
    centre: np.ndarray,
    angle: float,
    half_px: float,
    light_bgr: np.ndarray | None = None,
) -> float | None:
    """The median ink of the paper inside a candidate's stripe (canvas px; the light's gains
    divided out as in :func:`_is_paper`), where at least :data:`MIN_PAPER_SHARE` of it is
    unsaturated; None where it is not paper."""
    paper = _square_band(view, centre, angle, 0.0, half_px * 0.7)
    if len(paper) < 50:
        return None
    paper = paper / _white(light_bgr)
    saturation = (paper.max(axis=1) - paper.min(axis=1)) / (paper.max(axis=1) + 1.0)
    if (saturation < MAX_PAPER_SATURATION).mean() < MIN_PAPER_SHARE:
        return None
    return float(np.median(paper.min(axis=1)))


def _white(light_bgr: np.ndarray | None) -> np.ndarray:
    """(3,) float32 B, G, R of white paper under the light's gains (only their ratios)."""
    if light_bgr is None:
        return np.ones(3, np.float32)
    return np.asarray(light_bgr, np.float32) / float(np.max(light_bgr))


def _square_band(
    view: CanvasView, centre: np.ndarray, angle: float, inner_px: float, outer_px: float
) -> np.ndarray:
    """(N, 3) float BGR pixels between two concentric squares (half sizes, canvas px)."""
    return np.concatenate(_square_band_sides(view, centre, angle, inner_px, outer_px))


def _square_band_sides(
    view: CanvasView, centre: np.ndarray, angle: float, inner_px: float, outer_px: float
) -> list[np.ndarray]:
    """The pixels of :func:`_square_band`, one (N, 3) float BGR array per side of the square
    (each pixel with the side its offset from the centre points to most)."""
    c, s = np.cos(angle), np.sin(angle)
    rings = []
    for half in (outer_px, inner_px):
        corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        rings.append(np.round(corners @ np.array([[c, s], [-s, c]]) + centre).astype(np.int32))
    h, w = view.image_bgr.shape[:2]
    x0, y0 = np.clip(rings[0].min(axis=0), 0, [w, h])
    x1, y1 = np.clip(rings[0].max(axis=0) + 1, 0, [w, h])
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [rings[0] - [x0, y0]], 1)
    if inner_px > 0:
        cv2.fillPoly(mask, [rings[1] - [x0, y0]], 0)
    ys, xs = np.nonzero(mask)
    dx, dy = xs + x0 - centre[0], ys + y0 - centre[1]
    along, across = dx * c + dy * s, -dx * s + dy * c  # the square's own axes
    side = np.argmax(np.stack([along, across, -along, -across]), axis=0)
    pixels = view.image_bgr[ys + y0, xs + x0].astype(np.float32)
    return [pixels[side == k] for k in range(4)]


def _detection(side: Side, pose: ItemPose, local: np.ndarray, canvas: np.ndarray) -> SideDetection:
    step = max(1, len(local) // 60)
    return SideDetection(
        side=side, pose=pose, points_local_mm=local[::step], points_canvas_px=canvas[::step]
    )


def _centre_by_profiles(
    pts: np.ndarray, nrm: np.ndarray, centre: np.ndarray, angle: float, offsets: np.ndarray
) -> np.ndarray:
    """Shift ``centre`` so that each side's edge profile lines up with the napkin's lines.

    Per side, the distances of its edge pixels from the centre form a profile (edge of the paper,
    then the stripe); its best shift against the expected lines is found by correlation, which
    cannot confuse one line with its neighbour as a local fit can.
    """
    axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
    rel = (pts - centre) @ axes.T
    proj_n = nrm @ axes.T
    step = 0.5
    grid = np.arange(offsets.max() * 0.6, offsets.max() * 1.3, step)
    expected = np.exp(-0.5 * ((grid[:, None] - offsets[None, :]) / 1.0) ** 2).sum(axis=1)
    shift = np.zeros(2)
    for a in (0, 1):
        aligned = np.abs(proj_n[:, a]) > np.cos(np.deg2rad(12))
        along_ok = np.abs(rel[:, 1 - a]) < offsets.max() * 0.85
        side_shifts = []
        for sign in (1.0, -1.0):
            d = sign * rel[aligned & along_ok, a]
            hist, _ = np.histogram(
                d, bins=len(grid), range=(grid[0] - step / 2, grid[-1] + step / 2)
            )
            if hist.sum() < 10:
                side_shifts.append(None)
                continue
            corr = np.correlate(hist.astype(float), expected, mode="full")
            lag = (int(np.argmax(corr)) - (len(grid) - 1)) * step
            side_shifts.append(sign * lag)
        found = [v for v in side_shifts if v is not None]
        if found:
            shift[a] = float(np.mean(found))
    return centre + shift @ axes


@dataclass(frozen=True)
class _LineTerms:
    """Edge pixels seen from a square napkin's pose: per pixel, the square's axis its normal
    lies along (0 or 1), how well (|cos| of the angle between them), its offset from the
    centre across and along that axis (px, signed), and its residual to the nearest of the
    napkin's lines (px)."""

    axis: np.ndarray
    alignment: np.ndarray
    across: np.ndarray
    along: np.ndarray
    residual: np.ndarray

    @classmethod
    def of(
        cls, pts: np.ndarray, nrm: np.ndarray, centre: np.ndarray, angle: float, offsets: np.ndarray
    ) -> _LineTerms:
        axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
        proj_n = nrm @ axes.T  # (N, 2): normal along each axis
        axis = np.argmax(np.abs(proj_n), axis=1)
        rows = np.arange(len(pts))
        rel = (pts - centre) @ axes.T
        across, along = rel[rows, axis], rel[rows, 1 - axis]
        dist = np.abs(across)
        k = np.argmin(np.abs(dist[:, None] - offsets[None, :]), axis=1)
        return cls(axis, np.abs(proj_n[rows, axis]), across, along, dist - offsets[k])


def _explained(edges: _Edges, centre: np.ndarray, angle: float, half_px: float) -> np.ndarray:
    """Boolean mask of the edge pixels on the lines of the napkin at ``centre``, ``angle``
    (canvas px), its paper's edge, stripe and folds: :data:`EXPLAINED_PX` from a line, normal
    within :data:`EXPLAINED_ANGLE_DEG`."""
    lines = np.array((0.0, *EDGE_OFFSETS)) * half_px  # with the fold lines through the centre
    # such a pixel lies within half_px along and half_px + EXPLAINED_PX across of the centre
    near = edges.near(centre, np.hypot(half_px, half_px + EXPLAINED_PX) + 1.0)
    terms = _LineTerms.of(edges.points[near], edges.normals[near], centre, angle, lines)
    mask = np.zeros(len(edges.points), bool)
    mask[near] = (
        (terms.alignment > np.cos(np.deg2rad(EXPLAINED_ANGLE_DEG)))
        & (np.abs(terms.residual) < EXPLAINED_PX)
        & (np.abs(terms.along) < half_px)
    )
    return mask


def _line_overrun(edges: _Edges, centre: np.ndarray, angle: float, half_px: float) -> float:
    """How far the napkin's lines at ``centre``, ``angle`` (canvas px) run on past its corners:
    the edge pixels on them half a side beyond the corners, per edge pixel on them within the
    napkin (along the side, within 0.85 of the half size; :func:`_fit_square`'s tolerance).
    A napkin's paper edge and stripe end at its corners; planks, cloth stripes and a table's
    edge run on."""
    near = edges.near(centre, half_px * 1.6)
    terms = _LineTerms.of(
        edges.points[near], edges.normals[near], centre, angle, np.array(EDGE_OFFSETS) * half_px
    )
    on_line = (terms.alignment > np.cos(np.deg2rad(12))) & (np.abs(terms.residual) < 1.5)
    along = np.abs(terms.along)
    inside = np.count_nonzero(on_line & (along < half_px * 0.85))
    beyond = np.count_nonzero(on_line & (along > half_px * 1.1) & (along < half_px * 1.5))
    return beyond / max(inside, 1)


def _fit_square(
    edges: _Edges, centre: np.ndarray, angle: float, half_px: float
) -> tuple[np.ndarray, float, np.ndarray] | None:
    """Refine a napkin's centre and angle from the edge pixels lying on its lines.

    Each nearby edge pixel whose normal is along one of the square's axes is assigned to the
    line (axis, offset) it is nearest to; the centre and angle then minimise the distances of
    all assigned pixels to their lines (Gauss-Newton, a few rounds with shrinking tolerance).
    Returns the centre (canvas px), the angle (rad) and the indices of the pixels used (into
    ``edges``), or None when too few lie on its lines.
    """
    near = edges.near(centre, half_px * 1.1)
    pts, nrm = edges.points[near], edges.normals[near]
    if len(pts) < 20:
        return None
    offsets = np.array(EDGE_OFFSETS) * half_px
    # the square's angle from the edge directions themselves (modulo 90 degrees)
    for _ in range(2):
        rel_d = np.linalg.norm(pts - centre, axis=1)
        theta = np.arctan2(nrm[:, 1], nrm[:, 0])
        diff = np.angle(np.exp(4j * (theta - angle))) / 4
        lines = (np.abs(diff) < np.deg2rad(8)) & (rel_d > offsets.min() * 0.8)
        if lines.sum() >= 20:
            angle = angle + float(np.angle(np.exp(4j * diff[lines]).mean()) / 4)
        centre = _centre_by_profiles(pts, nrm, centre, angle, offsets)
    used = near[:0]
    for tolerance in (2.0, 1.5, 1.5, 1.5):
        terms = _LineTerms.of(pts, nrm, centre, angle, offsets)
        use = (
            (terms.alignment > np.cos(np.deg2rad(12)))
            & (np.abs(terms.residual) < tolerance)
            & (np.abs(terms.along) < half_px * 0.85)
        )
        if use.sum() < 20:
            return None
        # linearised: d(dist)/d(centre) = -sign * axis_dir; d(dist)/d(angle) = sign * along-term
        axes = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
        axis = terms.axis[use]
        sign = np.sign(terms.across[use])
        a_dir = axes[axis]
        jac_angle = np.where(axis == 0, 1.0, -1.0) * terms.along[use]
        jac = np.column_stack([-sign * a_dir[:, 0], -sign * a_dir[:, 1], sign * jac_angle])
        step, *_ = np.linalg.lstsq(jac, -terms.residual[use], rcond=None)
        centre = centre + step[:2]
        angle = angle + step[2]
        used = near[use]
    return centre, float(angle), used


#: Border profiles sampled per side of a napkin, and their span along the side (share of the
#: half size, corners left out).
_PROFILES_PER_SIDE = 16
_PROFILE_SPAN = 0.8
#: Each profile runs along the outward normal over this range of the half size (the stripe and
#: the paper on both sides of it, inside the paper's edge).
_PROFILE_RANGE = (0.75, 0.99)
#: Outward normals of a napkin's sides (side-local), in the order of :func:`_profile_points`.
_SIDE_NORMALS = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
#: How far (mm) :func:`on_its_border` slides each side's border profiles either way, and how
#: many times it moves the napkin.
BORDER_REACH_MM = 7.0
BORDER_SETTLE_ROUNDS = 2
#: A profile agrees with the art when their normalised correlation is at least this.
_MIN_PROFILE_CORRELATION = 0.5


def border_agreement(view: CanvasView, library: ArtLibrary, side: Side, color: str, pose) -> float:
    """Share of a napkin's border profiles that look like its art (0..1).

    Across each side of the napkin, the ink channel of the photo (canvas px) is sampled along
    the outward normal, from inside the stripe to the paper's edge, and correlated with the same
    profile of the art in ``color``: a printed border repeats all around, while table texture
    (wood grain, cloth) only lines up with a few of them. A flat profile counts as disagreeing.
    """
    correlation = _border_correlations(view, library, side, color, pose)
    return float(np.mean(correlation >= _MIN_PROFILE_CORRELATION))


def face_by_border(
    view: CanvasView, library: ArtLibrary, color: str, pose: ItemPose
) -> tuple[Face, float]:
    """Whether the napkin at ``pose`` (table mm) shows its face or its back, by its printed
    border, and how sure that is: the share of its border profiles (:func:`border_agreement`)
    that correlate better with the art of the side chosen than with the other's, 0.5 to 1.

    The face's border is a broad stripe with two thin lines inside it, the back's one thin
    stripe; both repeat all around, so the profiles tell them apart wherever the napkin lies
    turned (its straight edges fix its angle only modulo 90 degrees, which can put the face's
    logo in the wrong corner) and however much of its plain paper shows. A profile is a vote
    for the side whose art it follows better; an even vote goes to the side followed better on
    average. The profiles are sampled where the plane puts the border: trying the sizes
    :func:`border_agreement` tries turned more napkins to the wrong side than to the right one
    on the validation photos (0134, 0166 against 0127).
    """
    by_face = {
        s.face: _border_correlations(view, library, s, color, pose, (0.0,))
        for s in library.sides
        if s.kind is ItemKind.NAPKIN
    }
    up, down = by_face[Face.UP], by_face[Face.DOWN]
    votes_up, votes_down = int(np.count_nonzero(up > down)), int(np.count_nonzero(down > up))
    if votes_up == votes_down:
        face = Face.UP if up.mean() >= down.mean() else Face.DOWN
    else:
        face = Face.UP if votes_up > votes_down else Face.DOWN
    return face, max(votes_up, votes_down) / len(up)


def _border_correlations(
    view: CanvasView,
    library: ArtLibrary,
    side: Side,
    color: str,
    pose: ItemPose,
    shifts: tuple[float, ...] = STRIPE_SHIFTS,
) -> np.ndarray:
    """Normalised correlation (-1..1) of each border profile of the photo with the art's (see
    :func:`border_agreement`); a flat profile gives 0. The napkin is looked at as large as the
    plane says it is and larger by each of ``shifts`` (a share of its size; by default
    :data:`STRIPE_SHIFTS`: the plane can be a few per cent off in scale where the napkin lies,
    which moves the printed stripe off the profiles' samples; validation 0144's napkins follow
    their art best at 0.97, 0014's at 0.96-1.02); the size whose profiles follow the art best
    on average is taken."""
    half = side.shape.size_mm / 2
    ppm = view.px_per_mm
    local = _profile_points(side, ppm)
    art = library.art_rgba(side, color, ppm)
    expected = _centred(_sample(ink_channel(art[:, :, :3]), (local + half) * ppm - 0.5))

    def at_size(shift: float) -> np.ndarray:
        table = pose.local_to_table(local.reshape(-1, 2) * (1.0 + shift))
        seen = _centred(_sample(view.ink, view.table_to_canvas(table).reshape(local.shape)))
        norm = np.linalg.norm(expected, axis=1) * np.linalg.norm(seen, axis=1)
        return (expected * seen).sum(axis=1) / np.maximum(norm, 1e-6)

    return max((at_size(shift) for shift in shifts), key=lambda c: float(c.mean()))


def on_its_border(
    view: CanvasView, library: ArtLibrary, side: Side, color: str, pose: ItemPose
) -> ItemPose:
    """The napkin at ``pose`` (table mm) moved so that its printed border lies where the art of
    ``side`` in ``color`` puts it, turned as it is: per side of the napkin, its border profiles
    are slid along their outward normal by up to :data:`BORDER_REACH_MM` either way, and the
    offset where they follow the art best on average is that side's; opposite sides move the
    centre by half their difference (:data:`BORDER_SETTLE_ROUNDS` rounds, each from the last).

    A napkin placed from its straight edges or features a few millimetres off (edges of a
    neighbour, a coarse plane off in scale) shows its border beside the profiles' samples, and
    is refused for it (held-out 0099: a blue napkin in full view 5 mm off, agreement 0.22;
    on its border 0.75). Table texture has no border to settle on (validation: refused
    candidates on wood and cloth stay at 0.09-0.23 once moved so)."""
    half = side.shape.size_mm / 2
    ppm = view.px_per_mm
    step_mm = 0.5 / ppm
    reach = round(BORDER_REACH_MM / step_mm)
    local = _profile_points(side, ppm)  # (4 * profiles, samples, 2), sides in turn
    samples = local.shape[1]
    normals = np.repeat(_SIDE_NORMALS, _PROFILES_PER_SIDE, axis=0)[:, None, :]
    # the profiles run on by the reach at both ends, along their normals
    runs_mm = np.arange(-reach, samples + reach) * step_mm
    wide = local[:, :1] + normals * runs_mm[None, :, None]
    art = library.art_rgba(side, color, ppm)
    expected = _centred(_sample(ink_channel(art[:, :, :3]), (local + half) * ppm - 0.5))
    expected_norm = np.linalg.norm(expected, axis=1)
    nearby = view.around(pose.center_mm, (half + BORDER_REACH_MM * BORDER_SETTLE_ROUNDS) * ppm + 4)
    for _ in range(BORDER_SETTLE_ROUNDS):
        table = pose.local_to_table(wide.reshape(-1, 2))
        seen = _sample(nearby.ink, nearby.table_to_canvas(table).reshape(wide.shape))
        mean_by_offset = np.empty((2 * reach + 1, 4))
        for k in range(2 * reach + 1):
            window = _centred(seen[:, k : k + samples])
            norm = expected_norm * np.linalg.norm(window, axis=1)
            correlation = (expected * window).sum(axis=1) / np.maximum(norm, 1e-6)
            mean_by_offset[k] = correlation.reshape(4, _PROFILES_PER_SIDE).mean(axis=1)
        offsets_mm = (np.argmax(mean_by_offset, axis=0) - reach) * step_mm  # +x, +y, -x, -y
        shift = np.array([offsets_mm[0] - offsets_mm[2], offsets_mm[1] - offsets_mm[3]]) / 2
        centre = pose.local_to_table(shift[None])[0]
        pose = ItemPose((float(centre[0]), float(centre[1])), pose.angle_rad)
    return pose


def _centred(profiles: np.ndarray) -> np.ndarray:
    """(profiles, samples) less each profile's mean."""
    return profiles - profiles.mean(axis=1, keepdims=True)


def _profile_points(side: Side, px_per_mm: float) -> np.ndarray:
    """(4 * profiles, samples, 2) side-local mm of the border profiles: per side of the napkin,
    :data:`_PROFILES_PER_SIDE` lines along its outward normal, sampled every half view px."""
    half = side.shape.size_mm / 2
    r = np.arange(_PROFILE_RANGE[0] * half, _PROFILE_RANGE[1] * half, 0.5 / px_per_mm)
    t = np.linspace(-_PROFILE_SPAN * half, _PROFILE_SPAN * half, _PROFILES_PER_SIDE)
    local = []
    for n in _SIDE_NORMALS:
        u = np.array([-n[1], n[0]])
        local.append(n * r[None, :, None] + u * t[:, None, None])
    return np.concatenate(local)


def _sample(image: np.ndarray, points_px: np.ndarray) -> np.ndarray:
    """Bilinear samples of a single-channel ``image`` at (..., 2) px positions, float32."""
    xy = points_px.astype(np.float32)
    return cv2.remap(
        image.astype(np.float32),
        xy[..., 0],
        xy[..., 1],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
