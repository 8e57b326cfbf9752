"""The board core, threat solvers, search and evaluation (numba), importable as `gomoku.engine`.

From the repository root Python can also find this folder as a top-level `engine` package.
Imported that way, numba compiles the core again under the other module name and writes those
entries into the same on-disk caches; their pickled types name `engine.*`, which every
`gomoku` command and the brain (run from anywhere) then fail to unpickle, with a traceback
instead of a move. So that name is refused at once, with the one to use.
"""
if __name__ == "engine":
    raise ImportError("import gomoku.engine, not engine: this folder installs as gomoku.engine "
                      "(pip install -e .), and a second name would corrupt its numba caches")
