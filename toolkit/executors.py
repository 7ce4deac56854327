"""Executors for sweeps: ``serial``, ``processes``, ``dask``, or any ``concurrent.futures.Executor``.

Each is wrapped in a small adapter with ``submit``, ``as_completed``, ``cancel``, ``terminate`` and
``close`` so the sweep loop is the same everywhere. Workers ignore SIGINT: the parent handles Ctrl-C, cancels what is pending,
stores the points that were running as they finish (a second Ctrl-C stops them at once). Process-pool workers also
exit on their own when the parent process dies (even by SIGKILL), so none is left behind.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import sys
import threading
import time
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


def _exit_with_parent(parent: int, interval: float = 0.5) -> None:
    """Exit this worker as soon as ``parent`` is gone (a SIGKILLed parent runs no cleanup of its own)."""
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(1)


def _init_pool_worker() -> None:
    _init_worker()
    # the ppid this worker starts with is the pool's owner (or, under forkserver, the server that exits with it)
    threading.Thread(
        target=_exit_with_parent, args=(os.getppid(),), daemon=True, name="toolkit-parent-watch"
    ).start()


class SerialFuture:
    """A task of the serial executor: computed when ``as_completed`` reaches it; hashable by identity."""

    __slots__ = ("fn", "args", "cancelled")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.fn, self.args, self.cancelled = fn, args, False

    def __repr__(self) -> str:
        return f"<SerialFuture {getattr(self.fn, '__name__', self.fn)} at {id(self):#x}>"


class SerialExecutor:
    """Runs each task in the calling process when its result is asked for (no pickling)."""

    name = "serial"

    def submit(self, fn: Callable[..., Any], *args: Any) -> SerialFuture:
        return SerialFuture(fn, args)

    def as_completed(self, futures: Iterable[SerialFuture]) -> Iterator[tuple[SerialFuture, Any]]:
        for task in futures:
            if not task.cancelled:
                yield task, task.fn(*task.args)

    def cancel(self, futures: Iterable[SerialFuture]) -> None:
        for task in futures:
            task.cancelled = True

    def done(self, futures: Iterable[Any]) -> list[tuple[Any, Any]]:
        return []  # a serial task's result is handed over the moment it exists

    def finish(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        return iter(())  # after cancel nothing of a serial sweep is still running

    def terminate(self) -> None:
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

    def finish(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """After :meth:`cancel`: (future, result) of the tasks that were already running, as they finish."""
        for fut in cf.as_completed([f for f in futures if not f.cancelled()]):
            if not fut.cancelled() and fut.exception() is None:
                yield fut, fut.result()

    def done(self, futures: Iterable[Any]) -> list[tuple[Any, Any]]:
        """(future, result) of every future that finished with a result (the rest are skipped)."""
        out = []
        for fut in futures:
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                out.append((fut, fut.result()))
        return out

    def terminate(self) -> None:
        """Stop the running tasks now: kill an owned pool's worker processes."""
        if not self.owned:
            return
        processes = getattr(self.executor, "_processes", None) or {}
        for proc in list(processes.values()):
            if proc.is_alive():
                proc.terminate()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self.owned:
            self.executor.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """A ``distributed.Client`` at ``address``, or on a fresh LocalCluster when no address is given."""

    name = "dask"

    def __init__(
        self, address: str | None = None, n_workers: int | None = None, connect_timeout: float | None = None
    ) -> None:
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
                raise ParameterError(
                    f"cannot reach the Dask scheduler at --address {address!r}: {exc}"
                ) from None
        else:
            self.cluster = LocalCluster(
                n_workers=n_workers or min(2, os.cpu_count() or 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
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

    def done(self, futures: Iterable[Any]) -> list[tuple[Any, Any]]:
        return [(f, f.result()) for f in futures if f.status == "finished"]

    def finish(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        return iter(self.done(futures))  # cancelled tasks of a cluster do not report back

    def terminate(self) -> None:
        pass  # cancelling is all a client can do; the cluster's workers are not ours to kill

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def process_pool(max_workers: int | None = None, *, method: str | None = None) -> cf.ProcessPoolExecutor:
    """The pool behind ``processes``: workers ignore SIGINT, use one BLAS thread and die with their parent."""
    if max_workers is not None and max_workers < 1:
        raise ParameterError(f"max_workers must be >= 1, got {max_workers}")
    if method is None:  # fork is fast; after torch is imported its thread pools make fork unsafe
        method = "forkserver" if ("torch" in sys.modules or sys.platform != "linux") else "fork"
    return cf.ProcessPoolExecutor(
        max_workers=max_workers or os.cpu_count() or 1,
        mp_context=multiprocessing.get_context(method),
        initializer=_init_pool_worker,
    )


def open_executor(
    kind: str | cf.Executor | Any = "serial", *, max_workers: int | None = None, address: str | None = None
) -> SerialExecutor | FuturesExecutor | DaskExecutor:
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
        return FuturesExecutor(process_pool(max_workers), owned=True, name="processes")
    if kind == "dask":
        return DaskExecutor(address, max_workers)
    raise ParameterError(
        f"executor must be one of {', '.join(EXECUTORS)} or an Executor object, got {kind!r}"
    )


__all__ = ["EXECUTORS", "open_executor"]
