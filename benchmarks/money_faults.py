"""Which faults change a player's money? Per photo not scored exactly, the item faults behind it.

    python benchmarks/money_faults.py GROUND_TRUTH_DIR PREDICTIONS.jsonl [GROUND_TRUTH_DIR ...]

``PREDICTIONS.jsonl`` holds contract objects, one per photo (``tablescore batch DIR --out F``);
several (truth, predictions) pairs may be given. Items are paired as in :mod:`vision.evaluation`.
A fault is counted against a photo only where it can move a wrong player's money:

- ``missed``: a true counted, face-up item of a wrong player with an icon in view, not found;
- ``extra``: a found item of a wrong player, counted with an icon in view, that is not there;
- ``colour``: a paired item read in another colour, where either reading earns;
- ``counted``: a paired item of a wrong player counted where it is not, or the other way;
- ``type``: a paired, counted, face-up coaster of a wrong player read as another type;
- ``icon covered`` / ``icon visible``: a paired, counted coaster of a wrong player with fewer /
  more of its icons read visible than are.

Prints one line per such photo (its faults), then how many photos show each fault: most photos
miss an item or two hidden under others without their money changing, so the items missed say
little about what makes a photo wrong.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from vision.evaluation import load_ground_truth, match_items, scores_exact


def _earns(item: dict[str, Any]) -> bool:
    """Whether an item (contract or truth) is counted, face up, with an icon in view."""
    return (
        bool(item.get("counted"))
        and item.get("face") == "up"
        and any(icon.get("visible") for icon in item.get("icons", []))
    )


def photo_faults(predicted: dict[str, Any], truth: dict[str, Any]) -> list[str]:
    """The money-changing faults of one photo (see the module docstring), in item order."""
    players = set(truth["scores"]) | set(predicted.get("scores") or {})

    def money(contract: dict[str, Any], color: str) -> int:
        return (contract.get("scores") or {}).get(color, 0)

    wrong = {c for c in players if money(truth, c) != money(predicted, c)}
    pairs = match_items(predicted["items"], truth["items"])
    by_truth = {j: i for i, j, _ in pairs}
    found = {i for i, _, _ in pairs}
    faults = []
    for j, true_item in enumerate(truth["items"]):
        if j not in by_truth:
            if _earns(true_item) and true_item["color"] in wrong:
                faults.append("missed")
            continue
        item = predicted["items"][by_truth[j]]
        if item["color"] != true_item["color"]:
            if _earns(item) or _earns(true_item):
                faults.append("colour")
            continue
        if true_item["color"] not in wrong:
            continue
        if bool(item.get("counted")) != bool(true_item.get("counted")):
            faults.append("counted")
        elif not true_item.get("counted") or true_item.get("face") != "up":
            continue
        elif item.get("type") != true_item.get("type"):
            faults.append("type")
        else:
            seen = sum(bool(icon.get("visible")) for icon in item.get("icons", []))
            really = sum(bool(icon.get("visible")) for icon in true_item.get("icons", []))
            if seen < really:
                faults.append("icon covered")
            elif seen > really:
                faults.append("icon visible")
    for i, item in enumerate(predicted["items"]):
        if i not in found and _earns(item) and item["color"] in wrong:
            faults.append("extra")
    return faults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", help="GROUND_TRUTH_DIR PREDICTIONS.jsonl, repeated")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give a predictions file after every ground-truth folder")
    photos: Counter[str] = Counter()
    wrong_photos = errors = 0
    for truth_dir, predictions in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        with open(predictions, encoding="utf-8") as lines:
            contracts = [json.loads(line) for line in lines if line.strip()]
        by_name = {Path(c["image"]).name: c for c in contracts}
        for photo in load_ground_truth(Path(truth_dir)):
            predicted = by_name.get(photo.image_path.name)
            if predicted is None or "error" in predicted:
                errors += 1
                continue
            if scores_exact(predicted, photo.truth):
                continue
            wrong_photos += 1
            faults = photo_faults(predicted, photo.truth)
            photos.update(set(faults))
            print(photo.image_path.name, photo.truth.get("difficulty", ""), ", ".join(faults))
    print(f"\n{wrong_photos} photos not exact, {errors} without a result; photos per fault:")
    for fault, count in photos.most_common():
        print(f"  {fault:14s} {count}")


if __name__ == "__main__":
    main()
