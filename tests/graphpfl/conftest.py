"""Shared fixtures of the graphpfl tests: small federations, a registry with only this plugin, scripts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def graphpfl_registry():
    """A registry built from graphpfl alone, so other plugins' state cannot break these tests."""
    import toolkit_graphpfl as gp

    import toolkit
    from toolkit.registry import Registry

    return Registry.from_manager(toolkit.get_plugin_manager(load_entrypoints=False, plugins=[gp]))


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def load_script():
    """Import a script of the repository (``plugins/graphpfl/studies/...py``, ``plugins/graphpfl/benchmarks/...py``) as a module."""

    def load(relative_path: str):
        path = REPO / relative_path
        spec = importlib.util.spec_from_file_location(f"{path.stem}_under_test", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture(scope="session")
def planted():
    from toolkit_graphpfl.data import make_planted_motifs

    return make_planted_motifs(n_graphs=60, seed=3)


@pytest.fixture()
def small_federation(planted):
    from toolkit_graphpfl.federation import build_clients
    from toolkit_graphpfl.graphs import partition_random
    from toolkit_graphpfl.model import ModelConfig

    parts = partition_random(len(planted), 3, np.random.default_rng(0))
    clients = build_clients(planted, parts, batch_size=8, seed=0)
    return clients, ModelConfig(planted.n_features, planted.n_classes, hidden=16)
