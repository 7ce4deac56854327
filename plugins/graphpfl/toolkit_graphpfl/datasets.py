"""Dataset records of the graphpfl plugin: every TU dataset (the catalogue and any under the data root) and
the synthetic planted-motif set.

Registration is cheap: a directory listing of ``<data root>/TUDataset`` and the catalogue of
official sources (:mod:`toolkit_graphpfl.tu`); no numpy, pandas or torch until a loader runs or
``toolkit show`` asks for a dataset's statistics.
"""

from __future__ import annotations

from typing import Literal

from toolkit.config import Field, Params
from toolkit.specs import Dataset
from toolkit_graphpfl.tu import (
    KNOWN_TU,
    PLANTED_DESCRIPTION,
    TU_FOLDER,
    tu_description,
    tu_names,
    tu_source,
)


class PlantedParams(Params):
    n_graphs: int = Field(200, ge=2, description="number of graphs")
    n_classes: int = Field(2, ge=2, le=4, description="classes (one planted motif each)")
    edge_prob: float = Field(0.12, gt=0.0, lt=1.0, description="background Erdos-Renyi edge probability")
    seed: int = Field(0, ge=0, description="seed")


class TUParams(Params):
    features: Literal["labels+attributes", "labels", "attributes"] = Field(
        "labels+attributes", description="node features: one-hot node labels, continuous attributes, or both"
    )
    attribute_columns: list[int] | None = Field(
        None, description="attribute columns kept, 0-based (default all)"
    )


def _planted(**kwargs):
    from toolkit_graphpfl.data import make_planted_motifs

    return make_planted_motifs(**kwargs)


_planted.__doc__ = (
    "Synthetic graphs whose label is a planted motif (Erdos-Renyi background, one motif per class, "
    "node features independent of the label)."
)


class TULoader:
    """Loads one TU dataset; its docstring (what ``toolkit show`` prints) holds the dataset's statistics,
    computed from the files when first asked for, never at registration."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, features: str = "labels+attributes", attribute_columns=None):
        from toolkit_graphpfl.data import load_tu

        return load_tu(self.name, features=features, attribute_columns=attribute_columns)

    @property
    def __doc__(self) -> str:  # type: ignore[override]
        from toolkit.errors import DatasetMissingError

        head = f"TU dataset {self.name}: raw files under <TOOLKIT_DATA_DIR>/{TU_FOLDER}/{self.name}/raw" + (
            f"; official source {tu_source(self.name).url}"
            if self.name in KNOWN_TU
            else " (no download source)"
        )
        try:
            gs = self()
        except DatasetMissingError as exc:
            return f"{head}\n\n{exc}"
        from toolkit_graphpfl.data import describe

        d = describe(gs)
        balance = ", ".join(f"label {k}: {v}" for k, v in d["class_balance"].items())
        layout = "; ".join(d["feature_layout"])
        return (
            f"{head}\n\nstatistics (default features):\n"
            f"  graphs        {d['graphs']}\n  classes       {d['classes']} ({balance})\n"
            f"  mean nodes    {d['mean_nodes']:.2f}\n  mean edges    {d['mean_edges']:.2f} (undirected)\n"
            f"  features      {d['features']}: {layout}"
        )


def tu_datasets() -> list[Dataset]:
    """One record per TU dataset of the catalogue or present under the data root (names lower-cased)."""
    return [
        Dataset(
            name=f"graphpfl.{n.lower()}",
            description=tu_description(n),
            loader=TULoader(n),
            params=TUParams,
            source=tu_source(n) if n in KNOWN_TU else None,  # a fetch only where a source is known
        )
        for n in tu_names()
    ]


DATASETS = [
    Dataset(name="graphpfl.planted", description=PLANTED_DESCRIPTION, loader=_planted, params=PlantedParams),
    *tu_datasets(),
]
