"""care's datasets: the released judge outputs (``care.asset``, ``care.civilcomments``), read from the data root
under ``care/`` with the release's own relative paths, and a user's own judge table (``care.table``).

``toolkit data fetch care.asset`` downloads the release's raw files from github.com/SprocketLab/CARE at a fixed
commit, each checked against its SHA-256. The repository states no licence: the files are the authors' and are
fetched from them, never shipped with this package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from toolkit import Dataset, DataSource
from toolkit.config import ContentPath, Field, Params
from toolkit.errors import DatasetMissingError, UserError

COMMIT = "72f5b29a822d9934d31777c10a5c38369884c9dc"
RAW = f"https://raw.githubusercontent.com/SprocketLab/CARE/{COMMIT}"
TARGET = "care"
TERMS = "no licence stated by the authors (SprocketLab/CARE); fetched from them, not redistributed"

ASSET_JUDGES = {
    "Llama-3.1-8B-Instruct": "b90cec2c5744ee98b2e3f607b0ba1df4a4e90ad8814d8e523f8f207b09e49faf",
    "Llama-3.2-1B": "3d238e57bb9762ae3b46ba8697382318e0077f6f8ee935f10569661dd0d07a45",
    "Llama-3.2-3B": "2e091c3804a8ff7014831a8d895a61e1e68273c51efee31ba09b2440cbf72a4a",
    "Mistral-7B-Instruct-v0.3": "5c772758532af149f06af0d31c2470558a2288806e1324e7a3e2e20889acf72a",
    "Phi-4-mini-instruct": "7693eb102759355a653f4fda6fde7d7d5de0632f8f8a94500c8ef550d5f511cb",
    "Qwen3-0.6B": "a1ba1ab92f764abe49a5c9983ba6657142f93921bb55c33eec0b83ac9fdbb1e6",
    "Qwen3-1.7B": "da5e280b6039f359c779caeaf814f1992b0d62cbd6ce243bf9087146a272e7ef",
    "Qwen3-4B": "5647b8f044024fca1bf475273a4055f90134db0bd363f1983078e043a25f69dd",
    "Qwen3-8B": "67573e812663f3c21ba52a96c6509531e96b57de1ea9f65df3a1f0ad2c827d0f",
    "gemma-3-1b-it": "097e30ac674e3fe0aaeaf00b5cf67c4b0ec1f0dab811f0410f6b8d97538568af",
    "gemma-3-4b-it": "5e7f7d205bd23b3ad3bea67bb8e1f1154c3523f082cda4458795f1119e2fd0cd",
}
CIVIL_JUDGES = {
    "Llama-3.1-8B-Instruct": "7089cb1a5408b54f0d380d14fe7f165849d7f057f9b647337c12b691849e2d5b",
    "Llama-3.2-1B-Instruct": "8c8d9e03165a31fee27c0b627fbae8d9150e651fe4cbbb665f7ee09853d06765",
    "Llama-3.2-1B": "44f61e80d03fce3e8b0a59eec8351b7832cf932fe2e8792902fcb70d8d78253b",
    "Llama-3.2-3B-Instruct": "554098f7d0b40cce8974669422de121765e0f33fbc6995e6f04af7ca3c9c13b7",
    "Llama-3.2-3B": "14652af47b8cb8dfcce8fb0eecc76d1095a5604b7a2151f184c3d4477dce1f35",
    "Meta-Llama-3-8B-Instruct": "d452d3846d92f5fe8862058ffad5a29045a5c60b0f9a4f3be15f18e717f807f8",
    "Mistral-7B-Instruct-v0.2": "bb4d57012713aeefe24480680b58a7f4aecd159e04a7ffa371ef7b0f48cb7643",
    "Mistral-7B-Instruct-v0.3": "2fbe9d8b8682bac781d9742c6d851353d04fd681ee0f250221391bc614685b2b",
    "Phi-4-mini-instruct": "6209225ea32711266c5b5ec6b9915dd0b10570966214b6fbd46bbb50a3af6900",
    "Qwen2.5-0.5B-Instruct": "c4147cc052b52a7c6697c1eeee795b98b742875a3d7ca4eaec12cbf6c2e25d2e",
    "Qwen2.5-1.5B-Instruct": "9aeb8ad983bc433c2031284ad6519a3aecb9aa68aa9cfd178ada060711289716",
    "Qwen2.5-14B-Instruct": "1328b67c272f772d427366c6423a1ded5b864c24ef8a6c2e5872233ecd62e843",
    "Qwen2.5-3B-Instruct": "105d6ea5a543af5c179582c4a7eb40496a1e613d590258d4b4d27f1bfbb8e510",
    "Qwen2.5-7B-Instruct": "333faf54c2ebeafed3092f9f2b5d42fcbdaf4197af0bbf0d037f5713964c113b",
    "Qwen3-0.6B": "993c6032c1a182aa786d0de035875dcad372e12c4123aff4b1749d9cdc9559fe",
    "Qwen3-1.7B": "d0ba018b1215ac0956427d02d591ed16cc6299806847703fa54755c379f4a88e",
    "Qwen3-4B": "d4295529fb806c30e0ebef1fab838511a7377c50cef9fa46c4d252210fe22579",
    "Qwen3-8B": "80b584c22d9c61c23ccaffd4a9291553280fefc1f1695d30f8d85f091d772d61",
    "Yi-1.5-6B-Chat": "d96d216f80e5038276343d59bd4543e6092b59b2fd541f92891d9a4bae717197",
    "Yi-1.5-9B-Chat": "a5cda45db7e3d76b3e70554ea4af5b3c3df21f87a604a921d3b1d1f102b08c78",
    "deepseek-llm-7b-chat": "e084af635b8aa3c4fa4a1f96e6e5a6cce08683353637f7628cbcbfe8a5d6a5e1",
    "gemma-2-9b-it": "eb67ca17f97de5017afb9be20fbd944061ec0a2a6d817feef9b4746da3269b84",
    "gemma-3-1b-it": "63b8757f3cd867c4b897339d87d4048665f978d440e5e36a373d212ee24bd526",
    "gemma-3-4b-it": "7aa72bfa7895bee9b0652ccd240ea202546479322def824d77c9509aaa9b6f88",
}
ASSET_FILES = (
    ("data/score/asset.csv", "695614c96d645423a52a76cbe0293500ebb12cc2bb0a3d6c04d8b0774fdd8b10"),
) + tuple((f"judge_outputs/fully_gaussian/asset/{j}.csv", h) for j, h in ASSET_JUDGES.items())
CIVIL_FILES = (
    ("data/binary/civilcomments.csv", "f36d38c94ddb12d8d001efc61f8ca200e0b62fbb7952f99a4123f64829cfc453"),
) + tuple((f"judge_outputs/gaussian_mixture/civilcomments/{j}.csv", h) for j, h in CIVIL_JUDGES.items())
SOURCES = {
    "care.asset": DataSource(RAW, None, TARGET, license=TERMS, files=ASSET_FILES),
    "care.civilcomments": DataSource(RAW, None, TARGET, license=TERMS, files=CIVIL_FILES),
}


def release_root() -> Path:
    from toolkit.settings import get_settings

    return get_settings().data_dir / TARGET


def _require(name: str) -> Path:
    root = release_root()
    missing = [rel for rel, _ in SOURCES[name].files if not (root / rel).is_file()]
    if missing:
        raise DatasetMissingError(
            f"dataset {name}: {len(missing)} file(s) missing under {root} (first: {missing[0]}); "
            f"get them with `toolkit data fetch {name}`",
            dataset=name,
        )
    return root


class NoParams(Params):
    pass


def load_asset():
    """ASSET: 11 judges' 0-100 ratings and the human rating (a JudgeTable, continuous)."""
    from toolkit_care.tables import load_asset as _load

    return _load(_require("care.asset"))


