"""Bounded, off-loop execution of CPU-bound scoring.

At most ``max_concurrent`` jobs run at once, in a thread pool (the vision pipeline spends its
time in OpenCV/NumPy/ONNX Runtime, which release the GIL), and at most ``max_queued`` more wait
for a thread. A job beyond that is refused at once with a 503 problem carrying ``Retry-After``
instead of piling up. The admission count drops when the job really finishes, even when the
client that asked for it has gone away.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from api.core.problems import Problem

P = ParamSpec("P")
T = TypeVar("T")


class ScoringPool:
    """A thread pool guarded by a non-blocking admission semaphore."""

    def __init__(self, max_concurrent: int, max_queued: int, retry_after_s: int) -> None:
        self.max_concurrent = max_concurrent
        self.capacity = max_concurrent + max_queued
        self.retry_after_s = retry_after_s
        self._executor = ThreadPoolExecutor(
            max_workers=max_concurrent, thread_name_prefix="scoring"
        )
        self._slots = threading.BoundedSemaphore(self.capacity)
        self._lock = threading.Lock()
        self._admitted = 0

    @property
    def admitted(self) -> int:
        """Jobs running or waiting right now."""
        with self._lock:
            return self._admitted

    async def run(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Run ``fn(*args, **kwargs)`` in the pool and await its result (503 when saturated)."""
        if not self._slots.acquire(blocking=False):
            raise Problem(
                503,
                "scoring_busy",
                f"all {self.capacity} scoring slots are taken; retry in {self.retry_after_s} s",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        with self._lock:
            self._admitted += 1
        context = contextvars.copy_context()
        try:
            future: Future[T] = self._executor.submit(context.run, fn, *args, **kwargs)
        except BaseException:
            self._release(None)
            raise
        future.add_done_callback(self._release)
        return await asyncio.wrap_future(future)

    def _release(self, _future: Future[object] | None) -> None:
        with self._lock:
            self._admitted -= 1
        self._slots.release()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
