"""Seconds per synthetic photo (sample + render + labels + masks, and writing the files).

    python benchmarks/bench_synth.py [--n 6] [--sizes 1600x1200,4032x3024] [--seed 0]

Runs in one process on one core (OpenCV threads off) and reports CPU seconds (the process's
CPU time, which is what one dedicated core would take even on a busy machine) and wall
seconds. The first photo, which loads and pre-scales the catalogue art, is timed apart.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import cv2

from games.beer_pretzels.catalogue import Face, ItemKind, load_catalogue
from vision.synthetic.art import item_art
from vision.synthetic.generate import SynthOptions, make_sample, write_sample
from vision.synthetic.recipes import parse_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=6, help="timed photos per size")
    parser.add_argument("--sizes", default="1600x1200,4032x3024")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    catalogue = load_catalogue()
    start = time.process_time()
    for color in catalogue.color_names:  # load every art file once
        for coaster in catalogue.coaster_types:
            for face in (Face.UP, Face.DOWN):
                item_art(catalogue, ItemKind.COASTER, color, coaster.type, face)
                item_art(catalogue, ItemKind.NAPKIN, color, None, face)
    print(f"warm-up (loading and pre-scaling all art): {time.process_time() - start:.2f} s CPU")
    with tempfile.TemporaryDirectory() as out:
        for size_text in args.sizes.split(","):
            size = parse_size(size_text)
            options = SynthOptions(size_px=size)
            make_cpu, make_wall, write_cpu, items = [], [], [], []
            for i in range(args.n):
                c0, w0 = time.process_time(), time.perf_counter()
                sample = make_sample(args.seed, i, options, catalogue)
                c1, w1 = time.process_time(), time.perf_counter()
                write_sample(sample, out)
                make_cpu.append(c1 - c0)
                make_wall.append(w1 - w0)
                write_cpu.append(time.process_time() - c1)
                items.append(len(sample.labels["items"]))
            print(
                f"{size_text}: photo+labels+masks {statistics.median(make_cpu):.2f} s CPU/photo "
                f"median (min {min(make_cpu):.2f}, max {max(make_cpu):.2f}; wall median "
                f"{statistics.median(make_wall):.2f}); writing JPEG/PNG/JSON "
                f"{statistics.median(write_cpu):.2f} s CPU; "
                f"{statistics.fmean(items):.0f} items/photo; n={args.n}"
            )


if __name__ == "__main__":
    main()
