"""Score photos on a Dask distributed cluster: same worker function, results streamed back.

The client submits :func:`vision.batch.worker.score_file` for a few photos per worker thread at
a time and takes results with ``distributed.as_completed`` as they finish; the batch writes them
exactly as it writes local results. Workers either read each photo from its path (a folder that
every worker mounts at the same path) or, with ``send_bytes``, receive the photo's bytes from
the client.

Workers need the ``tablescore`` package installed (same version as the client); they load the
pipeline and the catalogue on their first photo and keep them. Start them with one thread each
(``dask worker ADDRESS --nworkers N --nthreads 1``): a photo uses one core. Dask's defaults
spend CPU on monitoring that a batch of seconds-long photos does not need;
:data:`CLUSTER_CONFIG` lists the settings the README recommends for the scheduler and workers.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any

from distributed import Client, Future, as_completed
from distributed.scheduler import KilledWorker

from vision.batch.job import BatchError
from vision.batch.tasks import PhotoTask, ScoreOptions, failed_outcome
from vision.batch.worker import PhotoOutcome, score_file

#: Photos submitted ahead per worker thread: enough to hide the network round trip.
IN_FLIGHT_PER_THREAD = 2

#: Dask settings for a cluster that scores photos (scheduler and workers; as environment
#: variables ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False`` etc.). With Dask's defaults an
#: idle 2-worker cluster used 12% of a core, with these 2%; the statistical profiler also takes
#: the GIL from the photo's thread every 10 ms to sample its stack. Work stealing is not needed:
#: the client keeps only :data:`IN_FLIGHT_PER_THREAD` photos per thread submitted. Dask runs a
#: photo in a worker thread, whose own malloc arena (64 MB heaps, no mmap: see
#: ``vision.batch.worker._keep_freed_memory``) made the pipeline 16% slower than in a pool
#: process; one arena per worker process (``MALLOC_ARENA_MAX=1``) removes that.
CLUSTER_CONFIG: dict[str, object] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
    "distributed.nanny.pre-spawn-environ.MALLOC_ARENA_MAX": 1,
}


class ClusterUnavailable(BatchError):
    """The scheduler cannot be reached, or it has no workers."""


class DaskRunner:
    """Runs the batch's photos on the Dask cluster whose scheduler listens at ``address``
    (e.g. ``tcp://10.0.0.5:8786``); ``connect_timeout_s``: how long to try reaching it."""

    def __init__(
        self, address: str, *, send_bytes: bool = False, connect_timeout_s: float = 20.0
    ) -> None:
        self.address = address
        self.send_bytes = send_bytes
        self.connect_timeout_s = connect_timeout_s

    def describe(self) -> str:
        how = "photos sent as bytes" if self.send_bytes else "photos read from shared paths"
        return f"Dask cluster {self.address} ({how})"

    def run(
        self, tasks: Iterable[PhotoTask], options: ScoreOptions
    ) -> Generator[PhotoOutcome, None, None]:
        """Yield one outcome per task, in completion order."""
        queue = list(tasks)
        queue.reverse()  # pop() from the end takes tasks in order
        try:
            client = Client(self.address, timeout=self.connect_timeout_s, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterUnavailable(f"cannot reach the Dask scheduler at {self.address}") from exc
        with client:
            threads = sum(client.nthreads().values())
            if threads == 0:
                raise ClusterUnavailable(f"the Dask cluster at {self.address} has no workers")
            in_flight: dict[Future, PhotoTask] = {}
            completed = as_completed(loop=client.loop)
            try:
                while queue or in_flight:
                    while queue and len(in_flight) < IN_FLIGHT_PER_THREAD * threads:
                        task = queue.pop()
                        try:
                            future = self._submit(client, task, options)
                        except OSError as exc:  # the photo vanished since it was hashed
                            yield failed_outcome(task, "photo_missing", f"cannot read: {exc}")
                            continue
                        in_flight[future] = task
                        completed.add(future)
                    if not in_flight:
                        break
                    future = next(completed)
                    task = in_flight.pop(future)
                    yield self._outcome(future, task)
                    future.release()
            finally:
                if in_flight:  # interrupted: do not leave the cluster scoring for nobody
                    client.cancel(list(in_flight))

    def _submit(self, client: Client, task: PhotoTask, options: ScoreOptions) -> Future:
        photo: str | bytes = task.path.read_bytes() if self.send_bytes else str(task.path)
        return client.submit(
            score_file,
            photo,
            task.name,
            options.components,
            annotated_long_side_px=options.annotated_long_side_px,
            source=str(task.path),
            key=f"tablescore-photo-{task.sha256}",
            retries=0,
        )

    @staticmethod
    def _outcome(future: Future, task: PhotoTask) -> PhotoOutcome:
        try:
            outcome: Any = future.result()
        except KilledWorker:
            return failed_outcome(task, "worker_crashed", "Dask workers died scoring this photo")
        except Exception as exc:  # e.g. the worker lacks the package or a dependency
            return failed_outcome(task, "internal_error", f"{type(exc).__name__}: {exc}")
        return outcome
