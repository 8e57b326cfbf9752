"""The player factory that knows every kind: in-process engines and external Piskvork brains.

It sits in protocol/ because that is the lowest room that sees both: the engine's own factory
(`gomoku.engine.match.players.make_engine_player`) builds every in-process kind, and the brain client
(`gomoku.protocol.client`) drives an external process. Callers that name players on a command
line (tools, training) use this one and hand it to the match runner as `GameSettings.factory`;
it is a module-level function, so worker processes get it by reference.
"""
from __future__ import annotations

from gomoku.engine.match.players import Player, PlayerSpec, SpecError, parse_spec
from gomoku.engine.match.players import make_engine_player


def make_player(spec: PlayerSpec | str, *, tolerance: float = 1.0, start_timeout: float = 10.0,
                info: tuple[tuple[str, str], ...] = (), win_length: int = 5) -> Player:
    """Create the player a spec describes. Raises SpecError for kinds not available yet and
    PlayerStartError when an external brain cannot be started."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if spec.kind == "brain":
        if win_length != 5:
            raise SpecError(f"{spec.name} plays five in a row only (the Piskvork protocol has no other "
                            f"length); use pure-mcts:N or a net for {win_length} in a row")
        from gomoku.protocol.client import BrainClient   # late: starts no import chain for engines
        return BrainClient(spec.arg or "", name=spec.name, tolerance=tolerance, start_timeout=start_timeout,
                           info=info)
    return make_engine_player(spec, tolerance=tolerance, start_timeout=start_timeout, info=info,
                              win_length=win_length)
