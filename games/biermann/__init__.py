"""Biermann: a dice drinking game refereed by the engine.

``dice`` holds what a roll of two dice means and the exact probabilities over the 36 outcomes,
``state`` the referee state machine, ``simulate`` a seeded simulator of whole evenings and
``engine`` the entry point registered in :data:`games.engine.ENGINES`.
"""
