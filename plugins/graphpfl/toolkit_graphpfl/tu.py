"""TU graph datasets: the catalogue of official sources, discovery under the data root, a validating reader.

TU raw format (https://chrsmrrs.github.io/datasets/docs/format/), under
``<data root>/TUDataset/<NAME>/raw/``: ``NAME_A.txt`` (1-based ``i, j`` edge lines),
``NAME_graph_indicator.txt`` (graph id of each node, nodes grouped by graph),
``NAME_graph_labels.txt`` (one label per graph), optional ``NAME_node_labels.txt`` (one or more
comma-separated integers per node, e.g. Cuneiform's two label components), ``NAME_node_attributes.txt``
(comma-separated floats per node), ``NAME_edge_labels.txt`` and ``NAME_edge_attributes.txt`` (one line per
line of ``NAME_A.txt``: validated, then ignored by the models, which read the adjacency only; an
:class:`EdgeFeaturesIgnoredWarning` says so once per dataset).

Every file is checked before anything is built from it; a broken file raises :class:`TUFormatError`
naming the file, the 1-based line and the rule it breaks. Discovery (:func:`present_tu_names`) is
a directory listing only: it runs at plugin registration, so it imports neither numpy nor pandas.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import DatasetMissingError, UserError

TU_REQUIRED = ("A", "graph_indicator", "graph_labels")
TU_OPTIONAL = ("node_labels", "node_attributes", "edge_labels", "edge_attributes")
TU_FOLDER = "TUDataset"
TU_URL = "https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"
TU_LICENSE = (
    "TUDataset collection (Morris et al. 2020, https://chrsmrrs.github.io/datasets/): for research use; "
    "cite the collection and the dataset's original source named in its README.txt"
)

# SHA-256 of each official zip. The TU site publishes no checksums; these are the ones GraphDatasets.jl
# (github.com/simonschoelly/GraphDatasets.jl, src/TUDatasets.jl) registers for the same URLs with DataDeps.
# None where no published checksum was found (COX2, PROTEINS): the fetch then says it cannot verify.
TU_SHA256: dict[str, str | None] = {
    "MUTAG": "c419bdc853c367d2d83da4973c45100954ae15e10f5ae2cddde6ca431f8207f6",
    "Mutagenicity": "6230f94ba246b76834fb51ffa138370477b7bf8a784ade92c5e0586780d2ae0e",
    "NCI1": "10e1458f3bd9224f14e6d7627e74dcfd13e48d376d73935e7bd2900590ef1d82",
    "NCI109": "96e521a294e3e9c088540e9e9caccf55e4ca6e97cf468d68445814467956abaf",
    "BZR": "584cb76f63cf5d0459cabfa254603b4e89823de0c03c96d60ab338f2d71a8b55",
    "PTC_MR": "5699a6d9f1bc5b3d71495f09ef50de53fa3e6bb24ead1150da678500229f5237",
    "ENZYMES": "13d832eb6ffa084192daf6e5750250028a18437ee692c38d29a10cd60e18aaf4",
    "DD": "d033d7aeb1a48c4b2b47cf0390e7fc9671de70d98c8df5b11e458d2ec5515cd2",
    "AIDS": "ef65a8095846588ffd6e17f95c1968a247d8ada7295a61209c401bda23d19ab9",
    "COX2": None,
    "PROTEINS": None,
}
KNOWN_TU = tuple(TU_SHA256)  # the catalogue: registered (and fetchable) even where absent


def tu_source(name: str):
    """The official download of TU dataset ``name`` as a :class:`toolkit.specs.DataSource`.

    The zip holds ``NAME/NAME_*.txt``; it unpacks into ``TUDataset/NAME/raw`` (one component stripped),
    the layout this loader and PyG's ``TUDataset`` read.
    """
    from toolkit.specs import DataSource

    return DataSource(
        url=TU_URL.format(name=name),
        sha256=TU_SHA256.get(name),
        target=f"{TU_FOLDER}/{name}/raw",
        unpack="zip",
        strip_components=1,
        license=TU_LICENSE,
    )


def data_root(root: str | Path | None = None) -> Path:
    if root is not None:
        return Path(root)
    from toolkit.settings import get_settings  # the toolkit owns the data-root setting

    return get_settings().data_dir


def present_tu_names(root: str | Path | None = None) -> list[str]:
    """Names of the TU datasets under the data root (folders with a ``raw/NAME_A.txt``); a listing only."""
    base = data_root(root) / TU_FOLDER
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return []
    return [n for n in entries if (base / n / "raw" / f"{n}_A.txt").is_file()]


PLANTED_DESCRIPTION = "synthetic graphs whose label is a planted motif"


def tu_description(name: str) -> str:
    if name in KNOWN_TU:
        return f"TU {name} (raw files under the data root; `toolkit data fetch graphpfl.{name.lower()}`)"
    return f"TU {name} (your raw files under the data root)"


def tu_names(root: str | Path | None = None) -> list[str]:
    """The catalogue's TU datasets and every other one present under the data root, sorted."""
    return sorted({*KNOWN_TU, *present_tu_names(root)}, key=str.lower)


