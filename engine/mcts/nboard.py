"""Old home of the n-seat board, kept only for the terminal sessions in tools/ being rewritten
now; the board lives in `engine.game.nboard`. Delete this module once tools/ imports from there."""
from gomoku.engine.game.nboard import NBoard, NBoardError, check_game

__all__ = ["NBoard", "NBoardError", "check_game"]
