"""The engine's base services, below every other room: atomic file writes, the numba cache's
upkeep, worker processes, Ctrl-C as a stop, and the vocabulary of limits, results and clocks.

They import nothing of the engine above them (game, search, net, mcts, match, player), so
every room can use them without an arrow pointing back up.
"""
