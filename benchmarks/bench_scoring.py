"""Time score_scene on a 30-item Beer & Pretzels scene (table-plane geometry, no photo).

The scene is a crowded, seeded random round: 5 colours x (5 coasters + napkin) tossed around a
loop of string 2 m long, many of them overlapping, some outside, two face down. Every item takes
part (the 5-player rule is switched off so that all 30 are scored).

    python benchmarks/bench_scoring.py [--repeat 300] [--seed 7]

Prints the median and 95th percentile wall time per scene (ms), and the median CPU time (which
other processes on a busy machine do not inflate).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from games.beer_pretzels.catalogue import load_catalogue
from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import score_scene

COLORS = ("red", "yellow", "green", "blue", "gray")
TYPES = ("beer", "triple", "double", "three", "soft")


def crowded_scene(seed: int) -> Scene:
    """30 items around a circular loop of 2 m (radius ~318 mm), tossed in turn order."""
    rng = random.Random(seed)
    radius = 2000.0 / (2 * math.pi)
    loop = tuple(
        (radius * math.cos(2 * math.pi * k / 240), radius * math.sin(2 * math.pi * k / 240))
        for k in range(240)
    )
    tosses = [(c, t) for t in TYPES for c in COLORS] + [(c, None) for c in COLORS]
    items = []
    for z, (color, type_name) in enumerate(tosses):
        r = abs(rng.gauss(0.0, radius * 0.7))
        a = rng.uniform(0, 2 * math.pi)
        face = "down" if z in (3, 17) else "up"
        items.append(
            PlacedItem(
                kind="napkin" if type_name is None else "coaster",
                color=color,
                type=type_name,
                face=face,
                center_mm=(r * math.cos(a), r * math.sin(a)),
                angle_deg=rng.uniform(0, 360),
                z=z,
            )
        )
    return Scene(boundary_mm=loop, items=tuple(items))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=300, help="timed runs (default 300)")
    parser.add_argument("--seed", type=int, default=7, help="scene seed (default 7)")
    args = parser.parse_args()

    catalogue = load_catalogue()
    scene = crowded_scene(args.seed)
    result = score_scene(scene, catalogue, removed_types=())  # warm-up (catalogue tables)
    times_ms, cpu_ms = [], []
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        score_scene(scene, catalogue, removed_types=())
        times_ms.append((time.perf_counter() - start) * 1000)
        cpu_ms.append((time.process_time() - start_cpu) * 1000)
    times_ms.sort()
    counted = sum(r.counted for r in result.items)
    covered = sum(not i.visible for r in result.items for i in r.icons)
    print(
        f"scene: {len(scene.items)} items ({counted} counted, {covered} icons hidden), "
        f"scores {result.scores}"
    )
    print(
        f"score_scene: median {statistics.median(times_ms):.2f} ms, "
        f"p95 {times_ms[int(0.95 * (len(times_ms) - 1))]:.2f} ms over {args.repeat} runs "
        f"(CPU time median {statistics.median(cpu_ms):.2f} ms)"
    )


if __name__ == "__main__":
    main()
