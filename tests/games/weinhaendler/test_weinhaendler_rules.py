"""Die Weinhändler: deck, auction, exchange, cellars and formations, refill and end, players."""

import json
import random
from collections import Counter

import pytest

from games.engine import ENGINES, BadSetup, IllegalAction
from games.weinhaendler.cards import WINES, deck_from_json, default_deck, load_deck
from games.weinhaendler.cellar import FORMATIONS, flat, open_slots
from games.weinhaendler.players import GreedyPlayer, SearchPlayer
from games.weinhaendler.simulate import play_game
from games.weinhaendler.state import WeinhaendlerState

PLAYERS = ["Ann", "Ben", "Cem"]
DECK = default_deck()
EMPTY = [i for i, c in enumerate(DECK) if c.wine is None]


def card_of(wine: str, stars: int, nth: int = 0) -> int:
    """The id of the ``nth`` default-deck card of ``wine`` with ``stars``."""
    return [i for i, c in enumerate(DECK) if c.wine == wine and c.stars == stars][nth]


def arranged(cellar: dict[tuple[int, int], int], hand: list[int]) -> WeinhaendlerState:
    """A 3-player game in Ann's cellar phase: her first cellar and hand set as given.

    The cards are moved there from wherever the deal put them (conservation is kept).
    """
    data = WeinhaendlerState.new(PLAYERS, seed=1, first=0).to_json()
    wanted = set(cellar.values()) | set(hand)
    data["draw"] = [c for c in data["draw"] if c not in wanted]
    data["public"] = [c for c in data["public"] if c not in wanted]
    data["hands"] = [[c for c in h if c not in wanted] for h in data["hands"]]
    data["draw"] += [c for c in data["hands"][0]]
    data["hands"][0] = list(hand)
    slots: list[int | None] = [None] * 15
    for (r, j), card in cellar.items():
        slots[flat(r, j)] = card
    data["cellars"][0] = [slots]
    data["phase"] = "cellar"
    data["to_act"] = 0
    return WeinhaendlerState.from_json(data)


def place(card: int, r: int, j: int, cellar: int = 0) -> dict:
    return {"type": "place", "card": card, "cellar": cellar, "slot": [r, j]}


def test_default_deck():
    assert len(DECK) == 66
    assert Counter(c.wine for c in DECK) == {**dict.fromkeys(WINES, 9), None: 3}
    assert Counter(c.stars for c in DECK if c.wine) == {1: 21, 2: 21, 3: 21}
    wine_prices = [c.price_cents for c in DECK if c.wine]
    assert len(set(wine_prices)) == 63
    assert min(wine_prices) == 100 and max(wine_prices) == 800
    assert all(c.price_cents == 20 for c in DECK if c.wine is None)
    for wine in WINES:
        assert Counter(c.stars for c in DECK if c.wine == wine) == {1: 3, 2: 3, 3: 3}


def test_deck_file_replaces_the_default(tmp_path):
    cards = [
        {"wine": w, "stars": 1 + i % 3, "price_cents": 100 + i} for i, w in enumerate(WINES * 4)
    ]
    cards += [{"wine": None, "stars": 0, "price_cents": 20}]
    path = tmp_path / "deck.json"
    path.write_text(json.dumps({"cards": cards}))
    deck = load_deck(path)
    assert len(deck) == 29 and deck[0].price_cents == 100
    state = WeinhaendlerState.new(PLAYERS, seed=0, deck=deck)
    assert sorted(state.all_card_locations()) == list(range(29))
    restored = WeinhaendlerState.from_json(json.loads(json.dumps(state.to_json())))
    assert restored.deck == deck


@pytest.mark.parametrize(
    "cards",
    [
        [],
        [{"wine": "x", "stars": 4, "price_cents": 100}],
        [{"wine": None, "stars": 1, "price_cents": 20}],
        [{"wine": "x", "stars": 1, "price_cents": 0}],
        ["card"],
    ],
)
def test_bad_decks_are_refused(cards):
    with pytest.raises(BadSetup):
        deck_from_json({"cards": cards})


def test_deal():
    state = WeinhaendlerState.new(["A", "B", "C", "D", "E"], seed=4)
    assert [len(h) for h in state.hands] == [5] * 5
    assert len(state.public) == 4 and len(state.draw) == 66 - 25 - 4


def test_formation_geometry():
    kinds = Counter(kind for kind, _ in FORMATIONS)
    # rows 3+2+1, diagonals 6 each way, triangles 10 pointing up and 6 pointing down
    assert kinds == {"row": 6, "diagonal": 12, "triangle": 16}