def load_civilcomments():
    """CivilComments: 24 judges' 0-9 toxicity scores and the 0/1 label (a JudgeTable, binary, threshold 4.5)."""
    from toolkit_care.tables import load_civilcomments as _load

    return _load(_require("care.civilcomments"))


class TableParams(Params):
    path: ContentPath = Field(
        description="a CSV or parquet file: one row per item, one numeric column per judge"
    )
    label: str | None = Field(None, description="the label column, if any (never used by label-free methods)")
    task: Literal["continuous", "binary"] = Field("continuous", description="continuous scores or 0/1 labels")
    label_min: float | None = Field(None, description="smallest allowed label (continuous tasks)")
    label_max: float | None = Field(None, description="largest allowed label (continuous tasks)")
    threshold: float | None = Field(None, description="a judge votes 1 above this score (binary tasks)")


def load_table(path, label=None, task="continuous", label_min=None, label_max=None, threshold=None):
    """A user's judge table, validated (see ``toolkit_care.tables.read_user_table``)."""
    from toolkit_care.tables import TableError, read_user_table

    rng = None if label_min is None or label_max is None else (label_min, label_max)
    try:
        return read_user_table(Path(path), label=label, task=task, label_range=rng, threshold=threshold)
    except TableError as exc:
        raise UserError(str(exc)) from None


DATASETS = [
    Dataset(
        "care.asset",
        "ASSET: 11 LLM judges' 0-100 ratings of 4,500 simplifications beside the human rating (continuous)",
        load_asset,
        NoParams,
        source=SOURCES["care.asset"],
    ),
    Dataset(
        "care.civilcomments",
        "CivilComments: 24 LLM judges' 0-9 toxicity scores of 5,000 comments beside the 0/1 label (binary)",
        load_civilcomments,
        NoParams,
        source=SOURCES["care.civilcomments"],
    ),
    Dataset(
        "care.table",
        "your own judge table (CSV or parquet: items x judges, optional label column), validated",
        load_table,
        TableParams,
    ),
]
