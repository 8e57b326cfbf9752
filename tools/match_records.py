"""The game records of one `gomoku match`: `--sgf FILE` and `--psq DIR`, as `--json` is.

A match's records are that match's games. The SGF collection is rewritten whole (atomically,
through engine.base.fileio) after every game, in game order, so an interrupted match leaves the games
it played and a second run of the same command leaves its own games, not the first run's
followed by the second's (a file that grew 2, 4, 6 games over three runs, two of them `GN[1]`,
was what appending gave). `--psq DIR` likewise: the `game_NNNN.psq` files an earlier match left
there are removed when this match writes its first game.

`--append` keeps what is there: the SGF's earlier games stay in front of this match's (still
one atomic rewrite per game, never a half-appended file), numbered on with `GN`, and the .psq
files are numbered on after the highest one in DIR. `notices` says which of the two happens
to a file that already exists, before the first game.

`--labels FILE` is training data, not a record of one match: every match adds its games to
the file (engine.game.labels: each game's moves, the scores and best moves its players'
searches reported, and the result), and a file a kill cut keeps its complete games.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

#: the .psq files a match writes (and, without --append, the ones it replaces)
PSQ_NAME = re.compile(r"^game_(\d{4,})\.psq$")


def _records_module() -> Any:
    from gomoku.engine.game import records
    return records


from gomoku.tools.render import plural as _plural


class MatchRecords:
    """Writes the --sgf collection and the --psq files of one match, game by game.

    Games may finish out of order (`-c 2`); the collection is kept in game order all the same.
    Raises ValueError (one line) when a file cannot be read or written."""

    def __init__(self, sgf: Optional[Path], psq_dir: Optional[Path], append: bool = False,
                 labels: Optional[Path] = None) -> None:
        self.sgf, self.psq_dir, self.append = sgf, psq_dir, append
        self._prefix = ""              # the SGF text kept in front of this match's games (--append)
        self._earlier_games = 0        # games in that text: this match's GN go on from there
        self._psq_first = 1            # number of this match's first .psq file
        self._stale_psq: list[Path] = []   # an earlier match's .psq files, removed at the first game
        self._games: dict[int, str] = {}   # game index -> its SGF text
        self._started = False
        self._notices: list[str] = []
        if sgf is not None and sgf.is_file():
            self._read_sgf(sgf)
        if psq_dir is not None and psq_dir.is_dir():
            self._read_psq_dir(psq_dir)
        self._labels: Any = None
        if labels is not None:
            self._open_labels(labels)

    def _open_labels(self, path: Path) -> None:
        from gomoku.engine.game.labels import LabelWriter
        try:
            self._labels = LabelWriter(path)
        except OSError as exc:
            raise ValueError(f"--labels {path}: {exc.strerror or exc}") from None
        if self._labels.games_before:
            self._notices.append(f"--labels {path}: this match's games are added to its "
                                 f"{_plural(self._labels.games_before, 'game')}")

    def _read_sgf(self, sgf: Path) -> None:
        records = _records_module()
        text = records.read_text(sgf)
        try:
            n = len(records.from_sgf_string(text, source=str(sgf))) if text.strip() else 0
        except ValueError as exc:
            if self.append:
                raise ValueError(f"--append: {exc}") from None
            n = None
        if self.append:
            self._prefix, self._earlier_games = text, n or 0
            self._notices.append(f"--sgf {sgf}: this match's games follow its {_plural(n or 0, 'earlier game')} "
                                 "(--append)")
        else:
            held = "it is" if n is None else f"its {_plural(n, 'game')} {'is' if n == 1 else 'are'}"
            self._notices.append(f"--sgf {sgf}: {held} replaced by this match's games; --append keeps them")

    def _read_psq_dir(self, psq_dir: Path) -> None:
        found = sorted((int(m.group(1)), p) for p in psq_dir.iterdir()
                       if (m := PSQ_NAME.match(p.name)) and p.is_file())
        if not found:
            return
        if self.append:
            self._psq_first = found[-1][0] + 1
            self._notices.append(f"--psq {psq_dir}: this match's games are numbered on from "
                                 f"game_{self._psq_first:04d}.psq (--append)")
        else:
            self._stale_psq = [p for _, p in found]
            self._notices.append(f"--psq {psq_dir}: its {_plural(len(found), 'game_NNNN.psq file')} are replaced "
                                 "by this match's; --append keeps them")

    @property
    def notices(self) -> list[str]:
        """One line per existing file: replaced, or (with --append) added to."""
        return list(self._notices)

    def add(self, res: Any) -> None:
        """Record one finished game (an engine.match.games.GameResult): the SGF rewritten whole,
        its .psq written, its labels appended; the first game also removes an earlier match's
        .psq files."""
        if self._labels is not None:
            try:
                self._labels.write(res.to_labels())
            except OSError as exc:
                raise ValueError(f"--labels {self._labels.path}: {exc.strerror or exc}") from None
        if self.sgf is None and self.psq_dir is None:
            return
        records = _records_module()
        rec = res.to_record()
        rec.extra["GN"] = str(self._earlier_games + res.index + 1)
        if not self._started:
            self._started = True
            for p in self._stale_psq:
                try:
                    p.unlink()
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    raise ValueError(f"{p}: cannot remove ({exc.strerror or exc})") from None
        if self.sgf is not None:
            self._games[res.index] = records.to_sgf_string(rec)
            body = "".join(self._games[i] for i in sorted(self._games))
            records.write_text(self.sgf, self._prefix + body)
        if self.psq_dir is not None:
            records.save_psq(self.psq_dir / f"game_{self._psq_first + res.index:04d}.psq", rec)

    def close(self) -> None:
        if self._labels is not None:
            self._labels.close()
