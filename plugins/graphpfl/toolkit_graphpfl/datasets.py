"""Dataset records of the graphpfl plugin (TU loaders from the data root and the synthetic set)."""

from __future__ import annotations

from toolkit.config import Field, Params
from toolkit.specs import Dataset

from toolkit_graphpfl.data import KNOWN_TU, load_tu, make_planted_motifs


class PlantedParams(Params):
    n_graphs: int = Field(200, ge=2, description="number of graphs")
    n_classes: int = Field(2, ge=2, le=4, description="classes (one planted motif each)")
    edge_prob: float = Field(0.12, gt=0.0, lt=1.0, description="background Erdos-Renyi edge probability")
    seed: int = Field(0, ge=0, description="seed")


def _tu_loader(name: str):
    def load():
        return load_tu(name)

    load.__doc__ = f"TU dataset {name} from <TOOLKIT_DATA_DIR>/TUDataset/{name}/raw"
    return load


DATASETS = [
    Dataset(name="graphpfl.planted", description="synthetic graphs whose label is a planted motif",
            loader=make_planted_motifs, params=PlantedParams),
    *[Dataset(name=f"graphpfl.{n.lower()}", description=f"TU {n} (raw files under the data root)", loader=_tu_loader(n))
      for n in KNOWN_TU],
]
