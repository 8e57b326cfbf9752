"""The one atomic write (engine.base.fileio), which the trainer's train.atomic also goes through:
whole file or old file, no temporaries left, the folder flushed after the rename."""
from __future__ import annotations

import json
import os
import stat

import pytest

from gomoku.engine.base import fileio
from gomoku.train import atomic


def test_write_atomic_replaces_the_file_and_makes_missing_folders(tmp_path):
    target = tmp_path / "a" / "b" / "out.txt"
    fileio.write_atomic(target, "first\n")
    fileio.write_atomic(target, "second\n")
    assert target.read_text() == "second\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.txt"]


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")

    def half_then_crash(tmp: str) -> None:
        with open(tmp, "w") as f:
            f.write("ne")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError):
        fileio.write_atomic_with(target, half_then_crash)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_the_file_is_flushed_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    def replace(src, dst) -> None:
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(fileio.os, "fsync", fsync)
    monkeypatch.setattr(fileio.os, "replace", replace)
    atomic.write_bytes(tmp_path / "shard.npz", b"data")
    assert events == ["file", "rename", "folder"]
    assert (tmp_path / "shard.npz").read_bytes() == b"data"


def test_train_atomic_writes_sorted_json_through_the_engine_write(tmp_path, monkeypatch):
    seen: list[str] = []
    real = fileio.write_atomic_with

    def spy(path, writer) -> None:
        seen.append(os.path.basename(path))
        real(path, writer)

    monkeypatch.setattr("gomoku.train.atomic.write_atomic_with", spy)
    monkeypatch.setattr(fileio, "write_atomic_with", spy)
    atomic.write_json(tmp_path / "run.json", {"b": 1, "a": [2]})
    atomic.write_with(tmp_path / "net.onnx", lambda tmp: open(tmp, "wb").close())
    assert seen == ["run.json", "net.onnx"]
    text = (tmp_path / "run.json").read_text()
    assert json.loads(text) == {"a": [2], "b": 1}
    assert text.index('"a"') < text.index('"b"')


def test_clean_temporaries_removes_only_what_a_killed_writer_left(tmp_path):
    (tmp_path / f"{fileio.TMP_PREFIX}state.json.x1y2.tmp").write_text("half")
    (tmp_path / "state.json").write_text("{}")
    (tmp_path / "notes.tmp").write_text("kept: not ours")
    assert fileio.clean_temporaries(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.tmp", "state.json"]
    assert atomic.clean_temporaries(tmp_path / "missing") == 0


@pytest.fixture
def umask():
    """Set the process umask for one test (and put the old one back): `umask(0o022)`."""
    old = os.umask(0o022)
    os.umask(old)
    yield lambda mask: os.umask(mask)
    os.umask(old)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_atomic_writes_get_the_mode_open_gives_under_the_umask(tmp_path, umask, mask):
    """mkstemp made every temporary 0600 and the rename kept it: results, records, plots and
    nets came out unreadable to the group and others under umask 0022."""
    umask(mask)
    want = 0o666 & ~mask
    plain = tmp_path / "plain.txt"
    with open(plain, "w") as f:
        f.write("x")
    assert stat.S_IMODE(plain.stat().st_mode) == want
    fileio.write_atomic(tmp_path / "a.txt", "text")
    fileio.write_atomic_bytes(tmp_path / "b.bin", b"bytes")
    fileio.write_atomic_with(tmp_path / "c.png", lambda tmp: open(tmp, "wb").close())   # matplotlib-style
    atomic.write_json(tmp_path / "state.json", {"a": 1})
    atomic.write_with(tmp_path / "best.onnx", lambda tmp: open(tmp, "wb").close())
    fileio.write_atomic(tmp_path / "a.txt", "replaced")                                  # and on a rewrite
    for name in ("a.txt", "b.bin", "c.png", "state.json", "best.onnx"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == want, name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["plain.txt", "a.txt", "b.bin", "c.png", "state.json", "best.onnx"])


def test_temporaries_are_unique_and_private_to_their_writer(tmp_path, monkeypatch):
    """The temporary is created with O_EXCL: a name that is taken is never written through."""
    target = tmp_path / "out.txt"
    taken = tmp_path / f"{fileio.TMP_PREFIX}out.txt.aaaaaaaa.tmp"
    taken.write_text("someone else's")
    tokens = iter(["aaaaaaaa", "bbbbbbbb"])
    monkeypatch.setattr(fileio.secrets, "token_hex", lambda n: next(tokens))
    fileio.write_atomic(target, "mine")
    assert target.read_text() == "mine" and taken.read_text() == "someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, taken.name])
