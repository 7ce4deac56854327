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
from typing import Any, cast

from toolkit.errors import ParameterError

EXECUTORS = ("serial", "processes", "dask")


def _init_worker() -> None:
    if threading.current_thread() is threading.main_thread():  # a threaded Dask worker shares its process's
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


def _probe_scheduler(address: str, timeout: float) -> None:
    """Fail fast, naming ``address``, unless a Dask scheduler answers there within ``timeout`` seconds.

    A scheduler speaks first (its handshake); a web server or a stuck service says nothing, and the
    first 8 bytes of a Dask frame give a plausible length. Only plain TCP addresses are probed.
    """
    import socket
    import urllib.parse

    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return
    parsed = urllib.parse.urlsplit("//" + rest)
    try:
        host, port = parsed.hostname, parsed.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise ParameterError(
            f"--address must be a Dask scheduler address such as tcp://host:8786, got {address!r}"
        )
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            head = b""
            while len(head) < 8:
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    break
                head += chunk
    except TimeoutError:
        raise ParameterError(
            f"no Dask scheduler answered at --address {address!r} within {timeout:g} s "
            "(TOOLKIT_DASK_TIMEOUT): the service there accepted the connection but is not a Dask "
            "scheduler, or is stuck. Check the address (the scheduler's port, usually 8786)."
        ) from None
    except OSError as exc:
        raise ParameterError(
            f"cannot reach the Dask scheduler at --address {address!r}: {exc.strerror or exc}. "
            "Is the scheduler running, and is the address (usually tcp://host:8786) right?"
        ) from None
    if len(head) < 8 or int.from_bytes(head, "little") > 1 << 32:
        shown = head[:8].decode("latin-1").encode("unicode_escape").decode()
        raise ParameterError(
            f"the service at --address {address!r} is not a Dask scheduler (it answered {shown!r}). "
            "Check the address (the scheduler's port, usually 8786)."
        )


class DaskExecutor:
    """A ``distributed.Client`` at ``address``, or on a fresh LocalCluster when no address is given."""

    name = "dask"
    address: str | None = None

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
        self.address = address
        if address:
            timeout = connect_timeout or _dask_timeout()
            _probe_scheduler(address, timeout)
            try:
                self.client = Client(address, timeout=f"{timeout}s")
            except Exception as exc:  # whatever the handshake met, say where
                raise ParameterError(
                    f"cannot reach the Dask scheduler at --address {address!r}: "
                    f"{type(exc).__name__}: {str(exc)[:200]}"
                ) from None
        else:
            self.cluster = LocalCluster(
                n_workers=n_workers or min(2, os.cpu_count() or 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            self.client = Client(self.cluster)
            self.address = self.cluster.scheduler_address
        self.client.run(_init_worker)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        from distributed import as_completed

        with _quiet_distributed():
            for fut in as_completed(list(futures)):
                yield fut, fut.result()

    def cancel(self, futures: Iterable[Any]) -> None:
        """Cancel the tasks no worker has started; the running ones finish (see :meth:`finish`)."""
        futures = list(futures)
        with _quiet_distributed():
            try:
                processing = {k for keys in self.client.processing().values() for k in keys}
            except Exception:  # a lost scheduler: nothing is running any more
                processing = set()
            try:  # asked after `processing`: a task that ended in between is held in memory, not lost
                held = {k for k, workers in self.client.who_has(futures).items() if workers}
            except Exception:
                held = set()
            # a task whose result a worker holds has finished, though this client may not know it yet
            self._running = [
                f for f in futures if (f.key in processing or f.key in held) and f.status == "pending"
            ]
            pending = [f for f in futures if f.key not in processing and f.key not in held]
            try:
                self.client.cancel(pending)
            except Exception:  # a lost scheduler cannot be told: its tasks are gone anyway
                pass

    def done(self, futures: Iterable[Any]) -> list[tuple[Any, Any]]:
        """(future, result) of every finished future; results that cannot be fetched any more are skipped."""
        out = []
        with _quiet_distributed():
            for f in futures:
                if f.status != "finished":
                    continue
                try:
                    out.append((f, f.result(timeout=_dask_timeout())))
                except Exception:  # its worker or the scheduler is gone: the point runs again next time
                    continue
        return out

    def finish(self, futures: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """After :meth:`cancel`: (future, result) of the tasks that were running, as they finish."""
        from distributed import as_completed

        live = [f for f in futures if f.status in ("pending", "finished")]
        with _quiet_distributed():
            for fut in as_completed(live):
                if fut.status != "finished":
                    continue
                try:
                    outcome = fut.result(timeout=_dask_timeout())
                except Exception:
                    continue
                yield fut, outcome

    def scheduler_lost(self) -> bool:
        status = str(getattr(self.client, "status", "running"))
        if status not in ("running", "newly-created"):
            return True
        comm = getattr(self.client, "scheduler_comm", None)
        inner = getattr(comm, "comm", None)
        return bool(comm is None or inner is None or inner.closed())

    def explain(self, exc: BaseException) -> str | None:
        """A one-line cause of a failed sweep when it is the scheduler's, else None."""
        if self.scheduler_lost() or "scheduler" in str(exc).lower():
            return (
                f"the connection to the Dask scheduler at {self.address} was lost (the scheduler stopped, "
                "or the network to it failed)"
            )
        return None

    def terminate(self) -> None:
        """Stop at once: cancel what still runs, and kill the worker processes of our own LocalCluster."""
        running, self._running = getattr(self, "_running", []), []
        if running:
            with _quiet_distributed():
                try:
                    self.client.cancel(running)
                except Exception:
                    pass
        if self.cluster is None:
            return
        for worker in list(getattr(self.cluster, "workers", {}).values()):
            pid = getattr(getattr(worker, "process", None), "pid", None)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self.cluster = None

    def close(self) -> None:
        with _quiet_distributed():
            try:
                self.client.close(timeout=_dask_timeout())
            except Exception:  # a lost scheduler: nothing left to close
                pass
            if self.cluster is not None:
                self.cluster.close(timeout=_dask_timeout())


def _dask_timeout() -> float:
    raw = os.environ.get("TOOLKIT_DASK_TIMEOUT", "20")
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ParameterError(f"TOOLKIT_DASK_TIMEOUT must be a positive number of seconds, got {raw!r}")
    return value


class _quiet_distributed:
    """While a sweep talks to a cluster, ``distributed`` logs one line per event, without tracebacks:
    a lost scheduler is reported by the sweep in one message."""

    def __enter__(self) -> None:
        import logging

        self.filters = []
        for handler in logging.getLogger("distributed").handlers:
            filt = _NoTraceback()
            handler.addFilter(filt)
            self.filters.append((handler, filt))

    def __exit__(self, *exc: object) -> None:
        for handler, filt in self.filters:
            handler.removeFilter(filt)


class _NoTraceback:
    def filter(self, record: Any) -> bool:
        message = str(record.getMessage()).strip()
        if not message:  # the line that only introduced a traceback
            return False
        if record.name.startswith("distributed.client") and "scheduler" in message.lower():
            return False  # a lost scheduler: the sweep's own message says it once
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        return True


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
        adapter.client, adapter.cluster = cast(Any, kind), None
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
