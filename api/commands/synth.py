"""``tablescore synth``: generate synthetic table photos with exact ground truth.

Examples::

    tablescore synth --n 200 --seed 7 --out var/synth --size 1600x1200 --difficulty hard
    tablescore synth --recipe val --out var/datasets/val --workers 2
    tablescore synth --recipe contact-sheet --contact-sheet docs/contact-sheet.png
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tqdm import tqdm

from vision.synthetic.contact_sheet import contact_sheet, save_contact_sheet
from vision.synthetic.generate import Sample, SynthOptions, make_sample, write_sample
from vision.synthetic.recipes import (
    RecipeError,
    load_recipe,
    parse_difficulty,
    parse_size,
    recipe_names,
)

#: Photos shown on a contact sheet (the first ones of the set).
CONTACT_SHEET_PHOTOS = 12


def register(subparsers: argparse._SubParsersAction) -> None:
    names = ", ".join(recipe_names()) or "none"
    parser = subparsers.add_parser(
        "synth",
        help="render synthetic Beer & Pretzels photos with ground-truth JSON and masks",
        description="Render synthetic phone photos of Beer & Pretzels rounds with exact ground "
        "truth (contract JSON, semantic and instance masks). Photo i of seed S is always the "
        f"same. Recipes: {names}.",
    )
    parser.add_argument("--recipe", help="named recipe in datasets/ (or a .toml path)")
    parser.add_argument("--n", type=int, help="number of photos (default: the recipe's)")
    parser.add_argument("--seed", type=int, help="set seed (default: the recipe's, else 0)")
    parser.add_argument("--start", type=int, default=0, help="first photo index (default 0)")
    parser.add_argument("--out", help="output folder (photos, JSON, masks)")
    parser.add_argument("--size", help="fixed displayed size WxH, e.g. 1600x1200")
    parser.add_argument(
        "--difficulty", choices=["easy", "medium", "hard", "mix"], help="default: mix"
    )
    parser.add_argument("--exif-share", type=float, help="share of EXIF-rotated photos")
    parser.add_argument(
        "--decision-margin",
        type=float,
        metavar="MM",
        help="every verdict stands at this margin (mm), as in the reference photos; 0 keeps "
        "close calls (default: the recipe's, else 0)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--contact-sheet",
        metavar="PATH",
        help=f"also write a contact sheet PNG of the first {CONTACT_SHEET_PHOTOS} photos",
    )
    parser.set_defaults(run=run)


def _options(args: argparse.Namespace) -> tuple[int, int, SynthOptions]:
    recipe = load_recipe(args.recipe) if args.recipe else None
    base = recipe.options if recipe else SynthOptions()
    size = parse_size(args.size) if args.size else base.size_px
    difficulty = parse_difficulty(args.difficulty) if args.difficulty else base.difficulty
    exif = args.exif_share if args.exif_share is not None else base.exif_share
    margin = args.decision_margin if args.decision_margin is not None else base.decision_margin_mm
    seed = args.seed if args.seed is not None else (recipe.seed if recipe else 0)
    n = args.n if args.n is not None else (recipe.n if recipe else None)
    if n is None or n <= 0:
        raise ValueError("give --n (a positive number of photos) or a --recipe")
    if seed < 0 or args.start < 0:
        raise ValueError("--seed and --start must be >= 0")
    options = SynthOptions(
        size_px=size, difficulty=difficulty, exif_share=exif, decision_margin_mm=margin
    )
    return seed, n, options


#: One photo to make: (set seed, index, options, output folder or None, keep it in memory).
Job = tuple[int, int, SynthOptions, str | None, bool]


def _make_and_write(job: Job) -> Sample | None:
    """Make one photo, write it when an output folder is given; return it when ``keep``."""
    seed, index, options, out, keep = job
    sample = make_sample(seed, index, options)
    if out is not None:
        write_sample(sample, out)
    return sample if keep else None


def run(args: argparse.Namespace) -> int:
    try:
        seed, n, options = _options(args)
    except (RecipeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out is None and args.contact_sheet is None:
        print("error: give --out DIR and/or --contact-sheet PATH", file=sys.stderr)
        return 2
    if args.workers < 1:
        print("error: --workers must be >= 1", file=sys.stderr)
        return 2
    sheet = args.contact_sheet is not None
    jobs = [
        (seed, i, options, args.out, sheet and k < CONTACT_SHEET_PHOTOS)
        for k, i in enumerate(range(args.start, args.start + n))
    ]
    try:
        samples = _generate(jobs, args.workers)
        if args.out is not None:
            print(f"wrote {n} photos with labels and masks to {Path(args.out)}")
        if sheet:
            path = save_contact_sheet(contact_sheet(samples), args.contact_sheet)
            print(f"wrote contact sheet {path} ({path.stat().st_size / 1e6:.2f} MB)")
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _generate(jobs: list[Job], workers: int) -> list[Sample]:
    """Run the jobs (in ``workers`` processes) with a progress bar; the kept samples."""
    samples: list[Sample] = []
    with tqdm(total=len(jobs), unit="photo", desc="synth") as progress:
        if workers == 1:
            for sample in map(_make_and_write, jobs):
                samples.extend([sample] if sample is not None else [])
                progress.update()
        else:
            with ProcessPoolExecutor(workers) as pool:
                for sample in pool.map(_make_and_write, jobs, chunksize=2):
                    samples.extend([sample] if sample is not None else [])
                    progress.update()
    return samples
