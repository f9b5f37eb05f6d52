"""The local process pool: every photo answered once, a worker crash isolated to its photo.

The worker functions here stand in for the pipeline so that a crash (a worker process that
dies) can be provoked; spawned workers import this module by name.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vision.batch.local_runner import LocalPoolRunner
from vision.batch.tasks import PhotoTask, ScoreOptions
from vision.batch.worker import PhotoOutcome


def score_or_die(photo: str, name: str, components: str | None = None, **_: object) -> PhotoOutcome:
    """Dies (as a segfault in native code would) on photos named ``poison*``."""
    if name.startswith("poison"):
        os._exit(3)
    record = {"image": name, "sha256": name.upper(), "source": photo, "scores": {"red": 1}}
    return PhotoOutcome(record, None, 0.0)


def no_setup(components: str | None) -> None:
    """Initializer that loads nothing."""


def _tasks(names: list[str]) -> list[PhotoTask]:
    return [PhotoTask(name, Path("/photos") / name, name.upper()) for name in names]


def test_crashing_photo_is_isolated_and_others_scored() -> None:
    names = ["a.jpg", "b.jpg", "poison.jpg", "c.jpg", "d.jpg", "e.jpg", "f.jpg"]
    runner = LocalPoolRunner(2, score_fn=score_or_die, initializer=no_setup)
    outcomes = list(runner.run(_tasks(names), ScoreOptions()))
    by_name = {o.record["image"]: o for o in outcomes}
    assert len(outcomes) == len(names) and set(by_name) == set(names)
    assert by_name["poison.jpg"].error_code == "worker_crashed"
    assert by_name["poison.jpg"].record["sha256"] == "POISON.JPG"
    assert all(by_name[n].error_code is None for n in names if n != "poison.jpg")


def test_workers_must_be_positive() -> None:
    with pytest.raises(ValueError, match="workers"):
        LocalPoolRunner(0)


def test_several_crashes_among_many_photos_each_isolated() -> None:
    # Quick photos finish while a worker dies: the pool breaks between two submissions.
    names = [f"{i:02d}.jpg" for i in range(24)]
    names[3], names[11], names[19] = "poison-1.jpg", "poison-2.jpg", "poison-3.jpg"
    runner = LocalPoolRunner(2, score_fn=score_or_die, initializer=no_setup)
    outcomes = list(runner.run(_tasks(names), ScoreOptions()))
    assert sorted(o.record["image"] for o in outcomes) == sorted(names)
    crashed = {o.record["image"] for o in outcomes if o.error_code == "worker_crashed"}
    assert crashed == {"poison-1.jpg", "poison-2.jpg", "poison-3.jpg"}
    assert all(o.error_code is None for o in outcomes if o.record["image"] not in crashed)
