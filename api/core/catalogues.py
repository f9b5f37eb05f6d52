"""The component catalogues the service knows, by name (the bundled set plus configured ones)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from api.core.problems import Problem
from games.beer_pretzels.catalogue import Catalogue, load_catalogue


class CatalogueRegistry:
    """Catalogues by their ``name``; the bundled set is the default."""

    def __init__(self, extra_dirs: Iterable[Path] = ()) -> None:
        self.default = load_catalogue(None)
        self._by_name: dict[str, Catalogue] = {self.default.name: self.default}
        for folder in extra_dirs:
            catalogue = load_catalogue(folder)
            self._by_name[catalogue.name] = catalogue

    @property
    def all(self) -> list[Catalogue]:
        return [self._by_name[name] for name in self.names]

    @property
    def names(self) -> list[str]:
        return sorted(self._by_name)

    def get(self, name: str | None) -> Catalogue:
        """The catalogue called ``name`` (None or "" = the default); 422 problem if unknown."""
        if not name:
            return self.default
        try:
            return self._by_name[name]
        except KeyError:
            raise Problem(
                422,
                "unknown_components",
                f"no component set named {name!r}; known: {', '.join(self.names)}",
            ) from None
