"""``tablescore score [--json] [--annotate DIR] [--components PATH] PHOTO...``: score photos.

With ``--json`` every photo gives one line of JSON (JSON Lines): the contract of
``spec/beer-and-pretzels.md``, or ``{"image": ..., "error": {"code": ..., "message": ...}}``
for a photo that cannot be scored. Without it, a readable table per photo. ``--annotate DIR``
writes ``DIR/<photo stem>.annotated.jpg`` for every scored photo. Exit code 0 when every photo
was scored, 1 when any failed, 2 for a bad catalogue.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from games.beer_pretzels.catalogue import CatalogueError, load_catalogue
from vision.errors import PhotoError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score", help="score Beer & Pretzels photos (money per player, items, boundary)"
    )
    parser.add_argument("photos", nargs="+", metavar="PHOTO", help="photo files to score")
    parser.add_argument("--json", action="store_true", help="print JSON Lines (the contract)")
    parser.add_argument("--annotate", metavar="DIR", help="write annotated JPEGs into DIR")
    parser.add_argument(
        "--components", metavar="PATH", help="component catalogue folder (default: bundled)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from vision.pipeline import score_photo

    try:
        catalogue = load_catalogue(args.components)
    except CatalogueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    annotate_dir = Path(args.annotate) if args.annotate else None
    if annotate_dir is not None:
        annotate_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    for path in args.photos:
        try:
            scored = score_photo(path, name=path, catalogue=catalogue)
        except PhotoError as exc:
            failed += 1
            _report_error(path, exc.code, exc.message, args.json, sys.stdout)
            continue
        except OSError as exc:
            failed += 1
            _report_error(
                path, "unreadable_image", f"cannot read {path}: {exc}", args.json, sys.stdout
            )
            continue
        if annotate_dir is not None:
            target = annotate_dir / f"{Path(path).stem}.annotated.jpg"
            target.write_bytes(scored.annotated_jpeg())
        if args.json:
            print(json.dumps(scored.contract, separators=(",", ":")), flush=True)
        else:
            print(format_table(scored.contract), flush=True)
    return 1 if failed else 0


def _report_error(path: str, code: str, message: str, as_json: bool, out: TextIO) -> None:
    if as_json:
        print(json.dumps({"image": path, "error": {"code": code, "message": message}}), file=out)
    else:
        print(f"{path}: error {code}: {message}\n", file=out)
    out.flush()


def format_table(contract: dict[str, Any]) -> str:
    """A readable summary of one photo's contract: money per player, items, warnings."""
    lines = [f"{contract['image']}"]
    players = contract.get("players", {})
    if players:
        lines.append(f"  {'player':<8} {'money':>5}  {'pretzels':<16} {'beer':<5} coins ($5/$1)")
        for color, p in players.items():
            pretzels = "+".join(str(v) for v in p["pretzels"]) or "-"
            coins = f"{p['coins'].get('5', 0)}/{p['coins'].get('1', 0)}"
            beer = "x2" if p["beer_visible"] and p["money"] else "-"
            lines.append(f"  {color:<8} {p['money']:>5}  {pretzels:<16} {beer:<5} {coins}")
    else:
        lines.append("  no players found")
    items = contract.get("items", [])
    counted = sum(1 for it in items if it["counted"])
    lines.append(f"  items: {len(items)} found, {counted} counted")
    for warning in contract.get("warnings", []):
        lines.append(f"  warning: {warning}")
    total = contract.get("timing_ms", {}).get("total")
    if total is not None:
        lines.append(f"  time: {total / 1000:.2f} s")
    return "\n".join(lines) + "\n"
