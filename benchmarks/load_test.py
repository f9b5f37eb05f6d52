"""Load test of the HTTP service on loopback: N concurrent clients for a fixed time.

Starts ``tablescore serve`` on a free loopback port with a fresh data folder (or uses --url),
then runs ``--clients`` threads for ``--duration`` seconds. Each client loops: upload a photo to
``POST /v1/beer-pretzels/score``, fetch its annotated JPEG, read a game's scoreboard. It is
bounded: no new request starts after the duration, and each request has a timeout.

    python benchmarks/load_test.py [--clients 8] [--duration 60] [--photos DIR] [--url URL]

Prints requests and errors per kind, latency percentiles (ms), scorings per second, and the
server's resident memory (RSS, its process tree) sampled every second. Exit code 1 on any error.
"""

from __future__ import annotations

import argparse
import itertools
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PHOTOS = REPO_ROOT.parent / "shared" / "devset"
DEFAULT_STEMS = ("0003", "0009", "0013", "0021", "0014", "0024")
PLAYERS = [{"name": "A", "color": "gray"}, {"name": "B", "color": "red"}]


@dataclass
class Tally:
    """Latencies (ms) and failures per request kind, shared by the client threads."""

    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, started: float, error: str | None) -> None:
        elapsed_ms = (time.perf_counter() - started) * 1000
        with self.lock:
            self.latencies_ms[kind].append(elapsed_ms)
            if error is not None:
                self.errors[f"{kind}: {error}"] += 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLESCORE_")}
    env["TABLESCORE_DATA_DIR"] = str(data_dir)
    log = (data_dir / "server.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--workers", str(workers)],
        cwd=REPO_ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"server exited early; see {data_dir / 'server.log'}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    sys.exit("server did not start within 60 s")


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` and its children (uvicorn workers)."""
    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            continue
    return total


def client_loop(
    url: str,
    photos: list[tuple[str, bytes]],
    game_id: str,
    stop_at: float,
    offset: int,
    tally: Tally,
    timeout_s: float,
) -> None:
    cycle = itertools.islice(itertools.cycle(photos), offset, None)
    with httpx.Client(base_url=url, timeout=timeout_s) as http:
        for name, data in cycle:
            if time.monotonic() >= stop_at:
                return
            started = time.perf_counter()
            annotated = None
            try:
                response = http.post("/v1/beer-pretzels/score", files={"photo": (name, data)})
                error = None if response.status_code == 200 else str(response.status_code)
                if error is None:
                    annotated = response.json()["annotated_image_url"]
            except httpx.HTTPError as exc:
                error = type(exc).__name__
            tally.record("score", started, error)
            for kind, path in (
                ("annotated", annotated),
                ("scoreboard", f"/v1/beer-pretzels/games/{game_id}"),
            ):
                if path is None:
                    continue
                started = time.perf_counter()
                try:
                    status = http.get(path).status_code
                    error = None if status == 200 else str(status)
                except httpx.HTTPError as exc:
                    error = type(exc).__name__
                tally.record(kind, started, error)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds")
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS, help="folder of photos")
    parser.add_argument("--stems", default=",".join(DEFAULT_STEMS), help="photo names, no .jpg")
    parser.add_argument("--url", help="an already running service (default: start one)")
    parser.add_argument("--workers", type=int, default=1, help="server workers when started here")
    parser.add_argument("--timeout", type=float, default=180.0, help="per-request timeout (s)")
    args = parser.parse_args()

    photos = [(f"{s}.jpg", (args.photos / f"{s}.jpg").read_bytes()) for s in args.stems.split(",")]
    scratch = tempfile.TemporaryDirectory(prefix="tablescore-load-")
    process = None
    url = args.url
    if url is None:
        process, url = start_server(Path(scratch.name), args.workers)
    try:
        with httpx.Client(base_url=url, timeout=args.timeout) as http:
            game_id = http.post("/v1/beer-pretzels/games", json={"players": PLAYERS}).json()[
                "game_id"
            ]
            warm = http.post("/v1/beer-pretzels/score", files={"photo": photos[0]})
            print(f"warm-up scoring: HTTP {warm.status_code}")

        rss_samples: list[tuple[float, int]] = []
        tally = Tally()
        began = time.monotonic()
        stop_at = began + args.duration
        threads = [
            threading.Thread(
                target=client_loop,
                args=(url, photos, game_id, stop_at, i, tally, args.timeout),
                daemon=True,
            )
            for i in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            if process is not None:
                rss_samples.append((time.monotonic() - began, rss_bytes(process.pid)))
            time.sleep(1.0)
        wall_s = time.monotonic() - began
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=60)
        scratch.cleanup()

    print(f"\n{args.clients} clients, {args.duration:.0f} s (all finished after {wall_s:.1f} s)")
    print(
        f"{'kind':<11} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p90 ms':>8} "
        f"{'p99 ms':>8} {'max ms':>8}"
    )
    for kind, values in tally.latencies_ms.items():
        errors = sum(n for key, n in tally.errors.items() if key.startswith(kind + ":"))
        print(
            f"{kind:<11} {len(values):>8} {errors:>6} {percentile(values, 50):>8.0f} "
            f"{percentile(values, 90):>8.0f} {percentile(values, 99):>8.0f} {max(values):>8.0f}"
        )
    scorings = len(tally.latencies_ms.get("score", []))
    print(f"scorings per second: {scorings / wall_s:.2f}")
    for key, count in sorted(tally.errors.items()):
        print(f"error {key}: {count}")
    if rss_samples:
        mib = [rss / 2**20 for _, rss in rss_samples]
        quarter = max(1, len(mib) // 4)
        print(
            f"server RSS MiB: start {mib[0]:.0f}, max {max(mib):.0f}, end {mib[-1]:.0f}; "
            f"mean first quarter {statistics.mean(mib[:quarter]):.0f}, "
            f"last quarter {statistics.mean(mib[-quarter:]):.0f}"
        )
        step = max(1, len(rss_samples) // 12)
        series = ", ".join(f"{t:.0f}s:{rss / 2**20:.0f}" for t, rss in rss_samples[::step])
        print(f"server RSS over time (MiB): {series}")
    return 1 if tally.errors else 0


if __name__ == "__main__":
    sys.exit(main())