def tu_catalogue(root: str | Path | None = None) -> dict[str, str]:
    """Registered name -> description of every TU dataset (what registration lists, cheaply)."""
    return {f"graphpfl.{n.lower()}": tu_description(n) for n in tu_names(root)}


def resolve_tu_name(name: str, root: str | Path | None = None) -> str:
    """The dataset's spelling on disk (or in the catalogue) for a name given in any case."""
    for candidate in (*present_tu_names(root), *KNOWN_TU):
        if candidate.lower() == name.lower():
            return candidate
    return name


def tu_raw_dir(name: str, root: str | Path | None = None) -> Path:
    return data_root(root) / TU_FOLDER / name / "raw"


def missing_message(name: str, raw: Path, missing: list[str]) -> str:
    """What is missing and how to get it: a fetch only for datasets with a known source (the catalogue)."""
    head = (
        f"TU dataset {name!r}: missing {', '.join(missing)} in {raw} (a TU dataset needs "
        f"{', '.join(f'{name}_{p}.txt' for p in TU_REQUIRED)}; optional: "
        f"{', '.join(f'{name}_{p}.txt' for p in TU_OPTIONAL)}). "
    )
    if name in KNOWN_TU:
        return head + (
            f"Get it with `toolkit data fetch graphpfl.{name.lower()}` (official source "
            f"{TU_URL.format(name=name)}), or set TOOLKIT_DATA_DIR to the folder that holds {TU_FOLDER}/<NAME>/raw/."
        )
    if (raw / f"{name}_A.txt").is_file() or raw.is_dir():
        return head + f"{name} is not in the catalogue of downloadable TU datasets: add the missing file(s)."
    return head + (
        f"{name} is not in the catalogue of downloadable TU datasets "
        f"({', '.join(KNOWN_TU)}): put its raw files there, or set TOOLKIT_DATA_DIR to the folder that holds "
        f"{TU_FOLDER}/<NAME>/raw/."
    )


class TUFormatError(UserError, ValueError):
    """A TU raw file breaks the format: the message names the file, the 1-based line and the rule."""

    def __init__(self, path: Path | str, line: int | None, rule: str):
        self.path, self.line, self.rule = Path(path), line, rule
        where = f"{self.path}, line {line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {rule}")


class EdgeFeaturesIgnoredWarning(UserWarning):
    """Edge labels or attributes were read and validated, but the models use the adjacency only."""


@dataclass(frozen=True)
class TURaw:
    """A TU dataset's validated arrays (0-based ids)."""

    name: str
    edges: object  # (m, 2) int64, node ids 0..n-1, both ends in the same graph
    indicator: object  # (n,) int64, graph id 0..G-1 per node, non-decreasing
    graph_labels: object  # (G,) int64 as in the file
    node_labels: object | None  # (n, k) int64 (k label components, one-hot each) or None
    node_attributes: object | None  # (n, d) float64 or None
    source: str
    edge_parts: tuple[str, ...] = ()  # edge files present and valid (edge_labels, edge_attributes)


def _lines(path: Path) -> list[str]:
    """The file's lines; trailing blank lines dropped (many TU files end with one)."""
    lines = path.read_text().splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _parse_table(path: Path, kind: type, n_cols: int | None):
    """(rows, cols) array of ``kind`` values; ``n_cols`` fixed (or None: every line as wide as the first).

    Fast path: pandas' C parser; any doubt (a parse error, a blank or ragged line, a width other
    than ``n_cols``) falls back to the line-by-line reader, which names the first bad line.
    """
    import numpy as np

    fast = _parse_fast(path, kind, n_cols)
    if fast is not None:
        return fast
    lines = _lines(path)
    if not lines:
        raise TUFormatError(path, None, "the file is empty")
    rows = []
    want = n_cols
    what = "integers" if kind is int else "numbers"
    for i, text in enumerate(lines, start=1):
        fields = [f.strip() for f in text.split(",")]
        if want is None:
            want = len(fields)
        if len(fields) != want:
            raise TUFormatError(
                path,
                i,
                f"expected {want} comma-separated {what} per line, got {len(fields)} ({text.strip()!r})",
            )
        try:
            rows.append([kind(f) for f in fields])
        except ValueError:
            bad = next(f for f in fields if not _parses(kind, f))
            raise TUFormatError(path, i, f"expected {what}, got {bad!r}") from None
    dtype = np.int64 if kind is int else np.float64
    arr = np.array(rows, dtype=dtype)
    if kind is float and not np.isfinite(arr).all():
        row = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise TUFormatError(path, row + 1, "attributes must be finite numbers (no nan or inf)")
    return arr


