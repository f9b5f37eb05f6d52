"""Game ids and edit tokens: random, URL-safe; tokens are stored only as SHA-256 hashes.

Tokens carry 192 random bits, so a plain SHA-256 (no salt, no slow hash) is enough: there is
nothing to brute-force as with a password.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_game_id() -> str:
    """An unguessable game id (128 random bits, 22 URL-safe characters)."""
    return secrets.token_urlsafe(16)


def new_scoring_id() -> str:
    """An unguessable id for a scored photo (128 random bits)."""
    return secrets.token_urlsafe(16)


def new_edit_token() -> str:
    """A fresh edit token (192 random bits, 32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str, token_sha256: str) -> bool:
    """Constant-time check of ``token`` against a stored hash."""
    return hmac.compare_digest(hash_token(token), token_sha256)
