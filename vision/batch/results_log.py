"""The batch's output: an append-only JSON Lines file, one record per photo, keyed by SHA-256.

Durability: every record is written as one line, flushed and ``fsync``-ed before the next photo
is taken, so a crash or Ctrl-C loses at most the photos still being scored. A process killed
while writing can leave a partial last line; :meth:`ResultsLog.open` detects it (no final
newline, or not a JSON object) and cuts it off, so the file is valid JSON Lines again and that
photo is scored anew. A lock (``flock``) keeps two batch runs from writing the same file.

Records whose error code is in :data:`vision.batch.worker.RUN_ERROR_CODES` (and, on request,
all error records) are removed on open by rewriting the file atomically, so that their photos
are scored again without the file ever holding two records for one photo.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


class ResultsLogError(RuntimeError):
    """The output file cannot be used (locked by another run, or not a results file)."""


@dataclass
class OpenReport:
    """What :meth:`ResultsLog.open` found: records kept, bytes of a partial line cut off,
    unparseable lines skipped (left in place), records removed for a new try."""

    kept: int = 0
    truncated_bytes: int = 0
    bad_lines: list[int] = field(default_factory=list)
    removed_for_retry: int = 0


class ResultsLog:
    """An open, locked results file. Use as a context manager, or call :meth:`close`."""

    def __init__(self, path: Path, handle: IO[bytes], records: dict[str, dict[str, Any]]):
        self.path = path
        self._handle = handle
        self._by_sha256 = records
        self._without_sha256: list[dict[str, Any]] = []

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], *, retry: Callable[[dict[str, Any]], bool]
    ) -> tuple[ResultsLog, OpenReport]:
        """Open (creating it if needed) and lock the file, repair it, load its records.

        ``retry(record)``: True for a record to remove so that its photo is scored again.
        Records without a ``sha256`` (a file that could not even be read) are always removed.
        Raises :class:`ResultsLogError` when another process holds the file.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = path.open("a+b")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            handle.close()
            raise ResultsLogError(f"{path} is being written by another batch run") from exc
        try:
            report = OpenReport()
            lines, report.truncated_bytes = _read_repairing(handle)
            records: dict[str, dict[str, Any]] = {}
            kept_lines: list[bytes] = []
            for number, line in enumerate(lines, start=1):
                record = _parse(line)
                if record is None:
                    report.bad_lines.append(number)
                    kept_lines.append(line)
                elif record.get("sha256") is None or retry(record):
                    report.removed_for_retry += 1
                else:
                    records[record["sha256"]] = record
                    kept_lines.append(line)
            if report.removed_for_retry:
                handle = _rewrite(path, handle, kept_lines)
            report.kept = len(records)
        except BaseException:
            handle.close()
            raise
        return cls(path, handle, records), report

    def all_records(self) -> list[dict[str, Any]]:
        """Every record in the file: by photo content in file order, then files not read."""
        return [*self._by_sha256.values(), *self._without_sha256]

    def __contains__(self, sha256: str) -> bool:
        """True when the photo with these bytes has a record."""
        return sha256 in self._by_sha256

    def append(self, record: dict[str, Any]) -> None:
        """Write ``record`` as one line and make it durable (flush + fsync) before returning.

        Raises :class:`ValueError` for a record that is not strict JSON (NaN, infinities).
        """
        line = json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n"
        self._handle.write(line.encode("utf-8"))
        self._handle.flush()
        os.fsync(self._handle.fileno())
        if record.get("sha256") is None:
            self._without_sha256.append(record)
        else:
            self._by_sha256[record["sha256"]] = record

    def close(self) -> None:
        self._handle.close()  # releases the lock

    def __enter__(self) -> ResultsLog:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The complete records of a results file, in file order (partial or bad lines skipped)."""
    with Path(path).open("rb") as handle:
        data = handle.read()
    return [r for line in data.split(b"\n")[:-1] if (r := _parse(line)) is not None]


def _read_repairing(handle: IO[bytes]) -> tuple[list[bytes], int]:
    """All complete lines of the file; a partial last line is cut off the file itself."""
    handle.seek(0)
    data = handle.read()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        tail = data[end:]
        if _parse(tail) is not None:  # the record is whole, only its newline is missing
            handle.write(b"\n")
            data += b"\n"
            end = len(data)
        else:
            handle.truncate(end)
        handle.flush()
        os.fsync(handle.fileno())
    lines = data[:end].split(b"\n")[:-1]
    return [line for line in lines if line.strip()], len(data) - end


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return record if isinstance(record, dict) and "image" in record else None


def _rewrite(path: Path, handle: IO[bytes], lines: list[bytes]) -> IO[bytes]:
    """Atomically replace the file by one holding ``lines``; returns the new, locked handle.

    The new content is made durable in a temporary file that then replaces the old one, so a
    crash at any point leaves either the old or the new file. The old file's lock is held until
    the new file is locked.
    """
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("wb") as copy:
        copy.writelines(line + b"\n" for line in lines)
        copy.flush()
        os.fsync(copy.fileno())
    os.replace(temporary, path)
    new_handle = path.open("a+b")
    try:
        fcntl.flock(new_handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        new_handle.close()
        raise ResultsLogError(f"{path} is being written by another batch run") from exc
    handle.close()
    return new_handle
