"""What a roll of two dice ``(a, b)`` makes happen, and exact probabilities over all 36 rolls.

All probabilities are :class:`fractions.Fraction` computed by enumerating the 36 equally
likely ordered outcomes, so ``8/36`` no-action rolls and a mean turn of ``9/2`` rolls are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

FACES = range(1, 7)
OUTCOMES: tuple[tuple[int, int], ...] = tuple((a, b) for a in FACES for b in FACES)
"""The 36 equally likely ordered outcomes of two dice."""


@dataclass(frozen=True)
class RollEffects:
    """Everything a roll makes happen (all that apply are carried out).

    ``biermann_sip``: a 3 on either die or a sum of 3 — the Biermann drinks 1.
    ``left_sip`` / ``right_sip``: sum 6 / sum 8, not a doublet — the roller's left / right
    neighbour drinks 1. ``nose``: sum 7 — the last to touch his nose drinks 1.
    ``roller_sip``: 1-1 — the roller drinks 1. ``hand_out``: n-n with n >= 2 — the roller hands
    out n sips among the others (0 otherwise).
    """

    biermann_sip: bool
    left_sip: bool
    right_sip: bool
    nose: bool
    roller_sip: bool
    hand_out: int

    @property
    def is_action(self) -> bool:
        """Whether the roll causes an action (the roller then rolls again)."""
        return (
            self.biermann_sip
            or self.left_sip
            or self.right_sip
            or self.nose
            or self.roller_sip
            or self.hand_out > 0
        )


def check_die(value: object) -> int:
    """A die's face as an int 1..6, or ``ValueError`` with the reason."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
        raise ValueError(f"a die shows 1 to 6, got {value!r}")
    return value


def roll_effects(a: int, b: int) -> RollEffects:
    """The effects of rolling ``a`` and ``b`` (faces 1..6)."""
    s = a + b
    doublet = a == b
    return RollEffects(
        biermann_sip=a == 3 or b == 3 or s == 3,
        left_sip=s == 6 and not doublet,
        right_sip=s == 8 and not doublet,
        nose=s == 7,
        roller_sip=a == b == 1,
        hand_out=a if doublet and a >= 2 else 0,
    )


def probability(event: Callable[[int, int], bool]) -> Fraction:
    """Exact probability that one roll satisfies ``event(a, b)``."""
    return Fraction(sum(1 for a, b in OUTCOMES if event(a, b)), len(OUTCOMES))


def no_action_rolls() -> list[tuple[int, int]]:
    """The ordered outcomes that cause nothing (1-4, 4-5, 4-6, 5-6 either way: 8 of 36)."""
    return [(a, b) for a, b in OUTCOMES if not roll_effects(a, b).is_action]


def p_no_action() -> Fraction:
    """Probability that a roll ends the turn (2/9)."""
    return probability(lambda a, b: not roll_effects(a, b).is_action)


def expected_rolls_per_turn() -> Fraction:
    """Mean number of rolls in a turn, the last (no-action) one included: 1 / p = 9/2."""
    return 1 / p_no_action()


def turn_length_probability(rolls: int) -> Fraction:
    """Probability that a turn lasts exactly ``rolls`` rolls (geometric)."""
    if rolls < 1:
        return Fraction(0)
    p = p_no_action()
    return (1 - p) ** (rolls - 1) * p


def expected_sips_per_roll() -> dict[str, Fraction]:
    """Mean sips one roll sends to each role (the nose sip counted once, to the last one)."""
    roles = {
        "biermann": lambda e: int(e.biermann_sip),
        "left_neighbour": lambda e: int(e.left_sip),
        "right_neighbour": lambda e: int(e.right_sip),
        "last_to_nose": lambda e: int(e.nose),
        "roller": lambda e: int(e.roller_sip),
        "handed_out": lambda e: e.hand_out,
    }
    effects = [roll_effects(a, b) for a, b in OUTCOMES]
    return {role: Fraction(sum(f(e) for e in effects), len(effects)) for role, f in roles.items()}


def expected_sips_per_turn() -> dict[str, Fraction]:
    """Mean sips per turn by role: by Wald's identity, mean rolls per turn x mean per roll."""
    rolls = expected_rolls_per_turn()
    return {role: rolls * p for role, p in expected_sips_per_roll().items()}
