"""Nachbarn (Alex Randolph): take a stone next to the gray one; your score plus your neighbour's.

``board`` holds the 37-cell hex geometry, ``state`` the rules and scoring, ``adviser`` the
max-n move adviser and ``engine`` the entry point registered in :data:`games.engine.ENGINES`.
"""
