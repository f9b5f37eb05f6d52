"""Segmenter inference time on one onnxruntime thread.

Times :meth:`vision.segmentation.Segmenter.segment` on a 512x384 image (the model's own
resolution: colour conversion + network) and on a 2016x1512 working image (the pipeline's
default working size: adds the area reduction), each ``--repeat`` times after a warm-up; prints
median and best wall and CPU milliseconds.

Usage: python benchmarks/bench_segmenter.py [--repeat 20] [--threads 1]

Wall time suffers when the machine is shared; CPU time (this process only) much less so.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.segmentation import Segmenter


def _time(call, repeat: int) -> tuple[list[float], list[float]]:
    call()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
    return walls, cpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    model = Segmenter(threads=args.threads)
    rng = np.random.default_rng(0)
    working = rng.integers(0, 256, (1512, 2016, 3), dtype=np.uint8)
    small = rng.integers(0, 256, (384, 512, 3), dtype=np.uint8)
    cases = {
        "segment(512x384 image)": lambda: model.segment(small),
        "segment(2016x1512 working image)": lambda: model.segment(working),
    }
    print(f"onnxruntime threads: {args.threads}, repeats: {args.repeat}")
    for name, call in cases.items():
        walls, cpus = _time(call, args.repeat)
        print(
            f"{name:36s} wall median {statistics.median(walls):7.1f} ms  best {min(walls):7.1f}"
            f"  | cpu median {statistics.median(cpus):7.1f} ms  best {min(cpus):7.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
