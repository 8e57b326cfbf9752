"""Monte Carlo tree search for two or more players: PUCT over a policy-value net, or random
rollouts (the seeds' "pure MCTS"), with exact knowledge (terminal positions, immediate wins,
forced blocks, proven values) inside the tree.

The tree plays on the padded k-in-a-row cells of `engine.game.cells`. `tree` holds the
jitted node arrays and their select / expand / backup, `search` the per-player driver with
time and playout limits, `selfplay` many games at once for training, `player` the Player the
match runner uses.
"""
