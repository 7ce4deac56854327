"""Settings resolved from the environment: data root, store path, device, disabled plugins.

| variable | meaning | default |
|---|---|---|
| ``TOOLKIT_DATA_DIR`` | root of real datasets (e.g. ``<root>/TUDataset/MUTAG/raw``) | ``~/.local/share/theory-toolkit/data`` (``$XDG_DATA_HOME/theory-toolkit/data``) |
| ``TOOLKIT_REQUIRE_DATA`` | ``1``: a test whose dataset is missing fails instead of skipping (CI) | unset |
| ``TOOLKIT_SYMBOLIC_SECONDS`` | CPU seconds per sympy attempt (:mod:`toolkit.symbolic`) | 10 |
| ``TOOLKIT_STORE`` | the SQLite run store file | ``~/.cache/theory-toolkit/runs.sqlite`` |
| ``TOOLKIT_DEVICE`` | torch device: ``cpu``, ``cuda``, ``auto`` | ``auto`` |
| ``TOOLKIT_DISABLE_PLUGINS`` | comma-separated plugin names not to load | empty |
| ``TOOLKIT_DASK_TIMEOUT`` | seconds to wait for a Dask scheduler at --address | 20 |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any


def _default_store() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "theory-toolkit" / "runs.sqlite"


def _default_data_dir() -> Path:
    share = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(share) / "theory-toolkit" / "data"


def disabled_from_env() -> frozenset[str]:
    raw = os.environ.get("TOOLKIT_DISABLE_PLUGINS", "")
    return frozenset(name.strip() for name in raw.split(",") if name.strip())


@dataclass(frozen=True)
class Settings:
    """The resolved settings; passed to the ``toolkit_configure`` hook."""

    data_dir: Path = field(default_factory=_default_data_dir)
    store_path: Path = field(default_factory=_default_store)
    device: str = "auto"
    disabled_plugins: frozenset[str] = frozenset()

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        base = cls()
        return cls(
            data_dir=Path(env["TOOLKIT_DATA_DIR"]).expanduser()
            if env.get("TOOLKIT_DATA_DIR")
            else base.data_dir,
            store_path=Path(env["TOOLKIT_STORE"]).expanduser()
            if env.get("TOOLKIT_STORE")
            else base.store_path,
            device=env.get("TOOLKIT_DEVICE", base.device),
            disabled_plugins=disabled_from_env(),
        )

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def get_settings() -> Settings:
    """Settings from the environment, read anew on each call."""
    return Settings.from_env()


def data_path(*parts: str, settings: Settings | None = None) -> Path:
    """A path under the data root (``TOOLKIT_DATA_DIR``)."""
    return (settings or get_settings()).data_dir.joinpath(*parts)


__all__ = ["Settings", "data_path", "get_settings"]
