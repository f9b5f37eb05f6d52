"""Score photos in a pool of local worker processes, one photo per process at a time.

Each worker process loads the pipeline and the component catalogue once (its initializer), with
one native thread, so ``workers`` processes keep ``workers`` cores busy. Photos are submitted a
few at a time (:data:`IN_FLIGHT_PER_WORKER` per worker) so that Ctrl-C stops quickly and memory
stays bounded whatever the size of the folder.

A photo that kills its worker process (a crash in native code) breaks the whole pool and every
photo in flight with it. The pool is then rebuilt and those photos are scored again one at a
time: the one that breaks the pool alone is reported with the error code ``worker_crashed``,
the others are scored normally.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from vision.batch.tasks import PhotoTask, ScoreOptions, failed_outcome
from vision.batch.worker import PhotoOutcome, init_worker, score_file

#: Photos submitted ahead per worker process: enough to keep every process busy.
IN_FLIGHT_PER_WORKER = 2


class LocalPoolRunner:
    """Runs :func:`vision.batch.worker.score_file` in ``workers`` local processes.

    ``score_fn`` / ``initializer``: the importable functions a worker runs (defaults: the
    pipeline's); they are parameters so the pool's crash handling can be exercised alone.
    """

    def __init__(
        self,
        workers: int,
        *,
        score_fn: Callable[..., PhotoOutcome] = score_file,
        initializer: Callable[[str | None], None] = init_worker,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers
        self._score_fn = score_fn
        self._initializer = initializer

    def describe(self) -> str:
        return f"{self.workers} local worker process{'es' if self.workers > 1 else ''}"

    def run(
        self, tasks: Iterable[PhotoTask], options: ScoreOptions
    ) -> Generator[PhotoOutcome, None, None]:
        """Yield one outcome per task, in completion order."""
        queue = deque(tasks)
        suspects: deque[PhotoTask] = deque()  # in flight when a worker died: retried alone
        while queue or suspects:
            pool = self._new_pool(options)
            try:
                yield from self._drain(pool, queue, suspects, options)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)

    def _new_pool(self, options: ScoreOptions) -> ProcessPoolExecutor:
        # "spawn": a fresh interpreter per worker, safe whatever threads this process runs.
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=self._initializer,
            initargs=(options.components,),
        )

    def _drain(
        self,
        pool: ProcessPoolExecutor,
        queue: deque[PhotoTask],
        suspects: deque[PhotoTask],
        options: ScoreOptions,
    ) -> Iterator[PhotoOutcome]:
        """Score until both queues are empty or the pool breaks (then return to rebuild it)."""
        in_flight: dict[Future[PhotoOutcome], PhotoTask] = {}
        isolating = False
        while True:
            if suspects and not in_flight:
                isolating = True
                self._submit_next(pool, suspects, in_flight, options)
            elif not suspects:
                isolating = False
                while queue and len(in_flight) < IN_FLIGHT_PER_WORKER * self.workers:
                    if not self._submit_next(pool, queue, in_flight, options):
                        break
            if not in_flight:
                return
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            broken: list[PhotoTask] = []
            for future in done:
                task = in_flight.pop(future)
                try:
                    yield future.result()
                except BrokenProcessPool:
                    broken.append(task)
                except Exception as exc:  # e.g. an outcome that cannot be pickled back
                    yield failed_outcome(task, "internal_error", f"{type(exc).__name__}: {exc}")
            if broken:
                if isolating:
                    yield failed_outcome(
                        broken[0], "worker_crashed", "the worker process died scoring this photo"
                    )
                else:
                    suspects.extend(broken)
                    suspects.extend(in_flight.values())
                return

    def _submit_next(
        self,
        pool: ProcessPoolExecutor,
        waiting: deque[PhotoTask],
        in_flight: dict[Future[PhotoOutcome], PhotoTask],
        options: ScoreOptions,
    ) -> bool:
        """Submit the first task of ``waiting``; False (the task stays first) if the pool broke.

        A worker that dies breaks the pool before every future it takes down is answered, so
        a submission can fail while the photo that killed it is still in flight: that future
        then ends with :class:`BrokenProcessPool` and the pool is rebuilt.
        """
        task = waiting[0]
        try:
            future = pool.submit(
                self._score_fn,
                str(task.path),
                task.name,
                options.components,
                annotated_long_side_px=options.annotated_long_side_px,
            )
        except BrokenProcessPool:
            return False
        waiting.popleft()
        in_flight[future] = task
        return True
