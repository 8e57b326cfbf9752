"""Fitting the classical evaluation offline: the Texel fit of the weight tables to game
results or a teacher's scores (`tuning`, what `gomoku tune` runs), and checking a learned
evaluator against the tables (`eval_check`). Work done once, away from the board, so it sits
above the search it serves instead of inside it; nothing that plays imports it. numpy only."""
