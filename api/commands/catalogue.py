"""``tablescore catalogue [PATH]``: check a component catalogue and summarise it."""

from __future__ import annotations

import argparse
import sys

from games.beer_pretzels.catalogue import CatalogueError, load_catalogue


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "catalogue", help="check a component catalogue (default: the bundled set) and list it"
    )
    parser.add_argument("path", nargs="?", help="folder holding components.json")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        catalogue = load_catalogue(args.path)
    except CatalogueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"catalogue {catalogue.name!r} v{catalogue.version} at {catalogue.root}")
    print("colours: " + ", ".join(catalogue.color_names))
    for coaster in catalogue.coaster_types:
        icons = ", ".join(
            f"{i.id}:{i.kind.value}" + (f" ${i.value}" if i.value else "") for i in coaster.icons
        )
        print(f"  {coaster.type:<7} {coaster.shape.kind:<15} {icons}")
    missing = [
        str(catalogue.art_path("coaster", c, t.type, side))
        for c in catalogue.color_names
        for t in catalogue.coaster_types
        for side in ("up", "down")
        if not catalogue.art_path("coaster", c, t.type, side).is_file()
    ]
    if missing:
        print(f"error: {len(missing)} art files missing, e.g. {missing[0]}", file=sys.stderr)
        return 2
    return 0
