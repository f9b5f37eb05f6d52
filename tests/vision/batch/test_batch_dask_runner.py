"""The cluster path: a real Dask LocalCluster scores the folder exactly as the local pool does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_fixtures import DEVSET_PHOTOS, LocalRun, without_timing

from vision.batch.job import BatchConfig, run_batch
from vision.batch.results_log import read_records

distributed = pytest.importorskip("distributed")

from vision.batch.dask_runner import CLUSTER_CONFIG, ClusterUnavailable, DaskRunner  # noqa: E402


@pytest.fixture(scope="module")
def cluster_address() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def test_cluster_results_identical_to_local(
    local_run: LocalRun, cluster_address: str, tmp_path: Path
) -> None:
    config = BatchConfig(
        folder=local_run.config.folder,
        out=tmp_path / "results.jsonl",
        report=tmp_path / "report.html",
        progress=False,
    )
    summary = run_batch(config, DaskRunner(cluster_address))
    assert summary.scored == local_run.summary.scored
    assert sorted(summary.errors) == sorted(local_run.summary.errors)
    assert without_timing(read_records(config.out)) == without_timing(local_run.records)
    assert config.report.read_text().count("data:image/jpeg;base64,") == len(DEVSET_PHOTOS)


def test_cluster_with_bytes_finishes_a_local_output(
    local_run: LocalRun, cluster_address: str, tmp_path: Path
) -> None:
    """A local run cut short, finished on the cluster with photos sent as bytes."""
    left_out = {DEVSET_PHOTOS[0], "random.jpg"}
    out = tmp_path / "results.jsonl"
    lines = local_run.config.out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(line for line in lines if json.loads(line)["image"] not in left_out))
    config = BatchConfig(folder=local_run.config.folder, out=out, progress=False)
    summary = run_batch(config, DaskRunner(cluster_address, send_bytes=True))
    assert summary.scored == 1 and summary.errors == [("random.jpg", "unreadable_image")]
    assert without_timing(read_records(out)) == without_timing(local_run.records)


def test_unreachable_scheduler_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "a.jpg").write_bytes(b"\xff\xd8\xff")
    config = BatchConfig(folder=tmp_path / "photos", out=tmp_path / "r.jsonl", progress=False)
    with pytest.raises(ClusterUnavailable, match="cannot reach"):
        run_batch(config, DaskRunner("tcp://127.0.0.1:9", connect_timeout_s=1))


def test_recommended_cluster_settings_are_dask_settings() -> None:
    import dask

    for key, value in CLUSTER_CONFIG.items():
        parent, _, _ = key.rpartition(".")
        if parent == "distributed.nanny.pre-spawn-environ":  # a worker process's environment
            assert isinstance(dask.config.get(parent), dict) and isinstance(value, int), key
            continue
        current = dask.config.get(key)  # KeyError for a setting Dask does not have
        assert type(current) is type(value), key
