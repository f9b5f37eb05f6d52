"""The Nachbarn board: 37 cells forming a hexagon of radius 3 on a hex grid.

Cells are addressed by an index 0..36. Index order is row by row (axial ``r`` from -3 to 3),
left to right within a row (axial ``q`` ascending); :data:`CELLS` gives each index's axial
coordinates ``(q, r)``. Two cells are neighbours when their axial coordinates differ by one of
the six hex directions; the centre cell (index 18, ``(0, 0)``) has six neighbours, a corner
cell three.
"""

from __future__ import annotations

RADIUS = 3

_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

CELLS: tuple[tuple[int, int], ...] = tuple(
    (q, r)
    for r in range(-RADIUS, RADIUS + 1)
    for q in range(-RADIUS, RADIUS + 1)
    if max(abs(q), abs(r), abs(q + r)) <= RADIUS
)
"""Axial coordinates ``(q, r)`` of each cell index."""

CELL_COUNT = len(CELLS)

_INDEX = {cell: i for i, cell in enumerate(CELLS)}

NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_INDEX[(q + dq, r + dr)] for dq, dr in _DIRECTIONS if (q + dq, r + dr) in _INDEX)
    for q, r in CELLS
)
"""For each cell index, the indices of its (3 to 6) neighbouring cells."""

ROW_LENGTHS: tuple[int, ...] = tuple(
    sum(1 for _, r in CELLS if r == row) for row in range(-RADIUS, RADIUS + 1)
)
"""Cells per row, top to bottom (4, 5, 6, 7, 6, 5, 4)."""
