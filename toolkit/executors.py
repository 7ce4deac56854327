"""Executors for sweeps: ``serial``, ``processes``, ``dask``, or any ``concurrent.futures.Executor``.

Each is wrapped in a small adapter with ``submit``, ``as_completed`` and ``close`` so the sweep loop
is the same everywhere. Workers ignore SIGINT: the parent handles Ctrl-C, cancels what is pending
and keeps what finished.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolkit.errors import ParameterError

EXECUTORS = ("serial", "processes", "dask")


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # small numerical work per point: one thread per process is fastest and avoids oversubscription
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


class SerialExecutor:
    """Runs each task in the calling process when its result is asked for (no pickling)."""

    name = "serial"

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return (fn, args)

    def as_completed(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        for task in futures:
            fn, args = task
            yield task, fn(*args)

    def cancel(self, futures: Iterable[Any]) -> None:
        pass

    def close(self) -> None:
        pass


class FuturesExecutor:
    """Adapter for any ``concurrent.futures.Executor`` (the process pool among them)."""

    def __init__(self, executor: cf.Executor, *, owned: bool, name: str = "") -> None:
        self.executor, self.owned = executor, owned
        self.name = name or type(executor).__name__

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.executor.submit(fn, *args)

    def as_completed(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        for fut in cf.as_completed(list(futures)):
            yield fut, fut.result()

    def cancel(self, futures: Iterable[Any]) -> None:
        for fut in futures:
            fut.cancel()

    def close(self) -> None:
        if self.owned:
            self.executor.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """A ``distributed.Client`` at ``address``, or on a fresh LocalCluster when no address is given."""

    name = "dask"

    def __init__(self, address: str | None = None, n_workers: int | None = None, connect_timeout: float | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ParameterError(
                "executor 'dask' needs the distributed package: pip install 'theory-toolkit[dask]'"
            ) from None
        self.cluster = None
        if address:
            try:
                timeout = connect_timeout or float(os.environ.get("TOOLKIT_DASK_TIMEOUT", "20"))
                self.client = Client(address, timeout=f"{timeout}s")
            except (OSError, TimeoutError) as exc:
                raise ParameterError(f"cannot reach the Dask scheduler at --address {address!r}: {exc}") from None
        else:
            self.cluster = LocalCluster(
                n_workers=n_workers or min(2, os.cpu_count() or 1), threads_per_worker=1,
                processes=True, dashboard_address=None,
            )
            self.client = Client(self.cluster)
        self.client.run(_init_worker)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        from distributed import as_completed

        for fut in as_completed(list(futures)):
            yield fut, fut.result()

    def cancel(self, futures: Iterable[Any]) -> None:
        self.client.cancel(list(futures))

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def open_executor(kind: str | cf.Executor | Any = "serial", *, max_workers: int | None = None,
                  address: str | None = None) -> SerialExecutor | FuturesExecutor | DaskExecutor:
    """An executor adapter for ``kind`` (a name from :data:`EXECUTORS` or an executor object)."""
    if isinstance(kind, cf.Executor):
        return FuturesExecutor(kind, owned=False)
    if type(kind).__name__ == "Client" and hasattr(kind, "submit"):  # a distributed.Client given directly
        adapter = DaskExecutor.__new__(DaskExecutor)
        adapter.client, adapter.cluster = kind, None
        adapter.close = lambda: None  # type: ignore[method-assign]  # the caller owns the client
        return adapter
    if kind == "serial":
        return SerialExecutor()
    if kind == "processes":
        if max_workers is not None and max_workers < 1:
            raise ParameterError(f"max_workers must be >= 1, got {max_workers}")
        # fork is fast; after torch is imported its thread pools make fork unsafe
        method = "forkserver" if ("torch" in sys.modules or sys.platform != "linux") else "fork"
        pool = cf.ProcessPoolExecutor(
            max_workers=max_workers or os.cpu_count() or 1,
            mp_context=multiprocessing.get_context(method),
            initializer=_init_worker,
        )
        return FuturesExecutor(pool, owned=True, name="processes")
    if kind == "dask":
        return DaskExecutor(address, max_workers)
    raise ParameterError(f"executor must be one of {', '.join(EXECUTORS)} or an Executor object, got {kind!r}")


__all__ = ["EXECUTORS", "open_executor"]
