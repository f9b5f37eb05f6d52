"""Small builders for Beer & Pretzels scenes in table mm (shared by the scoring tests)."""

import math

from games.beer_pretzels.scene import PlacedItem, Scene

#: A square boundary loop, centre line from -300 to 300 mm: the region (loop + 3 mm of cord)
#: ends at |x| = 303 or |y| = 303 along the straight sides.
SQUARE_LOOP = ((-300.0, -300.0), (300.0, -300.0), (300.0, 300.0), (-300.0, 300.0))
#: Where the cord's outer edge lies on the straight sides of SQUARE_LOOP (mm).
CORD_EDGE = 303.0
COASTER_RADIUS = 42.5
NAPKIN_HALF = 65.0


def circle_loop(radius: float, n: int = 360, center=(0.0, 0.0)) -> tuple:
    return tuple(
        (
            center[0] + radius * math.cos(2 * math.pi * k / n),
            center[1] + radius * math.sin(2 * math.pi * k / n),
        )
        for k in range(n)
    )


def coaster(color, type_, x, y, z, angle=0.0, face="up"):
    return PlacedItem("coaster", color, type_, face, (float(x), float(y)), float(angle), z)


def napkin(color, x, y, z, angle=0.0, face="up"):
    return PlacedItem("napkin", color, None, face, (float(x), float(y)), float(angle), z)


def scene(*items, boundary=SQUARE_LOOP, foreign=()):
    return Scene(boundary_mm=tuple(boundary), items=tuple(items), foreign_mm=tuple(foreign))
