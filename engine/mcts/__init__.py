"""Monte Carlo tree search for two or more players: PUCT over a policy-value net, or random
rollouts (the seeds' "pure MCTS"), with exact knowledge (terminal positions, immediate wins,
forced blocks, proven values) inside the tree.

`board` is the k-in-a-row board the tree plays on, `tree` the jitted node arrays and their
select / expand / backup, `search` the per-player driver with time and playout limits,
`selfplay` many games at once for training, `player` the Player the match runner uses.
"""
