"""One two-player game under the referee: its settings, its result, and `play_game`.

The referee itself (`engine.match.referee`) serves games of any number of seats; this module
seats black and white and speaks in colours. A game ends with one of these `reason` codes
(the same words `engine.game.records` maps to SGF results):

    five          the last move made a winning line under the rule
    foul          renju: black played a forbidden point (the move is kept in the record)
    illegal       off-board or occupied cell, or an answer that is not a move
    time          over min(turn time, time left) + tolerance (wall time, measured here for
                  in-process players; enforced with a kill by the brain client)
    crash         the brain died / could not start / an in-process player raised
    resign        the player returned no move and said it resigns
    full          board full: draw
    adjudication  draw by move count (`draw_after` stones on the board)
    proven        won by adjudication: the winner's last report was a proven win and the
                  loser's a proven loss (`adjudicate_proven`)
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Optional

from gomoku.engine.game.rules import Rule
from gomoku.engine.game.seats import Game
from gomoku.engine.game.stones import BLACK, EMPTY, WHITE
from gomoku.engine.base.limits import Limit
from gomoku.engine.match.openings import Opening
from gomoku.engine.match.players import Player, PlayerFactory, make_engine_player
from gomoku.engine.match.referee import ColourWords, referee

DECISIVE = ("five", "foul", "illegal", "time", "crash", "resign", "proven")


@dataclass(frozen=True)
class GameSettings:
    """Everything the referee needs for one game; picklable so workers get a copy."""
    width: int = 15
    height: Optional[int] = None
    rule: Rule = Rule.FREESTYLE
    turn_time: Optional[float] = None    # s per move; 0 = as fast as possible; None = no cap
    match_time: Optional[float] = None   # s per player per game; None = unlimited
    nodes: Optional[int] = None
    depth: Optional[int] = None
    playouts: Optional[int] = None
    max_memory: Optional[int] = None
    tolerance: float = 1.0               # s added to every time limit before a forfeit
    draw_after: Optional[int] = None     # stones on the board (opening included) -> draw
    start_timeout: float = 10.0          # s for a brain to answer ABOUT / START
    brain_info: tuple[tuple[str, str], ...] = ()   # extra `INFO key value` lines for brains
    win_length: int = 5                  # stones in a row that win (4: MCTS players only)
    adjudicate_proven: bool = False      # end a game once both players see the win forced
    # spec -> Player in the playing process; a module-level function (pickled by reference).
    # The engine's own knows in-process kinds; gomoku.protocol.players.make_player adds brains.
    factory: PlayerFactory = make_engine_player

    @property
    def board_height(self) -> int:
        return self.width if self.height is None else self.height

    def game(self) -> Game:
        """The game these settings play: two seats."""
        return Game(self.width, self.board_height, 2, self.win_length, Rule(self.rule))

    def base_limit(self) -> Limit:
        return Limit(turn_time=self.turn_time, match_time=self.match_time, nodes=self.nodes,
                     depth=self.depth, playouts=self.playouts, max_memory=self.max_memory)


@dataclass
class GameResult:
    """One finished game. `winner` is EMPTY/BLACK/WHITE; `reason` a code from the module
    docstring, `detail` the sentence for people ("white played 7,7, an occupied cell")."""
    index: int
    black: str
    white: str
    winner: int
    reason: str
    detail: str
    moves: list[tuple[int, int]]
    times: list[float]                  # seconds per move (0 for opening stones)
    opening: Opening = ()
    a_is_black: Optional[bool] = None
    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    scores: list[Any] = field(default_factory=list)   # per move: the mover's reported score (None: opening)
    win_length: int = 5

    @property
    def result(self) -> str:
        return {BLACK: "1-0", WHITE: "0-1", EMPTY: "1/2-1/2"}[self.winner]

    @property
    def a_score(self) -> float:
        """1 / 0.5 / 0 from player A's point of view (needs a_is_black)."""
        if self.winner == EMPTY:
            return 0.5
        return 1.0 if (self.winner == BLACK) == bool(self.a_is_black) else 0.0

    def text(self) -> str:
        """cutechess-style result text: `1-0 {Black wins by five}`."""
        return f"{self.result} {{{self.detail}}}"

    def to_record(self) -> Any:
        """A gomoku.engine.game.records.GameRecord of this game."""
        from gomoku.engine.game.records import GameRecord
        rec = GameRecord(width=self.width, height=self.height, rule=self.rule, moves=list(self.moves),
                         black=self.black, white=self.white,
                         times=[int(round(t * 1000)) for t in self.times])
        rec.finish(self.winner, record_reason(self.reason, self.win_length))
        rec.extra["GN"] = str(self.index + 1)
        if self.opening:
            rec.extra["OP"] = str(len(self.opening))
        return rec

    def to_labels(self) -> Any:
        """This game as a gomoku.engine.game.labels.ScoredGame (training labels)."""
        from gomoku.engine.game.labels import scored_game
        return scored_game(self.width, self.height, int(self.rule), self.winner, self.moves, len(self.opening),
                           self.scores if len(self.scores) == len(self.moves) else [None] * len(self.moves))

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "black": self.black, "white": self.white, "result": self.result,
                "winner": {BLACK: "black", WHITE: "white", EMPTY: None}[self.winner],
                "reason": self.reason, "detail": self.detail, "a_is_black": self.a_is_black,
                "opening": [list(m) for m in self.opening], "moves": [list(m) for m in self.moves],
                "times": [round(t, 4) for t in self.times]}


COLOUR = {BLACK: "Black", WHITE: "White"}
#: a record's word for a winning line of this many stones (the referee's code is "five" for every length)
ROW_WORDS = {4: "four", 5: "five"}


def record_reason(reason: str, win_length: int) -> str:
    """The reason a game record carries (SGF's GC, .psq's): the referee's code, except that a
    four-in-a-row win says 'four', where the code's 'five' would tell a reader the wrong game."""
    if reason == "five":
        return ROW_WORDS.get(win_length, f"{win_length} in a row")
    return reason


def other_colour(c: int) -> int:
    return WHITE if c == BLACK else BLACK


def play_game(black: Player, white: Player, settings: GameSettings, opening: Opening = (),
              limits: Optional[tuple[Limit, Limit]] = None, index: int = 0,
              stop: Optional[threading.Event] = None) -> GameResult:
    """Play one game and judge it (`engine.match.referee`, seats black and white). Player
    errors never escape: they lose the game.

    `limits` = (black's, white's) Limit when the players have different budgets; default
    is settings.base_limit() for both. `time_left` is filled in per move from the game clock.
    """
    game = settings.game()
    board = game.board(opening)
    words = ColourWords((black.name, white.name), game.width, game.height)
    v = referee([black, white], board, limits or (settings.base_limit(),) * 2, words, settings.tolerance,
                settings.draw_after, stop, settings.adjudicate_proven)
    winner = (v.winner + 1 if v.winner is not None else other_colour(v.loser + 1) if v.loser is not None
              else EMPTY)
    return GameResult(index, black.name, white.name, winner, v.reason, v.detail, v.moves,
                      [0.0] * len(opening) + v.times, tuple(opening), None, game.width, game.height, game.rule,
                      [None] * len(opening) + v.scores, game.win_length)
