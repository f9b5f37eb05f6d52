"""How the pixels of an overlap vote for the item on top (:mod:`vision.occlusion`)."""

from types import SimpleNamespace

import numpy as np
import pytest
from shapely.geometry import box

from vision.detect import CanvasView
from vision.occlusion import FULL_VOTE_LEVELS, _votes

#: The canvas (px) and the overlap judged in it: 1 px per mm, table mm = canvas px.
_SIZE = 40
_OVERLAP = box(5, 5, 35, 35)


def _view() -> CanvasView:
    return CanvasView(np.zeros((_SIZE, _SIZE, 3), np.uint8), (0.0, 0.0), 1.0)


def _items(n: int) -> list[SimpleNamespace]:
    """``n`` items whose art covers the whole canvas."""
    whole = SimpleNamespace(box=(0, 0, _SIZE, _SIZE))
    return [SimpleNamespace(rendering=whole) for _ in range(n)]


def _split_errors(near_tie_share: float, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel errors (levels) of two arts over the canvas: on the first ``near_tie_share`` of
    the rows the first item errs a level less than the second; on the rest the second errs
    ``margin`` levels less than the first."""
    first = np.full((_SIZE, _SIZE), 50.0, np.float32)
    second = first.copy()
    rows = round(near_tie_share * _SIZE)
    second[:rows] += 1.0
    first[rows:] += margin
    return first, second


def test_pixels_both_arts_explain_alike_say_little():
    """Most of the overlap is paper that both items' arts explain within a level; the rest, a
    print only the upper one has, it explains far better. The print decides."""
    first, second = _split_errors(0.7, 3 * FULL_VOTE_LEVELS)
    polygons = [_OVERLAP, _OVERLAP]
    vote_first, vote_second, pixels = _votes(
        _view(), _items(2), polygons, [first, second], _OVERLAP, (0, 1)
    )
    assert vote_second > 3 * vote_first
    assert pixels == 31 * 31  # every pixel of the filled overlap voted, a little or fully


@pytest.mark.parametrize("margin", [FULL_VOTE_LEVELS, 10 * FULL_VOTE_LEVELS])
def test_a_pixel_votes_once_at_most(margin):
    """However much better one art explains a pixel, it is one vote: a few pixels of glare or
    shadow cannot outweigh the rest."""
    first, second = _split_errors(0.5, margin)
    first[:20] -= FULL_VOTE_LEVELS + 1.0  # the first item now explains its half fully too
    vote_first, vote_second, _ = _votes(
        _view(), _items(2), [_OVERLAP, _OVERLAP], [first, second], _OVERLAP, (0, 1)
    )
    assert vote_first == pytest.approx(vote_second, rel=0.1)


def test_pixels_a_third_item_explains_best_do_not_vote():
    first, second = _split_errors(0.5, FULL_VOTE_LEVELS)
    third = np.full((_SIZE, _SIZE), np.inf, np.float32)
    third[20:] = 0.0  # lies over both where the second would have won
    vote_first, vote_second, pixels = _votes(
        _view(), _items(3), [_OVERLAP] * 3, [first, second, third], _OVERLAP, (0, 1)
    )
    assert vote_second == 0.0 and vote_first > 0
    assert pixels < 31 * 31