def test_bottom_row_first_from_the_left_then_upward():
    riesling = [card_of("Riesling", s, n) for s in (1, 2) for n in range(3)]
    state = arranged({}, riesling[:6])
    first = riesling[0]
    targets = {
        (a["cellar"], tuple(a["slot"])) for a in state.legal_actions() if a.get("card") == first
    }
    assert targets == {(0, (0, 0))}
    with pytest.raises(IllegalAction, match="cannot go"):
        state.apply(place(first, 0, 1))
    with pytest.raises(IllegalAction, match="cannot go"):
        state.apply(place(first, 1, 0))
    for j, card in enumerate(riesling[:5]):
        state.apply(place(card, 0, j))
    assert open_slots(state.cellars[0][0]) == [flat(1, j) for j in range(4)]


def test_same_wine_diagonal_scores_four():
    # bottom row R E E E S (empty bottles form nothing), then (1,0) R and (1,1) Silvaner
    r1, r2, r3 = card_of("Riesling", 1), card_of("Riesling", 2), card_of("Riesling", 3)
    silvaner, trollinger = card_of("Silvaner", 1), card_of("Trollinger", 1)
    state = arranged(
        {
            (0, 0): r1,
            (0, 1): EMPTY[0],
            (0, 2): EMPTY[1],
            (0, 3): EMPTY[2],
            (0, 4): trollinger,
            (1, 0): r2,
            (1, 1): silvaner,
        },
        [r3],
    )
    (event,) = state.apply(place(r3, 2, 0))
    # (0,0) (1,0) (2,0): Riesling three times along a diagonal = 4; the triangle
    # (1,0) (1,1) (2,0) is R, Silvaner, R = 0; the other diagonal holds an empty bottle
    assert event["formations"] == [
        {"kind": "diagonal", "slots": [[0, 0], [1, 0], [2, 0]], "points": 4},
        {"kind": "triangle", "slots": [[1, 0], [1, 1], [2, 0]], "points": 0},
    ]
    assert event["points"] == 3 + 4
    assert state.points[0] == 7
    assert state.scores()[0].breakdown["formations"] == 4


def test_three_wine_triangle_scores_one():
    r, s, t = card_of("Riesling", 1), card_of("Silvaner", 2), card_of("Trollinger", 3)
    state = arranged({}, [r, s, *EMPTY, t])
    events = [state.apply(place(card, 0, j))[0] for j, card in enumerate([r, s, *EMPTY])]
    # the row R S E holds an empty bottle: nothing
    assert all(f["points"] == 0 for e in events for f in e["formations"])
    (event,) = state.apply(place(t, 1, 0))
    assert event["formations"] == [
        {"kind": "triangle", "slots": [[0, 0], [0, 1], [1, 0]], "points": 1}
    ]
    assert state.points[0] == 1 + 2 + 0 + 0 + 0 + 3 + 1
    assert state.points[0] == state.recount(0)


def test_a_full_bottle_may_cover_an_empty_bottle_and_scores_formations_then():
    r1, r2, r3 = (card_of("Riesling", 1, n) for n in range(3))
    state = arranged({(0, 0): r1, (0, 1): EMPTY[0]}, [r2, r3, EMPTY[1]])
    assert {tuple(a["slot"]) for a in state.legal_actions() if a.get("card") == r2} == {
        (0, 1),
        (0, 2),
    }
    assert {tuple(a["slot"]) for a in state.legal_actions() if a.get("card") == EMPTY[1]} == {
        (0, 2)
    }
    state.apply(place(r2, 0, 2))
    (event,) = state.apply(place(r3, 0, 1))  # covers the empty bottle: R R R in a row
    assert event["covered"] == EMPTY[0]
    assert event["formations"] == [{"kind": "row", "slots": [[0, 0], [0, 1], [0, 2]], "points": 4}]
    assert state.covered[0] == [EMPTY[0]]
    assert sorted(state.all_card_locations()) == list(range(66))


def test_a_full_cellar_opens_a_new_one():
    cards = list(range(16))
    slots = [(r, j) for r, length in enumerate((5, 4, 3, 2, 1)) for j in range(length)]
    state = arranged(dict(zip(slots, cards, strict=False)), [cards[15]])
    assert [a for a in state.legal_actions() if a["type"] == "place"] == [place(cards[15], 0, 0, 1)]
    (event,) = state.apply(place(cards[15], 0, 0, 1))
    assert len(state.cellars[0]) == 2
    assert event["points"] == state.stars_of[cards[15]] and event["formations"] == []


