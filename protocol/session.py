"""The brain's game state and what each protocol command does to it.

`Session.handle_line` takes one input line (already split off the byte stream) and the time it
was read; it prints replies through `ProtocolOutput` and starts a `MoveRequest` whenever a move
is owed. Multi-line commands (BOARD, YXBOARD, SWAP2BOARD) collect their data lines here until
DONE. The session never blocks on the engine: moves are produced by the thinking thread.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from gomoku.engine.base import timeman
from gomoku.engine.game.rules import Rule, rule_from_piskvork
from gomoku.engine.base.limits import SearchInfo
from gomoku.engine.base.timeman import MIN_USABLE_MEMORY, TimeInfo
from gomoku.protocol import swap2
from gomoku.protocol.commands import (Command, ascii_text, format_move, parse_coord, parse_field,
                                      parse_info, parse_int, parse_line, parse_size)
from gomoku.protocol.engine_loader import EngineLoader
from gomoku.protocol.fallback import cheap_move
from gomoku.protocol.output import ProtocolOutput
from gomoku.protocol.position import BLACK, Position, PositionError
from gomoku.protocol.move_request import Answer, Clock, MoveRequest, run_request

#: Data lines kept per BOARD/YXBOARD/SWAP2BOARD block (a 22x22 board has 484 cells).
MAX_BLOCK_LINES = 600
# Shortest search worth starting before any search has run and before the warm-up has loaded
# the search from numba's cache (loading it takes 0.1-0.3 s of CPU): with less left the move
# is the cheap one.
COLD_SEARCH_MIN_S = 0.15

ABOUT_LINE = ('name="gomoku", version="{version}", author="gomoku developers", country="Unknown", '
              'searcher="{searcher}"')


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("gomoku")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "0.1.0"


class Session:
    """Everything one brain process remembers between commands."""

    def __init__(self, out: ProtocolOutput, loader: EngineLoader, startup_s: float = 0.0,
                 clock: Clock = time.monotonic, refusal: Optional[str] = None,
                 turn_ms: int = timeman.DEFAULT_TURN_MS) -> None:
        self.out = out
        # why this brain plays no game at all (a --net or --eval file it cannot use): START and
        # RECTSTART answer `ERROR <refusal>`, every game command `ERROR <command> refused: ...`;
        # ABOUT, INFO and END work as ever, so a manager's user reads the reason in its log
        self.refusal = refusal
        self.clock = clock          # what t_read and the deadlines are on; tests pass a fake one
        self.loader = loader
        self.pos: Optional[Position] = None
        # why there is no game (pos is None) after a refused START/RECTSTART: game commands
        # answer ERROR with it; None before any START
        self.no_game: Optional[str] = None
        self._told: set[tuple[int, int, str]] = set()   # games whose net/evaluator notice went out
        self.rule = Rule.FREESTYLE
        # the time INFO values, and a move's time when none came (the brain's --turn-ms)
        self.time = TimeInfo(default_turn=turn_ms)
        self.info: dict[str, str] = {}          # every INFO key seen (folder, game_type, ...)
        self.max_depth: Optional[int] = None
        self.max_node: Optional[int] = None
        self.startup_s = startup_s
        self.moves_answered = 0
        self.searched = False       # a search has run in this process: its code is loaded
        self.request: Optional[MoveRequest] = None
        self._pending_messages: list[str] = []  # problems from INFO, told before the next move
        self._block: Optional[tuple[str, float, list[str]]] = None   # (command, t_read, lines)
        self._lock = threading.Lock()

    # -- entry point -----------------------------------------------------------------------
    def handle_line(self, line: str, t_read: Optional[float] = None) -> None:
        """Process one input line read at time `t_read` (on `self.clock`)."""
        t = self.clock() if t_read is None else t_read
        if self._block is not None:
            self._block_line(line)
            return
        cmd = parse_line(line)
        if cmd is None:
            return
        if self.busy() and cmd.name not in ("INFO", "YXSTOP", "STOP"):
            self.wait_idle()
        handler: Optional[Callable[[Command, float], None]] = getattr(self, "_cmd_" + cmd.name.lower(), None) \
            if cmd.name.isalnum() and cmd.name.isascii() else None
        if handler is None:
            self.out.send(f"UNKNOWN unknown command '{cmd.printable_name}'")
            return
        handler(cmd, t)

    def busy(self) -> bool:
        return self.request is not None and not self.request.done.is_set()

    def wait_idle(self) -> None:
        """Wait until the owed answer is out (bounded by its hard deadline)."""
        req = self.request
        if req is not None:
            req.done.wait()

    # -- simple commands -------------------------------------------------------------------
    def _cmd_about(self, cmd: Command, t: float) -> None:
        searcher = f"none, every game refused: {self.refusal}" if self.refusal else self.loader.describe_searcher()
        searcher = searcher.replace('"', "'")
        self.out.send(ABOUT_LINE.format(version=_version(), searcher=searcher))

    def _new_board(self, cmd: Command, width: int, height: int) -> None:
        if self.refusal:
            self.pos = None
            self.out.send(f"ERROR {self.refusal}")
            return
        try:
            self.pos = Position.empty(width, height)
        except PositionError as exc:
            self._drop_game(cmd, str(exc))
            return
        self.no_game = None
        self.out.send("OK")

    def _drop_game(self, cmd: Command, why: str) -> None:
        """A refused START/RECTSTART: answer ERROR and forget the previous game. The manager
        has ended that game by asking for a new one, so a TURN that follows must not be played
        on its board (it was, and answered with a move, for `START 0` then `TURN 3,3`)."""
        self.pos = None
        self.no_game = f"{cmd.printable_name} {ascii_text(cmd.arg, 20)}".strip() + " was refused"
        self.out.send(f"ERROR {why}")

    def _game(self, name: str) -> Optional[Position]:
        """The position a game command acts on, or None after answering `ERROR` for `name`
        when there is no game: before any START, or after a START/RECTSTART was refused."""
        if self.pos is None:
            if self.refusal:
                self.out.send(f"ERROR {name} refused: {self.refusal}")
            elif self.no_game is None:
                self.out.send(f"ERROR {name} before START")
            else:
                self.out.send(f"ERROR {name} without a game: {self.no_game}; "
                              "send START or RECTSTART with a supported size")
        return self.pos

    def _cmd_start(self, cmd: Command, t: float) -> None:
        size = parse_size(cmd.arg)
        if size is None:
            self._drop_game(cmd, "START needs one board size, e.g. START 15")
            return
        self._new_board(cmd, size, size)

    def _cmd_rectstart(self, cmd: Command, t: float) -> None:
        wh = parse_coord(cmd.arg)
        if wh is None:
            self._drop_game(cmd, "RECTSTART needs width,height, e.g. RECTSTART 20,15")
            return
        self._new_board(cmd, *wh)

    def _cmd_restart(self, cmd: Command, t: float) -> None:
        pos = self._game("RESTART")
        if pos is not None:
            self._new_board(cmd, pos.width, pos.height)

    def _cmd_info(self, cmd: Command, t: float) -> None:
        """INFO never answers on stdout; bad values are ignored (and logged)."""
        key, value = parse_info(cmd.arg)
        if not key:
            return
        self.info[key] = value
        num = parse_int(value)
        if key in ("timeout_turn", "timeout_match", "time_left", "max_memory"):
            if num is None or (key != "time_left" and num < 0):
                print(f"ignored INFO {key} {value!r}")
                return
            setattr(self.time, key, num)
            if key == "max_memory" and 0 < num < MIN_USABLE_MEMORY:
                self._pending_messages.append(
                    f"max_memory {num} bytes is below what this brain needs "
                    f"(about {MIN_USABLE_MEMORY >> 20} MB); "
                    "playing with the smallest tables")
            req = self.request
            if req is not None and not req.done.is_set():
                req.set_budget(timeman.tighten(req.budget, self.time))
        elif key == "rule":
            try:
                self.rule = rule_from_piskvork(num if num is not None else -1)
            except ValueError:
                print(f"ignored INFO rule {value!r}")
        elif key == "thread_num":
            if num is None or num < 1:
                print(f"ignored INFO thread_num {value!r}")
            else:
                self.loader.set_threads(num)
        elif key == "max_depth":
            self.max_depth = num if num and num > 0 else None
        elif key == "max_node":
            self.max_node = num if num and num > 0 else None

    def _cmd_yxstop(self, cmd: Command, t: float) -> None:
        req = self.request
        if req is not None and not req.done.is_set():
            req.request_stop()

    _cmd_stop = _cmd_yxstop

    def _cmd_yxhashclear(self, cmd: Command, t: float) -> None:
        # Yixin's and Rapfi's "forget the hash table": silent, as theirs is
        self.loader.forget()

    def _cmd_takeback(self, cmd: Command, t: float) -> None:
        xy = parse_coord(cmd.arg)
        pos = self._game("TAKEBACK")
        if pos is None:
            return
        if xy is None:
            self.out.send("ERROR TAKEBACK needs X,Y")
        else:
            try:
                pos.takeback(*xy)
                self.out.send("OK")
            except PositionError as exc:
                self.out.send(f"ERROR {exc}")

    def _cmd_play(self, cmd: Command, t: float) -> None:
        xy = parse_coord(cmd.arg)
        pos = self._game("PLAY")
        if pos is None:
            return
        if xy is None:
            self.out.send("ERROR PLAY needs X,Y")
        else:
            try:
                pos.play(*xy)
                self.out.send(format_move(xy))
            except PositionError as exc:
                self.out.send(f"ERROR {exc}")

    def _cmd_done(self, cmd: Command, t: float) -> None:
        self.out.send("ERROR DONE without BOARD, YXBOARD or SWAP2BOARD")

    def _cmd_yxshowforbid(self, cmd: Command, t: float) -> None:
        cells: list[tuple[int, int]] = []
        pos = self.pos
        if pos is not None and self.rule == Rule.RENJU and self.loader.board_ready.wait(10.0):
            try:
                cells = pos.to_board(self.loader.Board, self.rule).forbidden_points()
            except Exception as exc:  # noqa: BLE001 - the reply must still come
                print(f"YXSHOWFORBID failed: {exc}")
        self.out.send("FORBID " + "".join(f"{x:02d}{y:02d}" for x, y in cells) + ".")

    # -- move requests ---------------------------------------------------------------------
    def _cmd_begin(self, cmd: Command, t: float) -> None:
        pos = self._game("BEGIN")
        if pos is None:
            return
        if pos.stone_count:
            self.out.send("ERROR BEGIN on a board that is not empty")
        else:
            self._request_move(t)

    def _cmd_turn(self, cmd: Command, t: float) -> None:
        xy = parse_coord(cmd.arg)
        pos = self._game("TURN")
        if pos is None:
            return
        if xy is None:
            self.out.send("ERROR TURN needs X,Y, e.g. TURN 7,7")
            return
        try:
            pos.play(*xy)
        except PositionError as exc:
            self.out.send(f"ERROR {exc}")
            return
        self._request_move(t)

    def _cmd_board(self, cmd: Command, t: float) -> None:
        self._block = ("BOARD", t, [])

    def _cmd_yxboard(self, cmd: Command, t: float) -> None:
        self._block = ("YXBOARD", t, [])

    def _cmd_swap2board(self, cmd: Command, t: float) -> None:
        self._block = ("SWAP2BOARD", t, [])

    def _block_line(self, line: str) -> None:
        assert self._block is not None
        name, t, lines = self._block
        word = line.strip().upper()
        if word != "DONE":
            if word and len(lines) < MAX_BLOCK_LINES:
                lines.append(line.strip())
            return
        self._block = None
        getattr(self, "_finish_" + name.lower())(lines, t)

    def _position_from_block(self, name: str, lines: list[str]) -> Optional[tuple[Position, list[str]]]:
        game = self._game(name)
        if game is None:
            return None
        fields = []
        warnings = []
        for text in lines:
            f = parse_field(text)
            if f is None:
                warnings.append(f"ignored BOARD line '{ascii_text(text, 40)}': expected X,Y,F")
            else:
                fields.append(f)
        try:
            pos, more = Position.from_fields(game.width, game.height, fields)
        except PositionError as exc:
            self.out.send(f"ERROR {exc}")
            return None
        return pos, warnings + more

    def _finish_board(self, lines: list[str], t: float) -> None:
        got = self._position_from_block("BOARD", lines)
        if got is None:
            return
        self.pos, warnings = got
        self._request_move(t, warnings)

    def _finish_yxboard(self, lines: list[str], t: float) -> None:
        got = self._position_from_block("YXBOARD", lines)
        if got is not None:
            self.pos = got[0]

    def _finish_swap2board(self, lines: list[str], t: float) -> None:
        game = self._game("SWAP2BOARD")
        if game is None:
            return
        stones = [parse_coord(text) for text in lines]
        try:
            swap2.check_stones(game.width, game.height, stones)
        except ValueError as exc:
            self.out.send(f"ERROR {exc}")
            return
        pos = Position.empty(game.width, game.height)
        for xy in stones:
            assert xy is not None
            pos.play(*xy)
        self.pos = pos
        rule = self.rule
        fallback = swap2.quick_answer(pos, rule, self._effect_for)
        req = self._new_request(t, fallback)
        self._tell(req, pos, rule)
        run_request(req, self._telling(pos, rule,
                                       lambda r: swap2.decide(r, pos.copy(), rule, self.loader, self._effect_for)))

    def _effect_for(self, moves: list[tuple[int, int]]) -> Callable[[], None]:
        """Effect applied when an answer goes out: our stones enter the game record."""
        pos = self.pos

        def effect() -> None:
            if pos is not None:
                for m in moves:
                    try:
                        pos.play(*m)
                    except PositionError:
                        pass
        return effect

    def _new_request(self, t: float, fallback: Answer, warnings: Optional[list[str]] = None) -> MoveRequest:
        first = self.moves_answered == 0
        budget = timeman.compute_budget(self.time, t, first_move=first,
                                        startup_s=self.startup_s if first else 0.0)
        messages = self._pending_messages + list(warnings or [])[:5]
        self._pending_messages = []
        req = MoveRequest(self.out, budget, fallback, messages, clock=self.clock)
        self.request = req
        self.moves_answered += 1
        return req

    def _request_move(self, t: float, warnings: Optional[list[str]] = None) -> None:
        pos = self.pos
        assert pos is not None
        fb = self._fallback_move(pos)
        if fb is None:
            self.out.send("ERROR the board is full")
            return
        req = self._new_request(t, (format_move(fb), self._effect_for([fb]), []), warnings)
        snapshot = pos.copy()
        rule = self.rule
        self._tell(req, snapshot, rule)
        run_request(req, self._telling(snapshot, rule, lambda r: self._think_job(r, snapshot, rule)))

    def _tell(self, req: MoveRequest, pos: Position, rule: Rule) -> None:
        """Put the net/evaluator notices for this game (EngineLoader.notices) before the
        answer to `req`, once per board size and rule in this process: a manager hears why
        the net it named is not playing before the first move it does not play, and again
        when INFO rule or a new START changes the game. Nothing while the engine is still
        loading (the net's claims are not known yet): the job asks again once it has run."""
        key = (pos.width, pos.height, rule.label)
        with self._lock:
            if key in self._told:
                return
            try:
                notices = self.loader.notices(pos.width, pos.height, rule.label)
            except Exception as exc:  # noqa: BLE001 - a notice must never cost the move
                print(f"net notice failed: {exc}")
                notices = []
            if notices is None:
                return
            if not notices or req.add_messages(notices):
                self._told.add(key)

    def _telling(self, pos: Position, rule: Rule,
                 job: Callable[[MoveRequest], Optional[Answer]]) -> Callable[[MoveRequest], Optional[Answer]]:
        """`job`, then `_tell` again: a move asked for while the engine loaded learns what
        the net is only once the job has waited for the engine."""
        def run(req: MoveRequest) -> Optional[Answer]:
            try:
                return job(req)
            finally:
                self._tell(req, pos, rule)
        return run

    def _fallback_move(self, pos: Position) -> Optional[tuple[int, int]]:
        """The watchdog's move: the engine's static choice once everything is loaded (it knows
        renju fouls), else the pure-Python one. Never triggers a numba compile or cache load here
        (the reader thread): `ready` comes before the warm-up has loaded quick_move, `warmed` after."""
        loader = self.loader
        if loader.warmed.is_set() and loader.quick_move is not None:
            try:
                return loader.quick_move(pos.to_board(loader.Board, self.rule))
            except Exception as exc:  # noqa: BLE001 - e.g. a position the Board refuses
                print(f"quick_move failed: {exc}")
        return cheap_move(pos, self.rule)

    def _board_fallback(self, pos: Position, rule: Rule) -> Optional[Answer]:
        """No search this time: the cheap move, with renju fouls excluded through the numba
        Board when its (already loaded) functions are usable."""
        loader = self.loader
        if rule != Rule.RENJU or pos.to_move != BLACK or not loader.board_ready.is_set() or pos.blocked:
            return None
        try:
            board = pos.to_board(loader.Board, rule)
            fb = cheap_move(pos, rule, board.is_forbidden)
        except Exception as exc:  # noqa: BLE001 - keep the precomputed fallback
            print(f"board fallback failed: {exc}")
            return None
        return None if fb is None else (format_move(fb), self._effect_for([fb]), [])

    def _think_job(self, req: MoveRequest, pos: Position, rule: Rule) -> Optional[Answer]:
        """Runs in the thinking thread: wait for the engine, build the Board, search."""
        loader = self.loader
        budget = req.budget
        now = self.clock()
        if not loader.acquire(budget.soft - now, ready_timeout=budget.soft - now - 0.02):
            print("no search: " + ("the engine is busy" if loader.ready.is_set() else "the engine is still loading")
                  + " at the soft deadline")
            return self._board_fallback(pos, rule)
        left = budget.soft - self.clock()
        if not (budget.instant or self.searched or loader.warmed.is_set()) and left < COLD_SEARCH_MIN_S:
            # no search has run yet and the warm-up has not loaded one: a search this short
            # would spend its time loading the search's code and answer late, if at all
            loader.release()
            print(f"no search: the engine got ready {1000 * left:.0f} ms before the soft deadline")
            return self._board_fallback(pos, rule)
        try:
            try:
                board = pos.to_board(loader.Board, rule)
            except loader.IllegalMove as exc:
                print(f"position not playable by the engine: {exc}")
                return None
            forbidden = board.is_forbidden if rule == Rule.RENJU and pos.to_move == BLACK else None
            fb = loader.quick_move(board) if loader.quick_move is not None else cheap_move(pos, rule, forbidden)
            if fb is not None:
                req.set_fallback((format_move(fb), self._effect_for([fb]), []))
            # the engine stops at the budget's soft deadline and ends its checks before the hard
            # one (engine.base.timeman.engine_times); max_memory goes through as the process-wide
            # limit: the agent sizes its tables from it; 0/None = its default.
            think_s, hard_s = timeman.engine_times(req.budget, self.clock())
            limit = loader.Limit(turn_time=think_s, hard_time=hard_s, depth=self.max_depth,
                                 nodes=self.max_node, max_memory=self.time.max_memory or None)
            result = loader.think(board, limit, req.stop)
            self.searched = True
            info = result.info
            # depth 0: stopped before its first iteration ended (a cold search on a loaded
            # machine); the move is then the search's first-ranked one, and no MESSAGE follows
            print(f"search: depth {info.get('depth')} nodes {info.get('nodes')} "
                  f"in {1000 * float(info.get('time') or 0):.0f} ms of {1000 * think_s:.0f}")
        finally:
            loader.release()
        move = result.move
        if move is None or not pos.in_bounds(*move) or pos.cell(*move) != 0 \
                or (forbidden is not None and forbidden(*move)):
            print(f"engine gave no legal move ({move}); using the fallback")
            return None
        return format_move(move), self._effect_for([move]), _info_message(result.info)


def _info_message(info: "SearchInfo | dict[str, Any]") -> list[str]:
    """One MESSAGE text with depth/eval/pv when the engine really searched, else nothing."""
    text = SearchInfo.of(info).message(format_move)
    return [text] if text else []
