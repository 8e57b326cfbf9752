"""Starting or joining Ray for `--ray local|ADDRESS`: the one way training's self-play and a
match's games get their cluster.

`local` always starts a new instance of this machine's cores (never one found running here or
in RAY_ADDRESS); an address joins that cluster, after a quick check that something answers
there (Ray itself retries a dead address for minutes). ray.init puts its own handler on
SIGTERM, which aborts the driver; the caller's handlers are put back.

`ray` is imported only when a cluster is asked for: without --ray nothing loads it. This
lives beside the trainer because only the train extra brings Ray; the match's games reach it
through the runner `gomoku match --ray` hands the arena (train.raygames).
"""
from __future__ import annotations

import importlib.util
import logging
import os
import socket
from typing import Any

RAY_MISSING = "--ray needs Ray: pip install 'gomoku[ray]' (in a checkout: pip install -e '.[ray]')"


class RayStartError(Exception):
    """Ray cannot be started or joined as asked; one line."""


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def probe(address: str, timeout: float = 10.0) -> None:
    """A HOST:PORT that does not answer is refused here, in one line."""
    host, _, port = address.rpartition(":")
    if "://" in address or not host or not port.isdigit():
        return                   # ray://..., auto: Ray's own checks
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RayStartError(f"--ray {address}: no Ray cluster answers there ({exc.strerror or exc})") from None


def _signal_handlers() -> dict[int, Any]:
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}


def _restore(saved: dict[int, Any]) -> None:
    import signal
    for sig, handler in saved.items():
        if handler is not None:
            signal.signal(sig, handler)


def start(address: str, cpus: int) -> tuple[Any, bool]:
    """The ray module, initialised for `address` ('local': a new instance of `cpus` CPUs), and
    whether this call started it (the caller then shuts it down). RayStartError otherwise."""
    if not ray_available():
        raise RayStartError(RAY_MISSING)
    import ray
    if ray.is_initialized():
        return ray, False
    saved = _signal_handlers()
    quiet: dict[str, Any] = dict(log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
    if address == "local":
        # Ray runs its workers 15 nice levels below the driver; the actors are all the work,
        # so they run at the driver's priority, as local worker processes do (measured on a
        # busy 2-core machine: 5 s vs 18 s a self-play chunk)
        os.environ.setdefault("RAY_worker_niceness", "0")
        try:
            ray.init(address="local", num_cpus=cpus, include_dashboard=False, **quiet)
        except Exception as exc:
            raise RayStartError(f"--ray local: Ray did not start ({first_line(exc)})") from None
    else:
        probe(address)
        try:
            ray.init(address=address, **quiet)
        except Exception as exc:   # ConnectionError, RuntimeError, ValueError, ...
            raise RayStartError(f"--ray {address}: cannot connect to the Ray cluster ({first_line(exc)})") from None
    _restore(saved)
    return ray, True


def cluster_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


__all__ = ["RAY_MISSING", "RayStartError", "ray_available", "probe", "start", "cluster_cpus", "first_line"]
