"""Batch scoring of photo folders, in local worker processes or on a Dask cluster.

Modules, in the order a run uses them:

* :mod:`vision.batch.discovery` -- which files of a folder are photos;
* :mod:`vision.batch.hashing` -- the SHA-256 of a file's bytes, the key that makes runs resumable;
* :mod:`vision.batch.results_log` -- the append-only JSON Lines output, repaired on reopen;
* :mod:`vision.batch.worker` -- the function a worker process runs for one photo;
* :mod:`vision.batch.local_runner` / :mod:`vision.batch.dask_runner` -- where photos are scored;
* :mod:`vision.batch.job` -- one run: discover, skip what is done, score, write, summarise;
* :mod:`vision.batch.csv_summary` / :mod:`vision.batch.html_report` -- the summaries.

This package's ``__init__`` imports nothing: worker processes import
:mod:`vision.batch.worker` first and must be able to limit their thread pools before NumPy,
OpenCV or onnxruntime are loaded.
"""
