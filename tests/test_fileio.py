"""The one atomic write (engine.fileio), which the trainer's train.atomic also goes through:
whole file or old file, no temporaries left, the folder flushed after the rename."""
from __future__ import annotations

import json
import os
import stat

import pytest

from gomoku.engine import fileio
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
