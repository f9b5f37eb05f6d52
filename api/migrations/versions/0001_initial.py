"""Initial schema: photos, scorings, games, players, rounds, corrections.

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("edit_token_sha256", sa.String(length=64), nullable=False),
        sa.Column("components", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "photos",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("media_type", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256"),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("color", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "color"),
        sa.UniqueConstraint("game_id", "seat"),
    )
    op.create_index(op.f("ix_players_game_id"), "players", ["game_id"], unique=False)
    op.create_table(
        "scorings",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("photo_sha256", sa.String(length=64), nullable=False),
        sa.Column("annotated_sha256", sa.String(length=64), nullable=False),
        sa.Column("components", sa.String(length=64), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["photo_sha256"],
            ["photos.sha256"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_scorings_photo_sha256"), "scorings", ["photo_sha256"], unique=False)
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("scoring_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(
            ["scoring_id"],
            ["scorings.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "number"),
    )
    op.create_index(op.f("ix_rounds_game_id"), "rounds", ["game_id"], unique=False)
    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("money", sa.JSON(), nullable=False),
        sa.Column("corrected_by", sa.String(length=80), nullable=False),
        sa.Column("note", sa.String(length=500), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_corrections_round_id"), "corrections", ["round_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_corrections_round_id"), table_name="corrections")
    op.drop_table("corrections")
    op.drop_index(op.f("ix_rounds_game_id"), table_name="rounds")
    op.drop_table("rounds")
    op.drop_index(op.f("ix_scorings_photo_sha256"), table_name="scorings")
    op.drop_table("scorings")
    op.drop_index(op.f("ix_players_game_id"), table_name="players")
    op.drop_table("players")
    op.drop_table("photos")
    op.drop_table("games")
