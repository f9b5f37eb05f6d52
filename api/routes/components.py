"""The component sets the scorer knows (colours of the players)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import ServicesDep
from api.schemas import ColorOut, ComponentSet, problem_responses

router = APIRouter(prefix="/v1/beer-pretzels", tags=["scoring"], responses=problem_responses(422))


@router.get("/components", summary="the component sets, the default first")
def list_components(services: ServicesDep) -> list[ComponentSet]:
    registry = services.catalogues
    ordered = [registry.default.name] + [n for n in registry.names if n != registry.default.name]
    sets = []
    for name in ordered:
        catalogue = registry.get(name)
        sets.append(
            ComponentSet(
                name=catalogue.name,
                version=catalogue.version,
                default=name == registry.default.name,
                colors=[ColorOut(name=c.name, rgb=list(c.rgb)) for c in catalogue.colors],
                coaster_types=list(catalogue.type_names),
            )
        )
    return sets