def test_auction_totals_must_differ_and_passing_returns_the_turns_cards():
    state = WeinhaendlerState.new(PLAYERS, seed=2, first=0)
    ann_card = state.hands[0][0]
    state.apply({"type": "add", "card": ann_card})
    state.apply({"type": "announce"})
    assert state.to_act == 1
    data = state.to_json()
    # give Ben a card with exactly Ann's total: announcing it is refused
    twin = next(c for c in data["hands"][1])
    data["deck"][twin]["price_cents"] = data["deck"][ann_card]["price_cents"]
    clash = WeinhaendlerState.from_json(data)
    clash.apply({"type": "add", "card": twin})
    assert {"type": "announce"} not in clash.legal_actions()
    with pytest.raises(IllegalAction, match="equals Ann's offer"):
        clash.apply({"type": "announce"})
    clash.apply({"type": "pass"})
    assert twin in clash.hands[1] and clash.offers[1] == []


def test_exchange_gives_the_public_offer_to_the_highest_and_the_lowest_offer_goes_public():
    state = WeinhaendlerState.new(PLAYERS, seed=3, first=0)
    public = list(state.public)
    ann = min(state.hands[0], key=lambda c: state.price_of[c])
    ben = max(state.hands[1], key=lambda c: state.price_of[c])
    state.apply({"type": "add", "card": ann})
    state.apply({"type": "announce"})
    state.apply({"type": "add", "card": ben})
    state.apply({"type": "announce"})
    for _ in range(3):  # Cem passes with nothing, then Ann and Ben
        state.apply({"type": "pass"})
    assert state.phase == "cellar" and state.price_of[ben] > state.price_of[ann]
    # ranking Ben > Ann > Cem: Ben takes the public offer, Ann Ben's card, Cem Ann's card,
    # and Cem's empty offer becomes the public offer
    assert set(public) <= set(state.hands[1])
    assert ben in state.hands[0]
    assert ann in state.hands[2]
    assert state.public == []


def test_equal_empty_offers_rank_the_earlier_passer_lower():
    state = WeinhaendlerState.new(PLAYERS, seed=5, first=0)
    public = list(state.public)
    state.apply({"type": "pass"})  # Ann passes first
    state.apply({"type": "pass"})
    state.apply({"type": "pass"})
    # Cem passed last: ranked highest, takes the public offer; Ann's empty offer goes public
    assert set(public) <= set(state.hands[2])
    assert state.public == []


def test_refill_and_last_round():
    state = WeinhaendlerState.new(PLAYERS, seed=6)
    rng = random.Random(6)
    last_round = None
    while not state.is_terminal():
        round_before = state.round
        state.apply(rng.choice(state.legal_actions()))
        if state.round != round_before:  # a refill happened
            assert len(state.public) == 4 or state.draw == []
            assert last_round is None, "no round may follow the last round"
            if state.last_round:
                last_round = state.round
    assert state.draw == [] and state.round == last_round


def test_random_games_keep_cards_and_scores_consistent():
    for seed in range(150):
        state = WeinhaendlerState.new(["A", "B", "C", "D"][: 3 + seed % 2], seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            assert sorted(state.all_card_locations()) == list(range(66))
        for seat in range(len(state.players)):
            assert state.points[seat] == state.recount(seat)
            breakdown = state.scores()[seat].breakdown
            assert breakdown["stars"] + breakdown["formations"] == state.points[seat]
        assert state.winners()


def test_computer_players_finish_games_reproducibly():
    a = play_game([GreedyPlayer(), SearchPlayer(seed=1), GreedyPlayer()], seed=8)
    b = play_game([GreedyPlayer(), SearchPlayer(seed=1), GreedyPlayer()], seed=8)
    assert a == b
    assert all(p > 0 for p in a.points)
    assert set(a.winners) <= set(a.players)


def test_engine_adviser_gives_legal_actions_through_a_round():
    engine = ENGINES["weinhaendler"]
    state = engine.new_game(["Ann", "Ben", "Cem"], {}, 12)
    while state.round == 1:
        advice = engine.advise(state)
        assert advice.action in state.legal_actions(), advice
        if advice.action["type"] == "add":
            assert advice.action["card"] in advice.details["planned_offer"]
        state.apply(advice.action)
    assert state.phase == "auction" and sorted(state.all_card_locations()) == list(range(66))
