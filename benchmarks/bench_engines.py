"""Rule-engine benchmark: step time, Nachbarn adviser vs random play, Weinhändler players.

Run from the repository root::

    python benchmarks/bench_engines.py            # full run (a few minutes on one core)
    python benchmarks/bench_engines.py --quick    # a smaller sample

Prints:

1. **Engine step time**: mean and 99th-percentile time of ``legal_actions()`` + ``apply()``
   over thousands of seeded random games per engine (target: < 1 ms).
2. **Nachbarn adviser vs random**: 200 seeded 3-player games; in game ``g`` seat ``g % 3`` follows
   the adviser while the others play random moves. Its final score is compared with the same
   seat's mean final score over ``--baseline`` all-random games from the same start (target:
   higher in >= 95% of the games).
3. **Weinhändler search vs greedy**: 200 seeded 3-player games, seat ``g % 3`` played by the
   search-based player, the others by the greedy one; mean points per seat type.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from games.engine import CHANCE, ENGINES, GameState
from games.nachbarn.adviser import DEFAULT_NODE_BUDGET, Opponents, search
from games.nachbarn.state import NachbarnState
from games.weinhaendler.players import GreedyPlayer, SearchPlayer
from games.weinhaendler.simulate import play_game

STEP_SETUPS = {
    "nachbarn": (["A", "B", "C"], {}),
    "biermann": (["A", "B", "C", "D"], {"turns": 12, "battle": True}),
    "weinhaendler": (["A", "B", "C", "D"], {}),
}


def _random_action(state: GameState, rng: random.Random) -> dict:
    if state.current_player() == CHANCE:
        return state.chance_action()
    actions = state.legal_actions()
    if state.game == "biermann":
        actions = [a for a in actions if a["type"] not in ("penalty", "end")]
    return rng.choice(actions)


def bench_steps(games: int) -> None:
    print(f"== engine step (legal_actions + apply), {games} random games each")
    for key, (players, options) in STEP_SETUPS.items():
        engine = ENGINES[key]
        times: list[float] = []
        for seed in range(games):
            state = engine.new_game(players, options, seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                t0 = time.perf_counter()
                legal = state.legal_actions()
                action = _random_action(state, rng)
                state.apply(action)
                times.append(time.perf_counter() - t0)
                assert legal
        times.sort()
        mean_us = 1e6 * statistics.fmean(times)
        median_us = 1e6 * times[len(times) // 2]
        p99_us = 1e6 * times[int(0.99 * (len(times) - 1))]
        print(
            f"{key:>13}: {len(times):7d} steps, median {median_us:6.1f} us, "
            f"mean {mean_us:6.1f} us, p99 {p99_us:7.1f} us"
        )


def _final(state: NachbarnState, seat: int) -> int:
    return int(state.scores()[seat].total)


def _random_finish(state: NachbarnState, rng: random.Random) -> NachbarnState:
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state


def bench_nachbarn_adviser(
    games: int, baseline: int, node_budget: int, opponents: Opponents
) -> None:
    print(
        f"== Nachbarn adviser ({opponents.value} opponents model) vs random: {games} 3-player "
        f"games, baseline {baseline} random games per start, node budget {node_budget}"
    )
    wins, advised_scores, baseline_means, exact_moves, moves = 0, [], [], 0, 0
    t0 = time.perf_counter()
    advice_time = 0.0
    for g in range(games):
        seat = g % 3
        start = NachbarnState.new(["A", "B", "C"], seed=g)
        rng = random.Random(10_000 + g)
        mean_random = statistics.fmean(
            _final(_random_finish(start.copy(), rng), seat) for _ in range(baseline)
        )
        state = start.copy()
        while not state.is_terminal():
            if state.to_move == seat:
                t1 = time.perf_counter()
                result = search(state, node_budget, opponents)
                advice_time += time.perf_counter() - t1
                exact_moves += result.exact
                moves += 1
                state.apply({"take": result.cell})
            else:
                state.apply(rng.choice(state.legal_actions()))
        score = _final(state, seat)
        wins += score > mean_random
        advised_scores.append(score)
        baseline_means.append(mean_random)
    print(
        f"adviser seat beat its random-play average in {wins}/{games} games "
        f"({100 * wins / games:.1f}%)"
    )
    print(
        f"mean final score: advised {statistics.fmean(advised_scores):.1f}, "
        f"random play {statistics.fmean(baseline_means):.1f}"
    )
    print(
        f"advice: {moves} moves, {100 * exact_moves / max(moves, 1):.0f}% exact (perfect play), "
        f"mean {1000 * advice_time / max(moves, 1):.1f} ms per move; "
        f"total {time.perf_counter() - t0:.1f} s"
    )


def bench_weinhaendler(games: int) -> None:
    print(f"== Weinhändler search vs greedy: {games} 3-player games (search seat rotates)")
    search_points, greedy_points, search_wins, diffs = [], [], 0, []
    t0 = time.perf_counter()
    for g in range(games):
        seats = [GreedyPlayer(), GreedyPlayer(), GreedyPlayer()]
        seats[g % 3] = SearchPlayer(seed=g)
        result = play_game(seats, seed=g)
        mine = result.points[g % 3]
        others = [p for i, p in enumerate(result.points) if i != g % 3]
        search_points.append(mine)
        greedy_points += others
        diffs.append(mine - statistics.fmean(others))
        search_wins += result.players[g % 3] in result.winners
    se = statistics.stdev(diffs) / len(diffs) ** 0.5
    print(
        f"mean points: search {statistics.fmean(search_points):.1f}, "
        f"greedy {statistics.fmean(greedy_points):.1f}; "
        f"difference {statistics.fmean(diffs):+.1f} +- {se:.1f} (standard error)"
    )
    print(
        f"search player won (or shared) {search_wins}/{games} games "
        f"({100 * search_wins / games:.0f}%; a third would be par); "
        f"{(time.perf_counter() - t0) / games:.2f} s per game"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples")
    parser.add_argument("--games", type=int, default=200, help="adviser / player games")
    parser.add_argument("--step-games", type=int, default=2000, help="random games per engine")
    parser.add_argument("--baseline", type=int, default=50, help="random games per start")
    parser.add_argument("--node-budget", type=int, default=DEFAULT_NODE_BUDGET)
    args = parser.parse_args()
    if args.quick:
        args.games, args.step_games, args.baseline = 30, 200, 20
    bench_steps(args.step_games)
    for opponents in Opponents:
        bench_nachbarn_adviser(args.games, args.baseline, args.node_budget, opponents)
    bench_weinhaendler(args.games)


if __name__ == "__main__":
    main()
