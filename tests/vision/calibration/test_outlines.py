import cv2
import numpy as np
import pytest
from shapely.geometry import Polygon

from games.beer_pretzels.catalogue import Face, ItemKind, Shape, load_catalogue
from vision.calibration.outlines import propose_icon_outlines, shoelace_area

CATALOGUE = load_catalogue()


@pytest.mark.parametrize("type_name", CATALOGUE.type_names)
@pytest.mark.parametrize("color", ["red", "gray"])
def test_outlines_of_the_default_art_match_the_catalogue(type_name, color):
    coaster = CATALOGUE.coaster_type(type_name)
    art = cv2.imread(str(CATALOGUE.art_path(ItemKind.COASTER, color, type_name, Face.UP)))
    proposed = propose_icon_outlines(art, coaster.shape)
    assert len(proposed) == len(coaster.icons)
    for icon in coaster.icons:
        nearest = min(
            proposed, key=lambda p: Polygon(p.outline_mm).distance(icon.outline_mm.centroid)
        )
        assert Polygon(nearest.outline_mm).hausdorff_distance(icon.outline_mm) < 0.3
        assert len(nearest.outline_mm) >= 128
        assert shoelace_area(nearest.outline_mm) > 0  # the catalogue's vertex order


def test_a_face_without_icons_has_no_proposals():
    shape = Shape("circle", 85.0)
    face = np.full((850, 850, 3), (40, 40, 200), np.uint8)
    cv2.circle(face, (300, 300), 60, (20, 20, 20), -1)  # a dark blot: no closed line
    assert propose_icon_outlines(face, shape) == []


def test_an_art_square_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match="art square"):
        propose_icon_outlines(np.zeros((100, 100, 3), np.uint8), Shape("circle", 85.0))
