"""The ``tablescore`` command line: one sub-command per module of :mod:`api.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Modules of :mod:`api.commands`, in the order their sub-commands appear in ``--help``.
COMMAND_MODULES: tuple[str, ...] = ("catalogue", "serve", "batch", "synth", "evaluate", "score")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablescore",
        description="Score table games from phone photos (Beer & Pretzels) and run rule engines.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"api.commands.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code."""
    args = build_parser().parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
