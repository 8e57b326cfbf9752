"""Which machine trains: a wall time in a run's records or a shipped manifest means little
without the processor and GPU it was measured on, and a run may be carried from one machine to
another (a burst on a GPU machine, then home), so each generation records its own."""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
from typing import Any


def cpu_model() -> str:
    """The processor's marketing name where the system says it (Linux /proc/cpuinfo, macOS
    sysctl), else the machine type: a wall time means little without it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return " ".join(value.split())
    except OSError:
        pass
    if platform.system() == "Darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True,
                                 timeout=5)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine() or "unknown CPU"


def gpu_names() -> list[str]:
    """NVIDIA GPUs nvidia-smi lists (none where it is absent); asked of the driver rather than
    torch, whose CPU build knows of no GPU."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    return [ln.strip() for ln in out.stdout.splitlines() if ln.strip()] if out.returncode == 0 else []


def hardware() -> str:
    """'CPU model, N cores[, GPU x K]' of this machine."""
    text = f"{cpu_model()}, {os.cpu_count() or 1} cores"
    gpus = gpu_names()
    if gpus:
        text += ", " + ", ".join(f"{n} x{gpus.count(n)}" if gpus.count(n) > 1 else n for n in dict.fromkeys(gpus))
    return text


def trained_on(record: dict[str, Any], provenance: dict[str, Any]) -> str:
    """The hardware a generation was trained on, for its manifest entry: what its metrics record
    says (runs record it since it mattered), else this machine's; but where the checkpoint's
    provenance (in older runs only 'x86_64 16 cores, cuda') names another core count than this
    machine has, the run was carried here from elsewhere and that line is the best known."""
    if record.get("hardware"):
        return str(record["hardware"])
    coarse = str(provenance.get("hardware", ""))
    if coarse and f" {os.cpu_count() or 1} cores" not in coarse:
        return coarse
    return hardware()
