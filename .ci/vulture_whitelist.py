"""Names vulture cannot see used: a library, a framework or a string calls them. Vulture reads
this file as code that uses each name; nothing imports or runs it. A name that some module
dispatches by pattern is in pyproject.toml's ignore_names instead.

A line here is for a use vulture cannot follow, not for dead code: remove dead code. (The
last section is the exception: dead code found when the check came in, for its owners to use
or remove, dropping its line here.)"""

# attributes written on other libraries' objects, which read them
_.intra_op_num_threads          # onnxruntime.SessionOptions (engine/net/session.py)
_.inter_op_num_threads
_.log_severity_level
_.ir_version                    # onnx ModelProto (tests/netfiles.py, tests/test_net_sanity.py)

# numba
typingctx                       # @intrinsic's first argument (engine/search/prefetch.py)
cdn                             # dfpn's child lookup returns (pn, dn) and reads pn only
_.on_start                      # numba.core.event calls a Listener's on_start (engine/base/compile_log.py)

# warm-up hooks, called by name from engine/player/warmup.py's EXTRA_HOOKS
warm_up_helpers
warm_up_pvs

# run by name in a child process: python -c "from gomoku.engine.player.warmup import child_main; ..."
child_main

# click calls ParamType.convert on each value
_.convert
_.format_commands               # click.Group calls it for the help's command list (tools/cli.py)

# named values of a numbering, kept whole so that the numbers keep their names
C_NONE, C_F2, C_B3, C_F2X2      # engine/game/core.py: cell classes
F1                              # engine/game/patterns.py: line patterns
RULE_FREESTYLE                  # engine/game/cells.py: beside RULE_STANDARD and RULE_RENJU

# engine/search/evaluation.py: each rule's six tables unpacked by name, some read by none yet
FREESTYLE_OPP_WEIGHTS, FREESTYLE_PATTERN_OPP, FREESTYLE_PAIR_OWN
STANDARD_OPP_WEIGHTS, STANDARD_PATTERN_OPP, STANDARD_PAIR_OWN
OPP_WEIGHTS

# unused, left for their owners to use or remove (not on this change's list)
CLASS_NAMES                     # engine/game/core.py, beside PATTERN_NAMES
NUM_KEYS                        # engine/game/patterns.py
DECISIVE                        # engine/match/games.py
NET_KEYS                        # engine/match/random_net.py
value_targets                   # train/games.py (outcome_class's docstring names it)

_split_scope                    # tests/serial_group.py: xdist's scheduler calls the override
gateway, shutting_down, send_runtest_some   # tests/test_serial_group.py: what xdist reads of a node
