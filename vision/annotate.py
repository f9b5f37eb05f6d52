"""Draw a scored photo: boundary, item outlines (counted or not), icons ticked/crossed, money.

Works on the contract dict (displayed-photo pixels) and the working image it was computed from;
the caller gives the working image's reduction (``LoadedPhoto.working_to_displayed``).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from games.beer_pretzels.catalogue import load_catalogue
from vision.load import displayed_to_working_px

#: BGR colours of the drawing.
_COUNTED = (60, 200, 60)
_NOT_COUNTED = (60, 60, 230)
_FACE_DOWN = (160, 160, 160)
_BOUNDARY = (255, 220, 0)
_TICK = (60, 220, 60)
_CROSS = (40, 40, 240)


def annotate(
    image_bgr: np.ndarray,
    contract: dict[str, Any],
    working_to_displayed: float,
    icon_centers_px: list[list[tuple[float, float]]] | None = None,
) -> np.ndarray:
    """A copy of ``image_bgr`` (the working image) with the contract drawn on it (BGR uint8).

    The contract's px are the displayed photo's; ``working_to_displayed`` is the working image's
    reduction (:func:`vision.load.displayed_to_working_px`).

    ``icon_centers_px``: per contract item, its icons' centres (displayed px) in the order of
    its ``icons``; without them the marks are drawn in a row at the item's centre.
    """
    out = image_bgr.copy()
    h, w = out.shape[:2]
    thick = max(1, round(max(h, w) / 700))

    def px(points: Any) -> np.ndarray:
        return np.round(displayed_to_working_px(points, working_to_displayed)).astype(np.int32)

    boundary = contract.get("boundary_px")
    if boundary:
        cv2.polylines(out, [px(boundary)], True, _BOUNDARY, thick + 1, cv2.LINE_AA)
    for item in sorted(contract.get("items", []), key=lambda it: it["z"]):
        color = _COUNTED if item["counted"] else _NOT_COUNTED
        if item["face"] == "down" and item["kind"] == "coaster":
            color = _FACE_DOWN
        cv2.polylines(out, [px(item["polygon_px"])], True, color, thick, cv2.LINE_AA)
    for n, item in enumerate(contract.get("items", [])):
        centre = px(item["center_px"])
        icons = item.get("icons", [])
        known = icon_centers_px[n] if icon_centers_px and n < len(icon_centers_px) else []
        for k, icon in enumerate(icons):
            if len(known) == len(icons):
                at = px(known[k])
            else:
                at = centre + np.array([(k - (len(icons) - 1) / 2) * 9 * thick, 0], np.int32)
            _mark(out, at, bool(icon["visible"]), 3 * thick, thick)
    _money_box(out, contract, thick)
    return out


def _mark(out: np.ndarray, at: np.ndarray, visible: bool, r: int, thick: int) -> None:
    x, y = int(at[0]), int(at[1])
    if visible:
        pts = np.array([[x - r, y], [x - r // 3, y + r], [x + r, y - r]], np.int32)
        cv2.polylines(out, [pts], False, _TICK, thick + 1, cv2.LINE_AA)
    else:
        cv2.line(out, (x - r, y - r), (x + r, y + r), _CROSS, thick + 1, cv2.LINE_AA)
        cv2.line(out, (x - r, y + r), (x + r, y - r), _CROSS, thick + 1, cv2.LINE_AA)


def _money_box(out: np.ndarray, contract: dict[str, Any], thick: int) -> None:
    players = contract.get("players", {})
    if not players:
        return
    rgb = {c.name: c.rgb for c in load_catalogue().colors}
    scale = 0.5 * thick
    line_h = int(28 * scale) + 6
    width = int(190 * scale) + 20
    cv2.rectangle(out, (0, 0), (width, line_h * len(players) + 10), (255, 255, 255), -1)
    for row, (color, player) in enumerate(players.items()):
        y = 8 + line_h * (row + 1) - 6
        r, g, b = rgb.get(color, (0, 0, 0))
        cv2.circle(
            out, (12 + int(6 * scale), y - int(8 * scale)), int(8 * scale) + 2, (b, g, r), -1
        )
        text = f"{color}: ${player['money']}"
        cv2.putText(
            out,
            text,
            (30 + int(10 * scale), y),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (0, 0, 0),
            max(1, thick),
            cv2.LINE_AA,
        )
