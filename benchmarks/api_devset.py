"""Score every devset photo through the HTTP API and compare with the library and the truth.

Starts ``tablescore serve`` on a free loopback port (fresh data folder), uploads each photo of
the devset to ``POST /v1/beer-pretzels/score``, scores the same file with
:func:`vision.pipeline.score_photo` in this process (what the CLI runs), and compares both with
the ground-truth JSON beside the photo.

    python benchmarks/api_devset.py [--devset DIR] [--no-library] [--only 0003,0013]

Prints one line per photo and the counts of exact matches (money of every colour).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import httpx
from load_test import DEFAULT_PHOTOS, start_server

from vision.pipeline import score_photo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devset", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--no-library", action="store_true", help="skip the in-process scoring")
    parser.add_argument("--only", help="comma-separated photo names without .jpg (default: all)")
    args = parser.parse_args()

    photos = sorted(args.devset.glob("*.jpg"))
    if args.only:
        wanted = set(args.only.split(","))
        photos = [p for p in photos if p.stem in wanted]
    api_right = library_right = same = errors = 0
    api_seconds: list[float] = []
    with tempfile.TemporaryDirectory(prefix="tablescore-devset-") as scratch:
        process, url = start_server(Path(scratch), workers=1)
        try:
            with httpx.Client(base_url=url, timeout=300) as http:
                for path in photos:
                    truth = json.loads(path.with_suffix(".json").read_text())["scores"]
                    started = time.perf_counter()
                    response = http.post(
                        "/v1/beer-pretzels/score", files={"photo": (path.name, path.read_bytes())}
                    )
                    api_seconds.append(time.perf_counter() - started)
                    if response.status_code != 200:
                        errors += 1
                        print(f"{path.name}: HTTP {response.status_code} {response.text[:200]}")
                        continue
                    api_scores = response.json()["scores"]
                    api_right += api_scores == truth
                    line = f"{path.name}: api {'ok ' if api_scores == truth else 'BAD'}"
                    if not args.no_library:
                        library_scores = score_photo(path, name=path.name).contract["scores"]
                        library_right += library_scores == truth
                        same += library_scores == api_scores
                        line += f"  library {'ok ' if library_scores == truth else 'BAD'}"
                        line += f"  api==library {library_scores == api_scores}"
                    print(f"{line}  ({api_seconds[-1]:.1f} s)  api {api_scores} truth {truth}")
        finally:
            process.terminate()
            process.wait(timeout=60)
    n = len(photos)
    print(f"\nphotos: {n}, HTTP errors: {errors}")
    print(f"API matches the truth: {api_right}/{n}")
    if not args.no_library:
        print(f"library matches the truth: {library_right}/{n}; API == library: {same}/{n}")
    if api_seconds:
        print(f"API seconds per photo: mean {sum(api_seconds) / len(api_seconds):.2f}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
