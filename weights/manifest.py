"""weights/manifest.json: what each shipped net is, how it was made and how strong it measured.

One JSON object, `{"format": 1, "nets": {NAME: entry}}`, written sorted with a fixed indent so
that shipping a net changes only that net's lines in a diff. An entry:

    file, sha256, bytes                         NAME.onnx, the net the engine plays with
    checkpoint, checkpoint_sha256, checkpoint_bytes
                                                NAME.safetensors, its weights-only checkpoint
    arch, parameters                            architecture name and trainable parameter count
    players, win_length, rules, board_sizes     copied from the ONNX metadata, never typed by hand
    training                                    command, generations, best_generation, games,
                                                positions, steps, wall_seconds, hardware, device
                                                (and init: the checkpoint the run started from;
                                                distilled: the other run's games it first trained on)
    strength                                    [{opponent, result, command, sha256}]: measured
                                                figures, each with the net file it was measured on
    sanity                                      the sanity battery's verdict on the file
                                                (engine/match/sanity.py): {battery, playouts, seed,
                                                passed, checks: [{check, rule, size, status,
                                                move, policy, reason}], sha256, date, commit}
    withdrawn (only when it is)                 why the net is kept out of the defaults and the
                                                README's list; the files stay, so commands that
                                                name them still work

Everything here reads files only (onnxruntime for the net, the safetensors header by hand), so
the manifest can be checked, and a strength figure recorded, without torch.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Iterable, Optional

from gomoku.engine.base.fileio import write_atomic

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
NET_SUFFIX = ".onnx"
CHECKPOINT_SUFFIX = ".safetensors"
#: the fields every entry has (strength may be an empty list)
ENTRY_KEYS = ("file", "sha256", "bytes", "checkpoint", "checkpoint_sha256", "checkpoint_bytes", "arch",
              "parameters", "players", "win_length", "rules", "board_sizes", "training", "strength")
TRAINING_KEYS = ("command", "generations", "best_generation", "games", "positions", "steps", "wall_seconds",
                 "hardware", "device")
STRENGTH_KEYS = ("opponent", "result", "command", "sha256")
SANITY_KEYS = ("battery", "passed", "checks", "sha256", "date")
#: how a withdrawal made by the battery starts (a withdrawal typed for another reason is never
#: lifted by a passing check)
BATTERY_WITHDRAWAL = "sanity battery: "

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# names Windows will not open as files, whatever the suffix (the package installs there too)
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}


class ManifestError(ValueError):
    """A name, figure or manifest that cannot be used; the message is one line."""


def check_name(name: str) -> str:
    """`name` if it is a plain file stem (NAME.onnx and NAME.safetensors land beside the manifest,
    so a path, a suffix or a hidden name would put files where no entry finds them)."""
    low = name.lower()
    for suffix in (NET_SUFFIX, CHECKPOINT_SUFFIX, ".json"):
        if low.endswith(suffix):
            raise ManifestError(f"{name!r}: give the name without {suffix} (it becomes NAME{NET_SUFFIX} "
                                f"and NAME{CHECKPOINT_SUFFIX})")
    if not _NAME.fullmatch(name) or low.split(".")[0] in _RESERVED or name.endswith("."):
        raise ManifestError(f"{name!r}: a net name is a plain file stem of letters, digits, '-', '_' and '.' "
                            "(starting with a letter or digit, at most 64 characters), e.g. 15x15-freestyle")
    return name


def manifest_path(folder: str | os.PathLike) -> Path:
    return Path(folder) / MANIFEST_NAME


def read_manifest(folder: str | os.PathLike, missing_ok: bool = False) -> dict[str, dict[str, Any]]:
    """The entries by name. ManifestError when the file is not a manifest; an absent file is
    an empty manifest only with `missing_ok` (a new --weights folder)."""
    path = manifest_path(folder)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise ManifestError(f"{path}: no manifest") from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT or not isinstance(data.get("nets"), dict):
        raise ManifestError(f"{path}: not a weights manifest (expected {{\"format\": {MANIFEST_FORMAT}, "
                            "\"nets\": {...}})")
    nets = data["nets"]
    for name, entry in nets.items():
        if not isinstance(entry, dict):
            raise ManifestError(f"{path}: entry {name!r} is not an object")
    return nets


def render(nets: dict[str, dict[str, Any]]) -> str:
    """The manifest's text: sorted keys, two-space indent, a final newline (stable diffs)."""
    return json.dumps({"format": MANIFEST_FORMAT, "nets": nets}, indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"


def write_manifest(folder: str | os.PathLike, nets: dict[str, dict[str, Any]]) -> None:
    """Replace the manifest atomically: a reader sees the old one or the new one, never half."""
    write_atomic(manifest_path(folder), render(nets))


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def parse_strength(text: str) -> dict[str, str]:
    """'OPPONENT|RESULT|COMMAND' -> {opponent, result, command}. The command is the rest of the
    text, so it may itself hold '|' (a shell pipe)."""
    parts = [p.strip() for p in text.split("|", 2)]
    if len(parts) != 3 or not all(parts):
        raise ManifestError(f"{text!r}: a strength figure is 'OPPONENT|RESULT|COMMAND', e.g. "
                            "'pure-mcts:5000|17-2-1 (87.5 %)|gomoku match NET.onnx pure-mcts:5000 -n 20'")
    return {"opponent": parts[0], "result": parts[1], "command": parts[2]}


def add_figures(entry: dict[str, Any], figures: Iterable[dict[str, str]]) -> int:
    """Append figures to entry["strength"], each tagged with the sha256 of the net it measured
    (entry["sha256"]); an identical figure already there is not added twice. Returns how many
    were added."""
    kept: list[dict[str, Any]] = entry.setdefault("strength", [])
    added = 0
    for fig in figures:
        item = {**fig, "sha256": entry["sha256"]}
        if item not in kept:
            kept.append(item)
            added += 1
    return added


def record_strength(folder: str | os.PathLike, name: str, texts: Iterable[str]) -> dict[str, Any]:
    """`gomoku ship NAME --strength ...`: add figures to a shipped net's entry and rewrite the
    manifest. Refused when the net file no longer matches its entry, since the figure would be
    filed under a file it was not measured on."""
    check_name(name)
    figures = [parse_strength(t) for t in texts]
    nets = read_manifest(folder)
    entry = nets.get(name)
    if entry is None:
        raise ManifestError(f"{name!r} is not shipped in {folder} (shipped: {', '.join(sorted(nets)) or 'none'})")
    net = Path(folder) / str(entry.get("file", ""))
    if not net.is_file() or sha256_file(net) != entry.get("sha256"):
        raise ManifestError(f"{net}: the file does not match its manifest entry; ship it again first")
    add_figures(entry, figures)
    write_manifest(folder, nets)
    return entry


def is_withdrawn(entry: dict[str, Any]) -> bool:
    return bool(entry.get("withdrawn"))


def usable_nets(nets: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The entries anything that picks a shipped net by itself may pick (a default, a list for
    users): those not withdrawn. A withdrawn net's files stay, for commands that name them."""
    return {name: e for name, e in nets.items() if not is_withdrawn(e)}


def apply_sanity(entry: dict[str, Any], record: dict[str, Any], summary: str) -> None:
    """Put a battery record (SanityReport.to_record plus sha256, date, commit) in `entry`: a
    failing net is withdrawn with the failure as the reason; a passing one loses a withdrawal
    the battery made. A withdrawal given for another reason is left as it is either way."""
    entry["sanity"] = record
    by_battery = str(entry.get("withdrawn", "")).startswith(BATTERY_WITHDRAWAL)
    if not record["passed"] and (by_battery or not is_withdrawn(entry)):
        entry["withdrawn"] = BATTERY_WITHDRAWAL + summary
    elif record["passed"] and by_battery:
        del entry["withdrawn"]


def record_sanity(folder: str | os.PathLike, name: str, record: dict[str, Any], summary: str) -> dict[str, Any]:
    """`gomoku ship --check NAME`: file a battery record under NAME (apply_sanity) and rewrite
    the manifest. Refused when the record is of another file than the entry's."""
    check_name(name)
    nets = read_manifest(folder)
    entry = nets.get(name)
    if entry is None:
        raise ManifestError(f"{name!r} is not shipped in {folder} (shipped: {', '.join(sorted(nets)) or 'none'})")
    if record.get("sha256") != entry.get("sha256"):
        raise ManifestError(f"{Path(folder) / str(entry.get('file', ''))}: the file checked does not match its "
                            "manifest entry; ship it again first")
    apply_sanity(entry, record, summary)
    write_manifest(folder, nets)
    return entry


def _check_sanity(where: str, name: str, entry: dict[str, Any]) -> list[str]:
    """Problems of an entry's sanity record and withdrawal."""
    out = []
    if "withdrawn" in entry and (not isinstance(entry["withdrawn"], str) or not entry["withdrawn"].strip()):
        out.append(f"{where}: withdrawn must say why (a non-empty text)")
    rec = entry.get("sanity")
    if rec is None:
        return out
    if not isinstance(rec, dict) or any(k not in rec for k in SANITY_KEYS) or not isinstance(rec["checks"], list):
        return out + [f"{where}: sanity must hold {', '.join(SANITY_KEYS)}"]
    if rec["sha256"] != entry.get("sha256"):
        out.append(f"{where}: the sanity record is of another file (sha256 {str(rec['sha256'])[:12]}...); "
                   f"run `gomoku ship --check {name}`")
    statuses = [c.get("status") for c in rec["checks"] if isinstance(c, dict)]
    if rec["passed"] != ("fail" not in statuses):
        out.append(f"{where}: sanity says passed={rec['passed']}, its checks say otherwise")
    if not rec["passed"] and not is_withdrawn(entry):
        out.append(f"{where}: fails the sanity battery but is not withdrawn")
    return out


def safetensors_header(path: str | os.PathLike) -> dict[str, Any]:
    """The JSON header of a safetensors file (tensor names, shapes, `__metadata__`), read without
    loading any tensor. ValueError when the file is not safetensors."""
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise ValueError("shorter than a safetensors header")
        n = int.from_bytes(head, "little")
        if not 0 < n <= 100_000_000:
            raise ValueError(f"header length {n}")
        raw = fh.read(n)
    if len(raw) != n:
        raise ValueError("truncated header")
    header = json.loads(raw)
    if not isinstance(header, dict):
        raise ValueError("header is not an object")
    return header


def _check_checkpoint(path: Path, entry: dict[str, Any]) -> list[str]:
    """Problems of a weights-only checkpoint: it must say the entry's arch and players and hold
    model weights and nothing else (no optimiser or RNG state, which would only add bytes)."""
    try:
        header = safetensors_header(path)
    except (OSError, ValueError) as exc:
        return [f"{path}: not a readable safetensors file ({exc})"]
    meta = header.get("__metadata__") or {}
    out = []
    if meta.get("gomoku_checkpoint") != "1":
        out.append(f"{path}: not a gomoku checkpoint (format {meta.get('gomoku_checkpoint')!r})")
    if meta.get("arch") != entry.get("arch") or meta.get("players") != str(entry.get("players")):
        out.append(f"{path}: checkpoint is {meta.get('arch')}, {meta.get('players')} players; "
                   f"the entry says {entry.get('arch')}, {entry.get('players')}")
    names = [k for k in header if k != "__metadata__"]
    extra = [k for k in names if not k.startswith("model.")]
    if extra or "opt_groups" in meta or "rng_numpy" in meta:
        out.append(f"{path}: not weights-only (holds {', '.join(sorted(extra)[:3]) or 'optimiser/RNG metadata'})")
    if not names:
        out.append(f"{path}: holds no weights")
    return out


def check_entry(folder: str | os.PathLike, name: str, entry: dict[str, Any]) -> list[str]:
    """Every way `entry` disagrees with the files in `folder`, one line each (empty: all agree).

    The net must load through the engine's loader (the same refusals a player gets) and its
    metadata must say what the entry says; both files must have the recorded bytes."""
    from gomoku.engine.net.evaluator import NetEvaluator
    from gomoku.engine.net.metadata import NetFormatError

    folder = Path(folder)
    where = f"{manifest_path(folder)} [{name}]"
    missing = [k for k in ENTRY_KEYS if k not in entry]
    if missing:
        return [f"{where}: lacks {', '.join(missing)}"]
    out = []
    if entry["file"] != name + NET_SUFFIX or entry["checkpoint"] != name + CHECKPOINT_SUFFIX:
        out.append(f"{where}: files must be {name}{NET_SUFFIX} and {name}{CHECKPOINT_SUFFIX}, "
                   f"not {entry['file']} and {entry['checkpoint']}")
        return out
    lacking = [k for k in TRAINING_KEYS if k not in (entry["training"] or {})]
    if lacking:
        out.append(f"{where}: training lacks {', '.join(lacking)}")
    if not isinstance(entry["strength"], list) or any(
            not isinstance(f, dict) or any(not isinstance(f.get(k), str) or not f.get(k) for k in STRENGTH_KEYS)
            for f in entry["strength"]):
        out.append(f"{where}: strength must be a list of {{{', '.join(STRENGTH_KEYS)}}}")
    for key, size_key, sha_key in (("file", "bytes", "sha256"),
                                   ("checkpoint", "checkpoint_bytes", "checkpoint_sha256")):
        path = folder / entry[key]
        if not path.is_file():
            out.append(f"{path}: listed in the manifest but missing")
            continue
        if path.stat().st_size != entry[size_key]:
            out.append(f"{path}: {path.stat().st_size} bytes, the manifest says {entry[size_key]}")
        if sha256_file(path) != entry[sha_key]:
            out.append(f"{path}: sha256 differs from the manifest")
    net_path = folder / entry["file"]
    if net_path.is_file():
        try:
            info = NetEvaluator.load(net_path).info
        except NetFormatError as exc:
            out.append(str(exc))
        else:
            claims = {"players": info.players, "win_length": info.win_length, "rules": info.rules,
                      "board_sizes": info.board_sizes, "arch": info.arch}
            for key, value in claims.items():
                if entry[key] != value:
                    out.append(f"{where}: {key} is {entry[key]!r}, the net's metadata says {value!r}")
    ck_path = folder / entry["checkpoint"]
    if ck_path.is_file():
        out.extend(_check_checkpoint(ck_path, entry))
    out.extend(_check_sanity(where, name, entry))
    return out


def unlisted(folder: str | os.PathLike, nets: dict[str, dict[str, Any]]) -> list[Path]:
    """Net and checkpoint files in `folder` that no entry names (they would ship unexplained)."""
    listed = {e.get(k) for e in nets.values() for k in ("file", "checkpoint")}
    found = [p for suffix in (NET_SUFFIX, CHECKPOINT_SUFFIX) for p in Path(folder).glob("*" + suffix)]
    return sorted(p for p in found if p.name not in listed)


def check_folder(folder: str | os.PathLike, nets: Optional[dict[str, dict[str, Any]]] = None) -> list[str]:
    """All problems of a weights folder: its manifest, every entry, and files no entry names."""
    try:
        nets = read_manifest(folder) if nets is None else nets
    except ManifestError as exc:
        return [str(exc)]
    out = [p for name in sorted(nets) for p in check_entry(folder, name, nets[name])]
    out.extend(f"{p}: not in {MANIFEST_NAME} (ship it with `gomoku ship`, or remove it)"
               for p in unlisted(folder, nets))
    return out
