"""HTTP routes, one module per area; each exposes ``router`` (see api.app.ROUTE_MODULES)."""
