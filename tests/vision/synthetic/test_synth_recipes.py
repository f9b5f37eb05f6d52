import pytest

from vision.synthetic.recipes import (
    RecipeError,
    load_recipe,
    parse_difficulty,
    parse_size,
    recipe_names,
)
from vision.synthetic.scene_sampler import Difficulty


def test_named_recipes_load_with_disjoint_seeds():
    names = recipe_names()
    assert {"train", "val", "heldout"} <= set(names)
    recipes = [load_recipe(n) for n in names]
    assert len({r.seed for r in recipes}) == len(recipes)
    train, val, heldout = (load_recipe(n) for n in ("train", "val", "heldout"))
    assert train.n > val.n > 0 and heldout.n > 0
    assert train.options.difficulty is None  # mix
    assert heldout.options.decision_margin_mm == 0.0  # every close call kept
    assert load_recipe("heldout-reference").options.decision_margin_mm == 1.0


def test_recipe_from_path(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text('name = "tiny"\nseed = 5\nn = 3\ndifficulty = "hard"\nsize = "640x480"\n')
    recipe = load_recipe(path)
    assert (recipe.seed, recipe.n) == (5, 3)
    assert recipe.options.size_px == (640, 480)
    assert recipe.options.difficulty is Difficulty.HARD


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("seed = 1\n", "'n'"),
        ('seed = 1\nn = 2\nsize = "big"\n', "1600x1200"),
        ('seed = 1\nn = 2\ndifficulty = "brutal"\n', "difficulty"),
        ("seed = -1\nn = 2\n", "seed"),
        ("seed = [\n", "cannot read"),
        ("seed = 1\nn = 2\ndecision_margin_mm = 5\n", "decision_margin_mm"),
    ],
)
def test_bad_recipes_are_refused_clearly(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RecipeError, match=message):
        load_recipe(path)


def test_unknown_recipe_lists_the_known_ones():
    with pytest.raises(RecipeError, match="train"):
        load_recipe("no-such-recipe")


@pytest.mark.parametrize("text", ["1600", "axb", "10x10", "1600x1200x3"])
def test_parse_size_refuses(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_parse_size_and_difficulty():
    assert parse_size("4032x3024") == (4032, 3024)
    assert parse_difficulty("mix") is None
    assert parse_difficulty("easy") is Difficulty.EASY
