"""The service's settings: one object, read from ``TABLESCORE_*`` environment variables."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_concurrency() -> int:
    return max(1, min(4, os.cpu_count() or 1))


class Settings(BaseSettings):
    """Every knob of the service. Environment variable = ``TABLESCORE_`` + field name.

    ``database_url`` defaults to a SQLite file in ``data_dir``; a PostgreSQL URL
    (``postgresql+psycopg://user:pass@host/db``, extra ``postgres``) works as well.
    """

    model_config = SettingsConfigDict(env_prefix="TABLESCORE_", extra="ignore")

    data_dir: Path = Field(
        default=Path("var"), description="folder for the SQLite file and the uploaded photos"
    )
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default sqlite:///<data_dir>/tablescore.db"
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="when set, every request except /healthz and the web page needs X-API-Key",
    )
    max_upload_bytes: int = Field(
        default=25_000_000, gt=0, description="largest accepted request body (bytes)"
    )
    max_concurrent_scorings: int = Field(
        default_factory=_default_concurrency, gt=0, description="photos scored at the same time"
    )
    max_queued_scorings: int = Field(
        default=16, ge=0, description="photos allowed to wait for a scoring slot before 503"
    )
    retry_after_s: int = Field(default=5, gt=0, description="Retry-After sent with a 503 (s)")
    components_dirs: list[Path] = Field(
        default_factory=list,
        description="extra component catalogues (folders with components.json), by their name",
    )
    log_level: str = Field(default="info", description="logging level of the service")

    @property
    def resolved_database_url(self) -> str:
        """The database URL in use (the SQLite default lives in ``data_dir``)."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'tablescore.db').resolve()}"

    @property
    def photos_dir(self) -> Path:
        """Uploaded photos, content-addressed by SHA-256."""
        return self.data_dir / "photos"

    @property
    def annotated_dir(self) -> Path:
        """Annotated JPEGs of scored photos, content-addressed by SHA-256."""
        return self.data_dir / "annotated"
