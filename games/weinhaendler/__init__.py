"""Die Weinhändler: bid with wine cards, trade offers, build pyramid cellars.

``cards`` holds the deck (default and JSON deck files), ``cellar`` the pyramid geometry,
placement rules and formation scoring, ``state`` the round's phases, ``players`` the computer
players (greedy and search-based), ``simulate`` whole games and ``engine`` the entry point
registered in :data:`games.engine.ENGINES`.
"""
