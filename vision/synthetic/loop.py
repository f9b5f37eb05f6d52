"""The boundary string laid loosely on the table: a smooth random closed curve of exact length.

All coordinates are in the table plane, millimetres, x right, y DOWN (see
:mod:`games.beer_pretzels.scene`).
"""

from __future__ import annotations

import numpy as np

#: Number of points of the sampled centre line (first point not repeated).
LOOP_POINTS = 480


def polyline_length_mm(points_mm: np.ndarray) -> float:
    """Perimeter of the closed polyline ``points_mm`` ((N, 2) mm, first point not repeated)."""
    closed = np.vstack([points_mm, points_mm[:1]])
    return float(np.linalg.norm(np.diff(closed, axis=0), axis=1).sum())


def resample_closed(points_mm: np.ndarray, n: int) -> np.ndarray:
    """Resample a closed polyline to ``n`` points equally spaced by arc length ((n, 2) mm)."""
    closed = np.vstack([points_mm, points_mm[:1]])
    seg = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    targets = np.linspace(0.0, s[-1], n, endpoint=False)
    x = np.interp(targets, s, closed[:, 0])
    y = np.interp(targets, s, closed[:, 1])
    return np.stack([x, y], axis=1)


def sample_loop(
    rng: np.random.Generator,
    length_mm: float,
    center_mm: tuple[float, float],
    looseness: float = 1.0,
    n: int = LOOP_POINTS,
) -> np.ndarray:
    """A closed string loop of perimeter exactly ``length_mm`` around ``center_mm``.

    The loop is a star-shaped curve ``r(t) = r0 * exp(sum_k a_k cos(k t + phi_k))`` (so it
    never crosses itself), elongated and dented by low harmonics and wiggled a little by higher
    ones; ``looseness`` (0 = circle, 1 = typical, 2 = very irregular) scales the harmonics.
    Returns ``(n, 2)`` mm points equally spaced along the string.
    """
    if length_mm <= 0:
        raise ValueError(f"loop length must be positive, got {length_mm}")
    t = np.linspace(0.0, 2.0 * np.pi, 4 * n, endpoint=False)
    log_r = np.zeros_like(t)
    for k, amp in ((2, 0.22), (3, 0.10), (4, 0.06), (5, 0.04), (7, 0.02), (9, 0.012)):
        a = rng.normal(0.0, amp * looseness)
        log_r += a * np.cos(k * t + rng.uniform(0, 2 * np.pi))
    log_r = np.clip(log_r, -0.9, 0.9)
    r = np.exp(log_r)
    dense = np.stack([r * np.cos(t), r * np.sin(t)], axis=1)
    points = resample_closed(dense, n)
    points *= length_mm / polyline_length_mm(points)
    return points + np.asarray(center_mm, dtype=np.float64)
