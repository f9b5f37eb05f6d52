"""Sub-commands of the ``tablescore`` CLI; each module exposes ``register(subparsers)``."""
