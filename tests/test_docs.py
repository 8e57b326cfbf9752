"""README.md stays a short page for users, and the pages it sends them to stay true: its two
set-up commands are CI's, it names no machine path or internal issue, weights/README.md gives
each shipped net's row, wall time and training command as weights/manifest.json records them,
and every relative link and anchor in README.md, CONTRIBUTING.md, weights/README.md and docs/
leads somewhere."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gomoku.weights.manifest import is_withdrawn, read_manifest, usable_nets

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
WEIGHTS = ROOT / "weights"
WEIGHTS_README = WEIGHTS / "README.md"
README_LIMIT = 15_000           # bytes

_FENCE = re.compile(r"^```")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_NAME_CELL = re.compile(r"`([^`]+)`")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M)


def _one_line(text: str) -> str:
    """Shell text with line continuations joined and runs of blanks made one."""
    return " ".join(text.replace("\\\n", " ").split())


def _table_rows(text: str) -> list[list[str]]:
    """Body rows of every markdown table outside code, as lists of stripped cells."""
    rows = []
    for line in _prose(text):
        s = line.strip()
        if s.startswith("|") and not re.fullmatch(r"\|[\s|:-]+\|", s):
            rows.append([c.strip() for c in s.strip("|").split("|")])
    return rows


def _nets() -> dict[str, dict]:
    return read_manifest(WEIGHTS)


def _recorded_command(entry: dict) -> str:
    """The manifest's training command without the switch that only changes how progress prints."""
    command = entry["training"]["command"]
    for switch in (" --plain", " --no-progress", " --progress"):
        command = command.replace(switch, "")
    return _one_line(command)


# -- README ---------------------------------------------------------------------------------------

def test_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size <= README_LIMIT, f"README.md is {size} bytes; keep it under {README_LIMIT} (move detail to docs/)"


def test_readme_opens_with_the_install_and_play_and_the_ci_commands() -> None:
    blocks = [_one_line(b) for b in _code_blocks(_text(README))]
    assert blocks[0] == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/gomoku play"
    assert blocks[1] == "python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]' && .venv/bin/python -m pytest -q -n auto"
    ci = _text(ROOT / ".ci" / "run")
    assert blocks[1] in ci, ".ci/run must run README's test command"


def test_readme_names_no_machine_path_or_internal_issue() -> None:
    text = _text(README)
    machine_path = re.compile(r"(?<![\w.])/(?:work|root|home|tmp|opt)/|\b[A-Z]:\\")
    assert not machine_path.search(text), f"README names a machine path: {machine_path.search(text)}"
    assert not re.search(r"(?i)\bissues?\s+#?\d+|(?<![\w&])#\d+\b", text), "README names an internal issue"


def test_readme_pip_commands_use_the_venv() -> None:
    """Every pip command in README runs the venv's pip, as its first commands do."""
    for block in _code_blocks(_text(README)):
        for line in block.splitlines():
            for m in re.finditer(r"(\S*)pip install", line):
                assert m.group(1) in (".venv/bin/", "venv\\Scripts\\"), line


def test_readme_lists_only_shipped_nets_and_sends_users_to_weights_readme() -> None:
    text = _text(README)
    nets = _nets()
    section = text.split("### Shipped nets", 1)[1].split("\n## ", 1)[0]
    named = [n for row in _table_rows(section) for n in _NAME_CELL.findall(row[0])]
    assert named, "README's shipped-nets table lists no net"
    assert set(named) <= set(nets), f"README lists nets the manifest lacks: {sorted(set(named) - set(nets))}"
    withdrawn = sorted(set(named) - set(usable_nets(nets)))
    assert not withdrawn, f"README offers withdrawn nets: {withdrawn}"
    assert "(weights/README.md)" in section


# -- weights/README.md against the manifest ----------------------------------------------------------

def test_weights_readme_has_a_row_for_every_net_with_its_wall_time_and_withdrawal() -> None:
    rows = {_NAME_CELL.fullmatch(r[0]).group(1): r for r in _table_rows(_text(WEIGHTS_README))
            if _NAME_CELL.fullmatch(r[0])}
    nets = _nets()
    assert set(rows) == set(nets), (f"weights/README.md rows without a manifest entry: {sorted(set(rows) - set(nets))}; "
                                    f"manifest entries without a row: {sorted(set(nets) - set(rows))}")
    for name, entry in nets.items():
        training = rows[name][2]
        minutes = round(entry["training"]["wall_seconds"] / 60)
        assert re.match(rf"{minutes} min\b", training), f"{name}: the row says {training!r}, the manifest {minutes} min"
        says_withdrawn = "withdrawn" in rows[name][3].lower()
        assert says_withdrawn == is_withdrawn(entry), \
            f"{name}: the manifest {'withdraws' if is_withdrawn(entry) else 'keeps'} it, the row says otherwise"
        init = entry["training"].get("init")
        if init:
            assert f"from `{Path(init).stem}`" in training, f"{name}: the row does not say it continued {init}"


def test_weights_readme_gives_the_command_that_made_each_net() -> None:
    """Each net's training command as its manifest entry records it (line continuations and the
    progress switch aside), so that a user can rerun it and the two cannot drift apart."""
    code = " ".join(_one_line(b) for b in _code_blocks(_text(WEIGHTS_README)))
    for name, entry in _nets().items():
        command = _recorded_command(entry)
        assert command in code, f"weights/README.md lacks {name}'s training command: {command}"


# -- links ------------------------------------------------------------------------------------------

def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    s = heading.strip().lower().replace("`", "")
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in _prose(_text(path)) if line.startswith("#")}


_PAGES = [README, ROOT / "CONTRIBUTING.md", WEIGHTS_README, *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", _PAGES, ids=[str(p.relative_to(ROOT)) for p in _PAGES])
def test_relative_links_lead_somewhere(page: Path) -> None:
    broken = []
    for line in _prose(_text(page)):
        for target in _LINK.findall(line):
            if re.match(r"[a-z]+:", target):        # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{target} (no such heading)")
    assert not broken, f"{page.relative_to(ROOT)}: " + ", ".join(broken)


def test_docs_keep_run_diaries_under_lab() -> None:
    """docs/ is the reference; the diaries of runs and experiments live in docs/lab/."""
    assert (ROOT / "docs" / "lab" / "training.md").is_file()
    assert not (ROOT / "docs" / "training.md").exists()
    assert (ROOT / "docs" / "lab" / "learned-eval.md").is_file()
    import re
    diary = re.compile(r"(?m)^(#+ *(Next steps|Status)\b|Status:)")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert [p.name for p in pages if diary.search(_text(p))] == []


def test_the_papers_are_cited_by_name_not_by_number() -> None:
    """docs/references.md names the five papers the project grew from; the library cites them by
    those names, never by a bare seed number (nobody outside the project can look those up)."""
    import re
    import subprocess
    refs = _text(ROOT / "docs" / "references.md")
    for name in ("UCAS Gobang paper", "AlphaGo Zero Gomoku re-implementation", "Columbia AlphaZero Gomoku paper",
                 "Fudan threat-space-search paper", "three-player Gobang paper"):
        assert f"**the {name}**" in refs, name
    files = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.json", "*.toml"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    bare = [f for f in files if (ROOT / f).is_file() and f != "tests/test_docs.py"
            and re.search(r"(?i)\bseeds? 00[0-4]\b", (ROOT / f).read_text(encoding="utf-8"))]
    assert bare == []
