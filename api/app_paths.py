"""Where the package data of the service lies (static files of the web page)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

STATIC_DIR = Path(str(resources.files("api") / "static"))
