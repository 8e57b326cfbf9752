"""The engine as a player, above its searches: the facade that turns a position and a limit
into a move (agent), the compile step every brain and command runs first (warmup), and the
review of a recorded game (review).

They may use every room of the engine below the match runner; engine.match sits above them
(its referee plays them, its spec parser builds the classical one), so they never import it.
"""
