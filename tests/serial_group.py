"""The serial group under pytest-xdist: every serial test on one worker, from the start.

Tests marked `xdist_group("serial")` (all `process` tests among them) time a real process and
must never run two at once. A file lock alone keeps them apart, but then a worker that draws a
serial test while another runs waits, idle, on the lock: on two cores that is half the machine.
xdist's own `--dist loadgroup` would send the group to one worker, but it reads the group from
a suffix it writes into each node id, and pytest 9.2 keeps node ids where xdist 3.8 writes it
(pytest-xdist issue 1386), so nothing groups.

Here the workers, which collect, write the serial node ids into the run's shared temporary
folder; the controller's scheduler (`SerialFirstScheduling`, xdist's load-scope scheduler with
one scope per test) reads them and makes the whole group one unit of work, which it hands out
first because it is the largest. One worker runs the group while the others share every other
test one at a time, as `--dist load` would. The lock stays, for other schedulers.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Optional

SERIAL = "serial"
_PREFIX = "serial-tests-"


def _shared_dir(config: Any, worker: bool) -> Optional[Path]:
    """The controller's base temp folder (a worker's is a folder inside it)."""
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return None
    base = Path(factory.getbasetemp())
    return base.parent if worker else base


def write_serial_ids(config: Any, nodeids: Iterable[str]) -> None:
    """On a worker: record the serial node ids of its collection (atomically; every worker
    writes its own file, and they are the same list)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    shared = _shared_dir(config, worker=True) if worker else None
    if shared is None:
        return
    path = shared / f"{_PREFIX}{worker}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(sorted(nodeids)))
    os.replace(tmp, path)


def read_serial_ids(config: Any) -> frozenset[str]:
    """On the controller, once every worker has collected: the serial node ids (empty when no
    worker wrote them, which leaves every test a unit of its own)."""
    shared = _shared_dir(config, worker=False)
    for path in sorted(shared.glob(f"{_PREFIX}*.json")) if shared else []:
        try:
            return frozenset(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return frozenset()


def make_scheduler(config: Any, log: Any) -> Any:
    """The scheduler for `-n N` with the default `--dist load`; None for any other `--dist`."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SerialFirstScheduling(LoadScopeScheduling):   # type: ignore[misc]
        """Load-scope scheduling with one scope per test, except the serial group's one."""

        def __init__(self, config: Any, log: Any = None) -> None:
            super().__init__(config, log)
            self.serial: Optional[frozenset[str]] = None

        def _split_scope(self, nodeid: str) -> str:
            if self.serial is None:          # first called in schedule(): every worker collected
                self.serial = read_serial_ids(self.config)
            return SERIAL if nodeid in self.serial else nodeid

    return SerialFirstScheduling(config, log)