def _parse_fast(path: Path, kind: type, n_cols: int | None):
    import numpy as np
    import pandas as pd

    try:
        df = pd.read_csv(
            path,
            header=None,
            sep=",",
            skipinitialspace=True,
            skip_blank_lines=False,
            dtype=np.int64 if kind is int else np.float64,
        )
    except (ValueError, TypeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    arr = df.to_numpy()
    if arr.size == 0 or (n_cols is not None and arr.shape[1] != n_cols):
        return None
    if kind is float and not np.isfinite(arr).all():  # blank or short lines read as nan
        return None
    return arr


def _parses(kind: type, text: str) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def read_tu_raw(name: str, raw: Path) -> TURaw:
    """Read and validate every file of TU dataset ``name`` in ``raw`` (see the module docstring's rules)."""
    import numpy as np

    f = lambda part: raw / f"{name}_{part}.txt"
    indicator = _parse_table(f("graph_indicator"), int, 1)[:, 0]
    n_nodes = len(indicator)
    if indicator[0] != 1:
        raise TUFormatError(f("graph_indicator"), 1, f"graph ids start at 1, got {indicator[0]}")
    step = np.diff(indicator)
    bad = np.flatnonzero((step != 0) & (step != 1))
    if bad.size:
        i = int(bad[0])
        raise TUFormatError(
            f("graph_indicator"),
            i + 2,
            f"nodes are grouped by graph with graph ids 1, 2, 3, ... without gaps: graph id "
            f"{indicator[i + 1]} follows {indicator[i]}",
        )
    n_graphs = int(indicator[-1])

    edges = _parse_table(f("A"), int, 2)
    out = (edges < 1) | (edges > n_nodes)
    if out.any():
        row = int(np.flatnonzero(out.any(axis=1))[0])
        raise TUFormatError(
            f("A"),
            row + 1,
            f"node ids run from 1 to {n_nodes} (the lines of "
            f"{name}_graph_indicator.txt), got {edges[row].tolist()}",
        )
    edges = edges - 1
    g0, g1 = indicator[edges[:, 0]], indicator[edges[:, 1]]
    cross = np.flatnonzero(g0 != g1)
    if cross.size:
        row = int(cross[0])
        raise TUFormatError(
            f("A"),
            row + 1,
            f"an edge joins two nodes of the same graph; edge "
            f"{(edges[row] + 1).tolist()} joins graph {g0[row]} and graph {g1[row]}",
        )

    graph_labels = _parse_table(f("graph_labels"), int, 1)[:, 0]
    if len(graph_labels) != n_graphs:
        raise TUFormatError(
            f("graph_labels"),
            min(len(graph_labels), n_graphs) + 1,
            f"one label per graph: {n_graphs} graphs in {name}_graph_indicator.txt, "
            f"{len(graph_labels)} lines here",
        )
    node_labels = attrs = None
    if f("node_labels").is_file():
        node_labels = _parse_table(f("node_labels"), int, None)
        _check_per_node(f("node_labels"), len(node_labels), n_nodes, name)
    if f("node_attributes").is_file():
        attrs = _parse_table(f("node_attributes"), float, None)
        _check_per_node(f("node_attributes"), len(attrs), n_nodes, name)
    edge_parts = []
    for part, kind in (("edge_labels", int), ("edge_attributes", float)):
        if f(part).is_file():
            n_lines = len(_parse_table(f(part), kind, None))
            if n_lines != len(edges):
                raise TUFormatError(
                    f(part),
                    min(n_lines, len(edges)) + 1,
                    f"one line per edge: {len(edges)} lines in {name}_A.txt, {n_lines} lines here",
                )
            edge_parts.append(part)
    return TURaw(name, edges, indicator - 1, graph_labels, node_labels, attrs, str(raw), tuple(edge_parts))


def _check_per_node(path: Path, n_lines: int, n_nodes: int, name: str) -> None:
    if n_lines != n_nodes:
        raise TUFormatError(
            path,
            min(n_lines, n_nodes) + 1,
            f"one line per node: {n_nodes} nodes in {name}_graph_indicator.txt, {n_lines} lines here",
        )


def require_files(name: str, raw: Path) -> None:
    missing = [f"{name}_{part}.txt" for part in TU_REQUIRED if not (raw / f"{name}_{part}.txt").is_file()]
    if missing:
        raise DatasetMissingError(missing_message(name, raw, missing), dataset=f"graphpfl.{name.lower()}")
