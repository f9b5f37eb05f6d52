import json
from pathlib import Path

import pytest

from games.beer_pretzels.catalogue import CatalogueError, IconKind, load_catalogue

SHARED_COMPONENTS = Path(__file__).resolve().parents[3].parent / "shared" / "components"


def test_default_catalogue_matches_the_printed_set():
    cat = load_catalogue()
    assert cat.color_names == ("red", "yellow", "green", "blue", "gray")
    assert {t.type: t.pretzel_value for t in cat.coaster_types} == {
        "beer": 1,
        "triple": 3,
        "double": 3,
        "three": 3,
        "soft": 4,
    }
    beer = cat.coaster_type("beer")
    assert [i.kind for i in beer.icons] == [IconKind.BEER, IconKind.PRETZEL]
    assert beer.icon("beer").value is None
    assert cat.coaster_type("soft").shape.polygon_mm.area == pytest.approx(
        3.14159 * 42.5**2, rel=0.01
    )
    square = cat.coaster_type("three").shape
    assert square.polygon_mm.bounds == pytest.approx((-42.5, -42.5, 42.5, 42.5))
    assert cat.napkin.shape.size_mm == 130.0
    assert cat.string.length_mm == 2000.0


def test_icons_lie_inside_their_coaster():
    cat = load_catalogue()
    for coaster in cat.coaster_types:
        shape = coaster.shape.polygon_mm
        for icon in coaster.icons:
            assert shape.buffer(-3.0).contains(icon.outline_mm), (coaster.type, icon.id)


def test_every_art_file_exists():
    cat = load_catalogue()
    for color in cat.color_names:
        for t in cat.type_names:
            for face in ("up", "down"):
                assert cat.art_path("coaster", color, t, face).is_file()
        assert cat.art_path("napkin", color, None, "up").is_file()


@pytest.mark.skipif(not SHARED_COMPONENTS.is_dir(), reason="shared/ not beside the project")
def test_bundled_copy_equals_the_canonical_set():
    ours = json.loads((load_catalogue().root / "components.json").read_text())
    assert ours == json.loads((SHARED_COMPONENTS / "components.json").read_text())


def _write_variant(tmp_path: Path, mutate) -> Path:
    raw = json.loads((load_catalogue().root / "components.json").read_text())
    mutate(raw)
    (tmp_path / "components.json").write_text(json.dumps(raw))
    return tmp_path


def test_a_user_catalogue_loads_from_a_path(tmp_path):
    def recolour(raw):
        raw["name"] = "mine"
        raw["colors"][0] = {"name": "purple", "rgb": [120, 40, 160]}

    cat = load_catalogue(_write_variant(tmp_path, recolour))
    assert cat.name == "mine"
    assert cat.color_names[0] == "purple"
    assert cat.root == tmp_path.resolve()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.pop("colors"), "'catalogue.colors' is missing"),
        (lambda r: r["colors"][1].update(rgb=[1, 2]), "'catalogue.colors[1].rgb'"),
        (
            lambda r: r["coaster_types"][2]["shape"].update(kind="hexagon"),
            "'catalogue.coaster_types[2].shape.kind'",
        ),
        (
            lambda r: r["coaster_types"][0]["icons"][1].update(value=0),
            "'catalogue.coaster_types[0].icons[1].value'",
        ),
        (
            lambda r: r["coaster_types"][1]["icons"][0].update(outline=[[0, 0], [1, 1]]),
            "'catalogue.coaster_types[1].icons[0].outline'",
        ),
        (lambda r: r["napkin"].update(thickness="thin"), "'catalogue.napkin.thickness'"),
    ],
)
def test_a_malformed_catalogue_names_the_field(tmp_path, mutate, message):
    with pytest.raises(CatalogueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_catalogue(_write_variant(tmp_path, mutate))


def test_missing_and_unreadable_catalogues(tmp_path):
    with pytest.raises(CatalogueError, match="no catalogue"):
        load_catalogue(tmp_path / "nowhere")
    (tmp_path / "components.json").write_text("{not json")
    with pytest.raises(CatalogueError, match="cannot read"):
        load_catalogue(tmp_path)
