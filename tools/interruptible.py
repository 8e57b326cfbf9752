"""Running an engine's move so that Ctrl-C still reaches the terminal game."""
from __future__ import annotations

import threading
from typing import Any, Callable


def run_interruptibly(fn: Callable[[], Any]) -> Any:
    """Run fn in a worker thread so Ctrl-C reaches the main thread while an engine thinks."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    t = threading.Thread(target=target, name="play-engine", daemon=True)
    t.start()
    while t.is_alive():
        t.join(0.1)
    if "error" in box:
        raise box["error"]
    return box["value"]
