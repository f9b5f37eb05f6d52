"""Properties of score_scene on random scenes (hypothesis).

Random scenes: 2-12 coasters and napkins of four colours tossed around a circular loop, some
face down. Decisions that hang on <= 2 mm are allowed to differ only where the scorer itself marks
them uncertain (a rigid motion moves every coordinate by float rounding).
"""

import math

from bp_scenes import circle_loop
from hypothesis import given, settings
from hypothesis import strategies as st

from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import SceneScore, score_scene

PLAYERS = ("red", "yellow", "green", "blue")
TYPES = ("beer", "triple", "double", "three", "soft")
LOOP = circle_loop(350.0, n=120)
coord = st.floats(-600, 600, allow_nan=False)
angle = st.floats(0, 360, allow_nan=False)


@st.composite
def items(draw, z: int, face_down_coasters: bool = True) -> PlacedItem:
    kind = draw(st.sampled_from(["coaster", "coaster", "coaster", "napkin"]))
    face = "down" if face_down_coasters and draw(st.integers(0, 9)) == 0 else "up"
    return PlacedItem(
        kind=kind,
        color=draw(st.sampled_from(PLAYERS)),
        type=draw(st.sampled_from(TYPES)) if kind == "coaster" else None,
        face=face,
        center_mm=(draw(coord), draw(coord)),
        angle_deg=draw(angle),
        z=z,
    )


@st.composite
def scenes(draw) -> Scene:
    n = draw(st.integers(2, 12))
    return Scene(boundary_mm=LOOP, items=tuple(draw(items(2 * k)) for k in range(n)))


def score(scene: Scene) -> SceneScore:
    return score_scene(scene, players=PLAYERS)


def assert_same_decisions(a: SceneScore, b: SceneScore, n_items: int) -> None:
    for ra, rb in zip(a.items[:n_items], b.items[:n_items], strict=True):
        assert ra.counted == rb.counted or ra.uncertain or rb.uncertain
        for ia, ib in zip(ra.icons, rb.icons, strict=True):
            assert ia.visible == ib.visible or ia.uncertain or ib.uncertain
    for color in PLAYERS:
        pa, pb = a.players[color], b.players[color]
        assert pa.money == pb.money or pa.uncertain or pb.uncertain


@settings(max_examples=40, deadline=None)
@given(scenes(), st.data())
def test_napkin_on_top_never_uncovers_and_only_pays_through_new_links(scene, data):
    top = max(item.z for item in scene.items) + 1
    extra = data.draw(items(top))
    extra = PlacedItem(
        "napkin", extra.color, None, extra.face, extra.center_mm, extra.angle_deg, top
    )
    before = score(scene)
    after = score(Scene(scene.boundary_mm, (*scene.items, extra)))
    for rb, ra in zip(before.items, after.items, strict=False):
        assert ra.counted >= rb.counted  # adding an item only adds links
        for ib, ia in zip(rb.icons, ra.icons, strict=True):
            assert ib.visible >= ia.visible  # never more visible
    new_links = any(
        ra.counted != rb.counted for rb, ra in zip(before.items, after.items, strict=False)
    )
    if not new_links:
        for color in PLAYERS:
            assert after.players[color].money <= before.players[color].money


@settings(max_examples=40, deadline=None)
@given(scenes(), coord, coord, angle, coord, coord)
def test_rigid_motion_changes_nothing(scene, dx, dy, turn_deg, px, py):
    a = math.radians(turn_deg)
    c, s = math.cos(a), math.sin(a)

    def move(p):
        x, y = p[0] - px, p[1] - py
        return (c * x - s * y + px + dx, s * x + c * y + py + dy)

    moved = Scene(
        boundary_mm=tuple(move(p) for p in scene.boundary_mm),
        items=tuple(
            PlacedItem(
                it.kind,
                it.color,
                it.type,
                it.face,
                move(it.center_mm),
                it.angle_deg + turn_deg,
                it.z,
            )
            for it in scene.items
        ),
    )
    assert_same_decisions(score(scene), score(moved), len(scene.items))


@settings(max_examples=40, deadline=None)
@given(scenes(), st.data(), st.floats(0, 2 * math.pi), st.floats(2500, 5000))
def test_item_far_outside_never_counts(scene, data, direction, distance):
    far = data.draw(items(-1, face_down_coasters=False))
    far = PlacedItem(
        far.kind,
        far.color,
        far.type,
        far.face,
        (distance * math.cos(direction), distance * math.sin(direction)),
        far.angle_deg,
        far.z,
    )
    before = score(scene)
    after = score(Scene(scene.boundary_mm, (*scene.items, far)))
    assert not after.items[-1].anchored and not after.items[-1].counted
    assert after.scores == before.scores


@settings(max_examples=40, deadline=None)
@given(scenes(), st.data())
def test_face_down_coaster_never_changes_money(scene, data):
    n = len(scene.items)
    z = 2 * data.draw(st.integers(-1, n)) + 1  # between any two items, or below/above all
    extra = data.draw(items(z))
    extra = PlacedItem(
        "coaster", extra.color, data.draw(st.sampled_from(TYPES)), "down", extra.center_mm, 0.0, z
    )
    before = score(scene)
    after = score(Scene(scene.boundary_mm, (*scene.items, extra)))
    assert after.scores == before.scores
    assert [r.counted for r in after.items[:n]] == [r.counted for r in before.items[:n]]
    assert len(after.warnings) == len(before.warnings) + 1
