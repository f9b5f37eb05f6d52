"""Benchmark find_boundary on the dev set: detection, region IoU, centre-line error, time.

For each photo: load it with load_photo (working resolution), build the item mask from the
ground-truth item outlines (scaled to working px), run find_boundary on one OpenCV thread and
compare with the ground-truth string centre line (``boundary_px``, displayed px, converted to
working px with LoadedPhoto.to_working_px). Distances are from ground-truth centre-line points
that are not under an item to the found polyline, in working px.

Usage: python benchmarks/bench_boundary.py [DEVSET_DIR] [--repeat N]
       [--mask truth|none|grow|shrink|missed]

Wall time suffers when the machine is shared; CPU time (this process only) much less so.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import cv2
import numpy as np
import shapely

from vision.boundary import find_boundary
from vision.load import load_photo


def _densify_closed(polygon: np.ndarray, step: float = 1.0) -> np.ndarray:
    closed = np.vstack([polygon, polygon[:1]])
    pieces = []
    for start, stop in itertools.pairwise(closed):
        count = max(1, int(np.ceil(np.linalg.norm(stop - start) / step)))
        t = np.arange(count)[:, None] / count
        pieces.append(start + t * (stop - start))
    return np.concatenate(pieces)


def _region(polygon: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return mask.astype(bool)


def evaluate(photo_path: Path, repeat: int, mask_mode: str = "truth") -> dict:
    truth = json.loads(photo_path.with_suffix(".json").read_text())
    photo = load_photo(photo_path)
    image = photo.image_bgr
    height, width = image.shape[:2]
    outlines = [photo.to_working_px(np.asarray(item["polygon_px"])) for item in truth["items"]]
    item_mask = _filled(outlines, (height, width))
    truth_polygon = photo.to_working_px(np.asarray(truth["boundary_px"], dtype=np.float64))
    if mask_mode == "missed":
        search_mask = _filled(_without_most_hiding(outlines, truth_polygon), (height, width))
    else:
        search_mask = _perturbed(item_mask, mask_mode)

    times_ms, cpu_ms = [], []
    boundary = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        boundary = find_boundary(image, item_mask=search_mask)
        times_ms.append((time.perf_counter() - start) * 1000.0)
        cpu_ms.append((time.process_time() - start_cpu) * 1000.0)
    result = {
        "photo": photo_path.name,
        "size": f"{width}x{height}",
        "ms": min(times_ms),
        "cpu_ms": min(cpu_ms),
        "found": boundary is not None,
    }
    if boundary is None:
        return result
    truth_region = _region(truth_polygon, (height, width))
    found_region = _region(boundary.polygon_px, (height, width))
    union = np.count_nonzero(truth_region | found_region)
    result["iou"] = np.count_nonzero(truth_region & found_region) / max(union, 1)

    truth_points = _densify_closed(truth_polygon)
    xs = np.round(truth_points[:, 0]).astype(int)
    ys = np.round(truth_points[:, 1]).astype(int)
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    visible = inside.copy()
    visible[inside] = ~item_mask[ys[inside], xs[inside]]
    ring = shapely.LinearRing(boundary.polygon_px)
    distances = shapely.distance(shapely.points(truth_points[visible]), ring)
    result["mean_px"] = float(np.mean(distances))
    result["p95_px"] = float(np.percentile(distances, 95))
    result["confidence"] = boundary.confidence
    return result


def _filled(outlines: list[np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    """(H, W) bool: the item outlines (working px) filled."""
    mask = np.zeros(shape, np.uint8)
    for outline in outlines:
        cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return mask.astype(bool)


def _without_most_hiding(outlines: list[np.ndarray], loop: np.ndarray) -> list[np.ndarray]:
    """The outlines less the one over the longest stretch of the loop (a missed detection)."""
    ring = shapely.LinearRing(loop)
    hidden = [ring.intersection(shapely.Polygon(o).buffer(0)).length for o in outlines]
    missed = int(np.argmax(hidden))
    return [outline for index, outline in enumerate(outlines) if index != missed]


def _perturbed(item_mask: np.ndarray, mode: str) -> np.ndarray | None:
    """The mask find_boundary gets: the truth, none, or the truth grown/shrunk by 3 px (an
    imperfect item detector)."""
    if mode == "truth":
        return item_mask
    if mode == "none":
        return None
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    morph = cv2.dilate if mode == "grow" else cv2.erode
    return morph(item_mask.astype(np.uint8), kernel) > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("devset", nargs="?", default="/work/shared/devset", type=Path)
    parser.add_argument("--repeat", type=int, default=3, help="timing runs per photo (min kept)")
    parser.add_argument(
        "--mask",
        choices=("truth", "none", "grow", "shrink", "missed"),
        default="truth",
        help="item mask given to find_boundary: the truth, none, grown/shrunk by 3 px, or "
        "without the item over the longest stretch of string (distances always skip the true "
        "items)",
    )
    args = parser.parse_args()
    cv2.setNumThreads(1)
    photos = sorted(args.devset.glob("*.jpg"))
    rows = [evaluate(path, args.repeat, args.mask) for path in photos]
    header = ("photo", "size", "found", "IoU", "mean", "p95", "conf", "ms", "cpu ms")
    print(f"{header[0]:10} " + " ".join(f"{name:>6}" for name in header[1:]))
    for row in rows:
        if row["found"]:
            values = (row["iou"], row["mean_px"], row["p95_px"], row["confidence"])
            values += (row["ms"], row["cpu_ms"])
            numbers = " ".join(f"{value:6.2f}" for value in values)
            print(f"{row['photo']:10} {row['size']:>10} {'yes':>6} {numbers}")
        else:
            times = f"{row['ms']:6.1f} {row['cpu_ms']:6.1f}"
            print(f"{row['photo']:10} {row['size']:>10} {'NO':>6} {'':>27} {times}")
    found = [row for row in rows if row["found"]]
    print(f"found: {len(found)}/{len(rows)}")
    if found:
        ious = np.array([row["iou"] for row in found])
        means = np.array([row["mean_px"] for row in found])
        p95s = np.array([row["p95_px"] for row in found])
        print(
            f"IoU median {np.median(ious):.3f} min {ious.min():.3f}; photos with IoU >= 0.98: "
            f"{np.count_nonzero(ious >= 0.98)}/{len(rows)}"
        )
        print(
            f"centre-line distance (working px): mean of means {means.mean():.2f}, "
            f"median p95 {np.median(p95s):.2f}, worst p95 {p95s.max():.2f}"
        )
    for key, label in (("ms", "wall"), ("cpu_ms", "CPU")):
        times = np.array([row[key] for row in rows])
        print(
            f"{label} time (ms, one OpenCV thread, best of {args.repeat}): "
            f"median {np.median(times):.1f}, 90th pct {np.percentile(times, 90):.1f}, "
            f"max {times.max():.1f}"
        )


if __name__ == "__main__":
    main()
