"""The tablescore HTTP service (FastAPI) and command-line interface."""
