"""Named dataset recipes: small TOML files in the repository's ``datasets/`` folder.

A recipe fixes everything needed to regenerate a set exactly::

    name = "val"
    description = "..."
    seed = 2_000_000        # set seed: photo i uses SeedSequence((seed, i))
    n = 500                 # number of photos
    difficulty = "mix"      # easy | medium | hard | mix
    size = "1600x1200"      # optional: fixed displayed size; omitted = phone size mix
    exif_share = 0.15       # optional: share of photos stored rotated with an EXIF tag
    decision_margin_mm = 1  # optional: verdicts clear of this margin (mm), as the reference photos
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from vision.synthetic.generate import SynthOptions
from vision.synthetic.scene_sampler import Difficulty

#: Where named recipes live: ``datasets/`` at the repository root.
RECIPES_DIR = Path(__file__).resolve().parents[2] / "datasets"


class RecipeError(ValueError):
    """A recipe is missing or malformed."""


@dataclass(frozen=True)
class Recipe:
    name: str
    description: str
    seed: int
    n: int
    options: SynthOptions


def parse_size(text: str) -> tuple[int, int]:
    """``"WxH"`` -> ``(W, H)`` pixels; raises ValueError with a clear message otherwise."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"size must look like 1600x1200, got {text!r}")
    w, h = int(parts[0]), int(parts[1])
    if not (64 <= w <= 12000 and 64 <= h <= 12000):
        raise ValueError(f"size must be 64..12000 px per side, got {text!r}")
    return (w, h)


def parse_difficulty(text: str) -> Difficulty | None:
    """``easy``/``medium``/``hard`` -> :class:`Difficulty`; ``mix`` -> ``None``."""
    if text == "mix":
        return None
    try:
        return Difficulty(text)
    except ValueError as exc:
        raise ValueError(f"difficulty must be easy, medium, hard or mix, got {text!r}") from exc


def recipe_names() -> list[str]:
    """Names of the recipes in :data:`RECIPES_DIR` (empty when the folder is not there)."""
    return sorted(p.stem for p in RECIPES_DIR.glob("*.toml")) if RECIPES_DIR.is_dir() else []


def load_recipe(name_or_path: str | Path) -> Recipe:
    """Load a recipe by name (``datasets/<name>.toml``) or from a ``.toml`` path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = RECIPES_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        known = ", ".join(recipe_names()) or "none found"
        raise RecipeError(f"no recipe {str(name_or_path)!r} (known recipes: {known})")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RecipeError(f"cannot read recipe {path}: {exc}") from exc
    seed, n = raw.get("seed"), raw.get("n")
    if not (isinstance(seed, int) and seed >= 0 and isinstance(n, int) and n > 0):
        raise RecipeError(f"recipe {path}: 'seed' must be an integer >= 0 and 'n' one > 0")
    try:
        options = SynthOptions(
            size_px=parse_size(raw["size"]) if "size" in raw else None,
            difficulty=parse_difficulty(raw.get("difficulty", "mix")),
            exif_share=float(raw.get("exif_share", 0.15)),
            decision_margin_mm=float(raw.get("decision_margin_mm", 0.0)),
        )
    except (TypeError, ValueError) as exc:
        raise RecipeError(f"recipe {path}: {exc}") from exc
    return Recipe(
        name=str(raw.get("name", path.stem)),
        description=str(raw.get("description", "")),
        seed=seed,
        n=n,
        options=options,
    )
