"""The search tree as flat arrays, and the jitted steps of one playout.

A `Forest` holds the nodes of G trees (G games searched together in self-play, one for a
player) in one pool: tree g owns nodes base[g] .. base[g] + cap[g], handed out by a bump
allocator, children of a node in one contiguous block. No Python object exists per node, so
the tree costs about 40 bytes a node and a playout never leaves compiled code.

Values are kept per seat (wsum[node, seat]), so the same code serves two or more players: a
node's mover picks by its own seat's value. A decided game is worth +1 to the winner and
-1/(P-1) to each other player (the three-player Gobang paper's +2/-1 shaping, scaled), and the draw value
(params[P_DRAW], normally 0) to all on a draw. A draw value below zero is contempt for both
sides: the game stops being zero-sum, and each seat steers away from lines the net sees drawn.

Exact knowledge, for two players also proven values (MCTS-Solver):
- term[node]: the move into the node won (1), filled the board (2), neither (0), unchecked (-1);
- at expansion the mover's immediate win is the only child (the node is won), a lone block of
  the opponent's only winning cell the only child, and two or more such cells a proven loss;
- solved[node] (+1 the mover there wins, -1 loses) is backed up: a child lost for its mover
  wins its parent; a parent whose children all win for their movers is lost. A proven node is
  never searched below again; its exact value is backed up instead.

params[P_BARE] = 1 turns all of that off but the rules (`pure-mcts:tactics=0`): every legal move
is a child, a won position is worth its result each time a playout reaches it and nothing is
proven, an unvisited child counts as worth 0 - params[P_FPU] and the parent's own playout in
flight is not counted, as in junxiaosong/AlphaZero_Gomoku's mcts_pure, the opponent of the UCAS
Gobang paper's Table 1. The tree then sees a win in one only through its rollouts.

A leaf waiting for its net evaluation is `pending`: another playout of the same batch that
reaches it stops there (a collision) rather than descending into children without priors.
Virtual loss: every node on a path in flight counts one extra visit lost for its mover.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..net.planes import fill_planes
from ..base.numba_cache import drop_stale_cache
from ..game.cells import is_legal, has_stone_within, winning_cells, wins_at

# the jitted code here embeds these modules' functions (see numba_cache.drop_stale_cache)
drop_stale_cache(__file__, ('game.core', 'game.patterns', 'game.cells', 'net.planes'))

# params[] slots (float64 array handed to every jitted call)
P_WIDTH, P_HEIGHT, P_STRIDE, P_PLAYERS, P_WIN, P_RULE, P_SELECT, P_CPUCT, P_FPU, P_RADIUS, P_DRAW, P_BARE = range(12)
PARAMS_LEN = 12
SELECT_PUCT, SELECT_UCB1, SELECT_PLAIN = 0, 1, 2   # PUCT; UCB1; the Columbia AlphaZero Gomoku paper's Q + P / (1 + N)
#: flat Monte Carlo (the Fudan threat-space-search paper): no tree below the root, playouts
#: shared evenly among its children
SELECT_FLAT = 3

# term[]
T_UNCHECKED, T_OPEN, T_WON, T_FULL = -1, 0, 1, 2
# status of one playout's leaf
L_EVAL, L_EXACT, L_COLLISION, L_FULL = 0, 1, 2, 3

MAX_DEPTH = 512      # longest path a playout follows (boards are at most 22x22 = 484 cells)
#: node bytes: visits, vloss, prior, move, parent, first, nchild (4 each) + 3 flags + P floats
NODE_BYTES_BASE = 31


class Forest(NamedTuple):
    visits: np.ndarray    # int32[M]
    wsum: np.ndarray      # float32[M, P]: value sums per seat
    vloss: np.ndarray     # int32[M]: playouts in flight through the node
    prior: np.ndarray     # float32[M]
    move: np.ndarray      # int32[M]: padded cell of the move into the node (-1 at a game's top)
    parent: np.ndarray    # int32[M] (-1: none kept)
    first: np.ndarray     # int32[M]: first child, -1 while unexpanded
    nchild: np.ndarray    # int32[M]
    term: np.ndarray      # int8[M]
    solved: np.ndarray    # int8[M]
    pending: np.ndarray   # int8[M]
    base: np.ndarray      # int64[G]
    cap: np.ndarray       # int64[G]
    used: np.ndarray      # int64[G]
    root: np.ndarray      # int64[G]
    cells: np.ndarray     # int8[G, N]: padded board at each tree's root
    nstones: np.ndarray   # int64[G]: stones on the board at the root
    last: np.ndarray      # int64[G, 2]: padded cells of the last two moves at the root (-1: none)
    board: np.ndarray     # int32[W * H]: padded index of each flat cell
    flat: np.ndarray      # int32[N]: flat cell of each padded index (-1 off the board)
    steps: np.ndarray     # int64[4]
    rng: np.ndarray       # uint64[1]: xorshift state (rollouts, collisions), owned by the forest


class Scratch(NamedTuple):
    """Work arrays of one searcher: the jitted playout code allocates nothing (see board.py)."""
    cells: np.ndarray       # int8[N]: the board along a playout
    flat_cells: np.ndarray  # int8[W * H]
    tmp: np.ndarray         # int64[W * H]: candidate cells
    empties: np.ndarray     # int64[W * H]: a rollout's empty cells
    value: np.ndarray       # float64[P]
    last: np.ndarray        # int64[2]
    path: np.ndarray        # int64[MAX_DEPTH]


def new_scratch(f: "Forest") -> Scratch:
    area = f.board.shape[0]
    return Scratch(np.zeros(f.cells.shape[1], np.int8), np.zeros(area, np.int8), np.zeros(area, np.int64),
                   np.zeros(area, np.int64), np.zeros(f.wsum.shape[1]), np.zeros(2, np.int64),
                   np.zeros(MAX_DEPTH, np.int64))


def node_bytes(players: int) -> int:
    return NODE_BYTES_BASE + 4 * players


def new_forest(width: int, height: int, players: int, trees: int, nodes_per_tree: int,
               seed: int = 1) -> Forest:
    from ..game.cells import direction_steps, flat_to_padded, new_cells, padded_size
    m = trees * nodes_per_tree
    n = padded_size(width, height)
    board = flat_to_padded(width, height)
    flat = np.full(n, -1, dtype=np.int32)
    flat[board] = np.arange(width * height, dtype=np.int32)
    f = Forest(
        visits=np.zeros(m, np.int32), wsum=np.zeros((m, players), np.float32), vloss=np.zeros(m, np.int32),
        prior=np.zeros(m, np.float32), move=np.full(m, -1, np.int32), parent=np.full(m, -1, np.int32),
        first=np.full(m, -1, np.int32), nchild=np.zeros(m, np.int32), term=np.full(m, T_UNCHECKED, np.int8),
        solved=np.zeros(m, np.int8), pending=np.zeros(m, np.int8),
        base=np.arange(trees, dtype=np.int64) * nodes_per_tree, cap=np.full(trees, nodes_per_tree, np.int64),
        used=np.zeros(trees, np.int64), root=np.zeros(trees, np.int64),
        cells=np.tile(new_cells(width, height, players), (trees, 1)), nstones=np.zeros(trees, np.int64),
        last=np.full((trees, 2), -1, np.int64), board=board, flat=flat,
        steps=direction_steps(width), rng=np.array([seed * 0x9E3779B97F4A7C15 % (1 << 64) or 1], np.uint64))
    for g in range(trees):
        reset_tree(f, g)
    return f


@njit(cache=True, nogil=True, _nrt=False)
def _init_node(f: Forest, i: np.int64, move: np.int64, parent: np.int64, prior: np.float32) -> None:
    f.visits[i] = 0
    for s in range(f.wsum.shape[1]):
        f.wsum[i, s] = 0.0
    f.vloss[i] = 0
    f.prior[i] = prior
    f.move[i] = move
    f.parent[i] = parent
    f.first[i] = -1
    f.nchild[i] = 0
    f.term[i] = T_UNCHECKED
    f.solved[i] = 0
    f.pending[i] = 0


@njit(cache=True, nogil=True, _nrt=False)
def reset_tree(f: Forest, g: np.int64) -> None:
    """Drop tree g's nodes; its root becomes a fresh node for the position in cells[g]."""
    r = f.base[g]
    _init_node(f, r, -1, -1, np.float32(1.0))
    f.term[r] = T_OPEN
    f.used[g] = 1
    f.root[g] = r


@njit(cache=True, nogil=True, _nrt=False)
def next_random(f: Forest) -> np.uint64:
    x = f.rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    f.rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, nogil=True, _nrt=False)
def outcome_values(winner: np.int64, players: np.int64, draw: np.float64, out: np.ndarray) -> None:
    """Per-seat value of a decided game (winner -1: a draw, worth `draw` to every seat)."""
    for s in range(players):
        out[s] = draw if winner < 0 else (1.0 if s == winner else -1.0 / (players - 1))


@njit(cache=True, nogil=True, _nrt=False)
def _best_child(f: Forest, node: np.int64, mover: np.int64, prm: np.ndarray) -> int:
    first = f.first[node]
    nc = f.nchild[node]
    parent_n = f.visits[node] + f.vloss[node]
    sqrt_n = np.sqrt(max(parent_n, 1))
    log_n = np.log(max(parent_n, 1))
    c = prm[P_CPUCT]
    sel = np.int64(prm[P_SELECT])
    if f.visits[node] > 0 and prm[P_BARE] == 0:
        fpu = (f.wsum[node, mover] - f.vloss[node]) / (f.visits[node] + f.vloss[node]) - prm[P_FPU]
    else:
        fpu = -prm[P_FPU]
    if prm[P_BARE] != 0:
        sqrt_n = np.sqrt(f.visits[node])   # mcts_pure: sqrt of the parent's visits, 0 at its first
    best = -1
    best_score = -np.inf
    fallback = first
    for i in range(first, first + nc):
        s = f.solved[i]
        if s == -1:
            return i                       # a move that wins by force
        if s == 1:
            if f.visits[i] > f.visits[fallback] or f.solved[fallback] != 1:
                fallback = i
            continue                       # a move that loses by force
        n = f.visits[i] + f.vloss[i]
        if sel == SELECT_FLAT:
            score: float = -np.float64(n)  # round robin: the least tried child next
        elif sel == SELECT_UCB1:
            if n == 0:
                score = np.inf
            else:
                score = (f.wsum[i, mover] - f.vloss[i]) / n + c * np.sqrt(log_n / n)
        else:
            q = fpu if n == 0 else (f.wsum[i, mover] - f.vloss[i]) / n
            if sel == SELECT_PLAIN:
                score = q + f.prior[i] / (1.0 + n)
            else:
                score = q + c * f.prior[i] * sqrt_n / (1.0 + n)
        if score > best_score:
            best_score = score
            best = i
    return best if best >= 0 else fallback


@njit(cache=True, nogil=True, _nrt=False)
def _expand(f: Forest, g: np.int64, node: np.int64, cells: np.ndarray, mover: np.int64, nstones: np.int64,
            prm: np.ndarray, tmp: np.ndarray) -> int:
    """Create node's children; returns L_EVAL (needs a value), L_EXACT (decided here: solved
    or the only move wins) or L_FULL (tree g is out of nodes). The children's priors are
    uniform until the net's policy arrives."""
    players = np.int64(prm[P_PLAYERS])
    k = np.int64(prm[P_WIN])
    rule = np.int64(prm[P_RULE])
    color = mover + 1
    nxt = (mover + 1) % players + 1
    # 1. the mover wins at once: that move is the only child, the node is won
    bare = prm[P_BARE] != 0
    nw = 0 if bare else winning_cells(cells, f.steps, f.board, color, k, rule, players, tmp)
    count = 0
    exact = False
    if bare:
        pass                                # no exact knowledge: every legal move below
    elif nw > 0:
        count = 1
        exact = True
    else:
        # 2. the next player threatens to win: block (one cell) or lose (two or more)
        nt = winning_cells(cells, f.steps, f.board, nxt, k, rule, players, tmp)
        if nt > 0:
            for j in range(nt):
                if is_legal(cells, f.steps, tmp[j], color, rule):
                    tmp[count] = tmp[j]
                    count += 1
            if players == 2 and (nt >= 2 or count == 0):
                exact = True
    if count == 0:
        # 3. no win and no block to play (a win makes count 1): every legal move (near the
        # stones when a radius is set); also when the only block is a renju foul: the node is
        # lost, but the mover must still have moves to play
        radius = np.int64(prm[P_RADIUS])
        near = radius > 0 and nstones > 0
        stride = np.int64(prm[P_STRIDE])
        for j in range(f.board.shape[0]):
            idx = f.board[j]
            if cells[idx] != 0:
                continue
            if near and not has_stone_within(cells, idx, stride, radius, players):
                continue
            if is_legal(cells, f.steps, idx, color, rule):
                tmp[count] = idx
                count += 1
        if count == 0 and near:
            for j in range(f.board.shape[0]):
                idx = f.board[j]
                if is_legal(cells, f.steps, idx, color, rule):
                    tmp[count] = idx
                    count += 1
        if count == 0:
            f.term[node] = T_FULL   # no legal move (renju black with only fouls left): a draw
            return L_EXACT
    start = f.base[g] + f.used[g]
    if f.used[g] + count > f.cap[g]:
        return L_FULL
    f.used[g] += count
    f.first[node] = start
    f.nchild[node] = count
    p = np.float32(1.0 / max(count, 1))
    for j in range(count):
        _init_node(f, start + j, tmp[j], node, p)
    if nw > 0:
        f.term[start] = T_WON
        if players == 2:
            f.solved[start] = -1
            f.solved[node] = 1
    elif exact:
        f.solved[node] = -1
    return L_EXACT if exact else L_EVAL


@njit(cache=True, nogil=True, _nrt=False)
def exact_value(f: Forest, node: np.int64, mover: np.int64, players: np.int64, draw: np.float64,
                out: np.ndarray) -> None:
    """The value of a decided node (terminal or proven) for every seat."""
    if f.term[node] == T_WON:
        outcome_values((mover - 1) % players, players, draw, out)      # the player who moved in won
    elif f.solved[node] == 1:
        outcome_values(mover, players, draw, out)
    elif f.solved[node] == -1:
        outcome_values((mover + 1) % players, players, draw, out)      # two players: the other one
    elif f.first[node] >= 0 and f.term[f.first[node]] == T_WON:
        outcome_values(mover, players, draw, out)                      # n players: the only move wins
    else:
        outcome_values(-1, players, draw, out)


@njit(cache=True, nogil=True, _nrt=False)
def select_leaf(f: Forest, g: np.int64, prm: np.ndarray, cells: np.ndarray, path: np.ndarray,
                tmp: np.ndarray, value: np.ndarray, last: np.ndarray) -> tuple[int, int]:
    """One playout's descent in tree g, with virtual loss on its path.

    cells: scratch board, left holding the leaf position. Returns (status, depth) with
    path[0..depth] the nodes; for L_EXACT `value` holds the leaf's exact per-seat value; for
    L_EVAL the leaf is expanded and pending; last[0..1] the leaf's last two moves (padded).
    L_COLLISION and L_FULL leave no virtual loss behind."""
    players = np.int64(prm[P_PLAYERS])
    k = np.int64(prm[P_WIN])
    rule = np.int64(prm[P_RULE])
    for j in range(cells.shape[0]):
        cells[j] = f.cells[g, j]
    node = f.root[g]
    mover = f.nstones[g] % players
    nstones = f.nstones[g]
    area = f.board.shape[0]
    last[0] = f.last[g, 0]
    last[1] = f.last[g, 1]
    depth = 0
    path[0] = node
    while True:
        f.vloss[node] += 1
        if f.term[node] == T_UNCHECKED:
            mv = f.move[node]
            if wins_at(cells, f.steps, mv, (mover - 1) % players + 1, k, rule, players):
                f.term[node] = T_WON
                if players == 2 and prm[P_BARE] == 0:
                    f.solved[node] = -1
            elif nstones >= area:
                f.term[node] = T_FULL
            else:
                f.term[node] = T_OPEN
        if f.term[node] != T_OPEN or f.solved[node] != 0:
            exact_value(f, node, mover, players, prm[P_DRAW], value)
            return L_EXACT, depth
        if depth >= 1 and np.int64(prm[P_SELECT]) == SELECT_FLAT:
            return L_EVAL, depth           # flat: a root child is a leaf, rolled out as it is
        if f.first[node] < 0:
            st = _expand(f, g, node, cells, mover, nstones, prm, tmp)
            if st == L_FULL:
                unwind(f, path, depth)
                return L_FULL, depth
            if st == L_EXACT:
                exact_value(f, node, mover, players, prm[P_DRAW], value)
                return L_EXACT, depth
            f.pending[node] = 1
            return L_EVAL, depth
        if f.pending[node] != 0:
            unwind(f, path, depth)
            return L_COLLISION, depth
        child = _best_child(f, node, mover, prm)
        mv = f.move[child]
        cells[mv] = mover + 1
        last[1] = last[0]
        last[0] = mv
        nstones += 1
        mover = (mover + 1) % players
        node = child
        depth += 1
        path[depth] = node


@njit(cache=True, nogil=True, _nrt=False)
def unwind(f: Forest, path: np.ndarray, depth: np.int64) -> None:
    """Take back the virtual loss of a playout that ends without a value."""
    for i in range(depth + 1):
        f.vloss[path[i]] -= 1


@njit(cache=True, nogil=True, _nrt=False)
def backup(f: Forest, path: np.ndarray, depth: np.int64, value: np.ndarray) -> None:
    """Add one visit with `value` (per seat) along the path, drop its virtual loss, and carry
    proven results (two players) up as far as they decide their parents."""
    for i in range(depth, -1, -1):
        n = path[i]
        f.vloss[n] -= 1
        f.visits[n] += 1
        for s in range(value.shape[0]):
            f.wsum[n, s] += value[s]
    if value.shape[0] != 2:
        return
    for i in range(depth - 1, -1, -1):
        child = path[i + 1]
        parent = path[i]
        if f.solved[parent] != 0:
            break
        if f.solved[child] == -1:
            f.solved[parent] = 1
        elif f.solved[child] == 1:
            first = f.first[parent]
            for c in range(first, first + f.nchild[parent]):
                if f.solved[c] != 1:
                    return
            f.solved[parent] = -1
        else:
            return


@njit(cache=True, nogil=True, _nrt=False)
def set_priors(f: Forest, node: np.int64, logits: np.ndarray, width: np.int64) -> None:
    """Children's priors from the net's policy logits (float32[H, W]): a softmax over the
    children only, so occupied and forbidden cells take no share."""
    first = f.first[node]
    nc = f.nchild[node]
    if nc <= 1:
        return
    mx = -np.inf
    for i in range(first, first + nc):
        fl = f.flat[f.move[i]]
        v = logits[fl // width, fl % width]
        if v > mx:
            mx = v
    total = 0.0
    for i in range(first, first + nc):
        fl = f.flat[f.move[i]]
        e = np.exp(logits[fl // width, fl % width] - mx)
        f.prior[i] = e
        total += e
    for i in range(first, first + nc):
        f.prior[i] = f.prior[i] / total


@njit(cache=True, nogil=True, _nrt=False)
def value_from_logits(logits: np.ndarray, mover: np.int64, players: np.int64, draw: np.float64,
                      out: np.ndarray) -> None:
    """Per-seat value from outcome logits [mover wins, next wins, ..., draw]: the expected
    outcome_values under the net's outcome probabilities."""
    mx = logits[0]
    for i in range(1, players + 1):
        mx = max(mx, logits[i])
    total = 0.0
    for i in range(players + 1):
        total += np.exp(logits[i] - mx)
    sum_win = 0.0
    for i in range(players):
        sum_win += np.exp(logits[i] - mx) / total
    drawn = draw * np.exp(logits[players] - mx) / total      # the same for every seat
    for i in range(players):
        win = np.exp(logits[i] - mx) / total
        out[(mover + i) % players] = win - (sum_win - win) / (players - 1) + drawn


@njit(cache=True, nogil=True, _nrt=False)
def rollout(f: Forest, cells: np.ndarray, mover: np.int64, nstones: np.int64, prm: np.ndarray,
            empties: np.ndarray, value: np.ndarray) -> None:
    """Random playout from the position in `cells` (changed) to the end: the seeds' pure MCTS
    evaluation. Renju fouls are not checked in playouts (only in the tree)."""
    players = np.int64(prm[P_PLAYERS])
    k = np.int64(prm[P_WIN])
    rule = np.int64(prm[P_RULE])
    n = 0
    for j in range(f.board.shape[0]):
        idx = f.board[j]
        if cells[idx] == 0:
            empties[n] = idx
            n += 1
    while n > 0:
        r = np.int64(next_random(f) % np.uint64(n))
        idx = empties[r]
        n -= 1
        empties[r] = empties[n]
        cells[idx] = mover + 1
        if wins_at(cells, f.steps, idx, mover + 1, k, rule, players):
            outcome_values(mover, players, prm[P_DRAW], value)
            return
        mover = (mover + 1) % players
    outcome_values(-1, players, prm[P_DRAW], value)


@njit(cache=True, nogil=True, _nrt=False)
def run_rollout_playouts(f: Forest, g: np.int64, prm: np.ndarray, count: np.int64, sc: Scratch) -> int:
    """`count` playouts of pure MCTS in tree g (one at a time: no net to batch for).
    Returns how many ran (fewer when the tree is full or the root is proven)."""
    players = np.int64(prm[P_PLAYERS])
    cells, path, tmp, empties, value, last = sc.cells, sc.path, sc.tmp, sc.empties, sc.value, sc.last
    done = 0
    for _ in range(count):
        if f.solved[f.root[g]] != 0:
            break
        st, depth = select_leaf(f, g, prm, cells, path, tmp, value, last)
        if st == L_FULL:
            break
        if st == L_EVAL:
            f.pending[path[depth]] = 0
            leaf_mover = (f.nstones[g] + depth) % players
            rollout(f, cells, leaf_mover, f.nstones[g] + depth, prm, empties, value)
        backup(f, path, depth, value)
        done += 1
    return done


@njit(cache=True, nogil=True, _nrt=False)
def collect_batch(f: Forest, trees: np.ndarray, per_tree: np.int64, prm: np.ndarray, planes: np.ndarray,
                  leaf_tree: np.ndarray, leaf_depth: np.ndarray, paths: np.ndarray,
                  max_collisions: np.int64, sc: Scratch) -> tuple[int, int, bool]:
    """Descend up to `per_tree` playouts in each tree of `trees`; leaves that need the net get
    their planes written to planes[b] (b < the returned count). Playouts that end in a decided
    position are backed up here at once. Returns (net leaves, exact playouts, a tree was full)."""
    players = np.int64(prm[P_PLAYERS])
    width = np.int64(prm[P_WIDTH])
    height = np.int64(prm[P_HEIGHT])
    area = f.board.shape[0]
    cells, flat_cells, tmp, value, last = sc.cells, sc.flat_cells, sc.tmp, sc.value, sc.last
    count = 0
    exact = 0
    full = False
    for t in range(trees.shape[0]):
        g = trees[t]
        got = 0
        coll = 0
        while got < per_tree and coll < max_collisions and count < planes.shape[0]:
            if f.solved[f.root[g]] != 0:
                break
            st, depth = select_leaf(f, g, prm, cells, paths[count], tmp, value, last)
            if st == L_EXACT:
                backup(f, paths[count], depth, value)
                exact += 1
                got += 1
            elif st == L_COLLISION:
                coll += 1
            elif st == L_FULL:
                full = True
                break
            else:
                for j in range(area):
                    flat_cells[j] = cells[f.board[j]]
                mover = (f.nstones[g] + depth) % players
                l1 = f.flat[last[0]] if last[0] >= 0 else -1
                l2 = f.flat[last[1]] if last[1] >= 0 else -1
                fill_planes(flat_cells, width, height, players, mover, l1, l2, planes[count])
                leaf_tree[count] = g
                leaf_depth[count] = depth
                count += 1
                got += 1
    return count, exact, full


@njit(cache=True, nogil=True, _nrt=False)
def apply_batch(f: Forest, prm: np.ndarray, count: np.int64, leaf_tree: np.ndarray, leaf_depth: np.ndarray,
                paths: np.ndarray, policy: np.ndarray, values: np.ndarray, sc: Scratch) -> None:
    """Give each collected leaf its priors and value from the net, and back the value up."""
    players = np.int64(prm[P_PLAYERS])
    width = np.int64(prm[P_WIDTH])
    value = sc.value
    for b in range(count):
        g = leaf_tree[b]
        depth = leaf_depth[b]
        node = paths[b, depth]
        mover = (f.nstones[g] + depth) % players
        set_priors(f, node, policy[b], width)
        value_from_logits(values[b], mover, players, prm[P_DRAW], value)
        f.pending[node] = 0
        backup(f, paths[b], depth, value)


@njit(cache=True, nogil=True, _nrt=False)
def advance_root(f: Forest, g: np.int64, move: np.int64) -> bool:
    """Make the child for `move` (padded cell) tree g's root, keeping its subtree; False when
    the root has no such child (the caller resets the tree)."""
    r = f.root[g]
    first = f.first[r]
    if first < 0:
        return False
    for c in range(first, first + f.nchild[r]):
        if f.move[c] == move:
            f.root[g] = c
            return True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def retreat_root(f: Forest, g: np.int64) -> bool:
    """Make the root's parent the root again (a takeback); False when it was not kept."""
    p = f.parent[f.root[g]]
    if p < 0:
        return False
    f.root[g] = p
    return True


@njit(cache=True, nogil=True)
def compact(f: Forest, g: np.int64) -> None:
    """Keep only the subtree of tree g's root, moved to the front of its pool (breadth
    first, so every child block stays contiguous). Ancestors are dropped: a later takeback
    past this root starts a new tree."""
    base = f.base[g]
    used = f.used[g]
    order = np.empty(used, np.int64)
    newfirst = np.full(used, -1, np.int64)
    order[0] = f.root[g]
    head = 0
    tail = 1
    while head < tail:
        o = order[head]
        if f.first[o] >= 0 and f.nchild[o] > 0:
            newfirst[head] = tail
            for c in range(f.first[o], f.first[o] + f.nchild[o]):
                order[tail] = c
                tail += 1
        head += 1
    players = f.wsum.shape[1]
    visits = np.empty(tail, np.int32)
    wsum = np.empty((tail, players), np.float32)
    prior = np.empty(tail, np.float32)
    move = np.empty(tail, np.int32)
    nchild = np.empty(tail, np.int32)
    term = np.empty(tail, np.int8)
    solved = np.empty(tail, np.int8)
    for i in range(tail):
        o = order[i]
        visits[i] = f.visits[o]
        wsum[i] = f.wsum[o]
        prior[i] = f.prior[o]
        move[i] = f.move[o]
        nchild[i] = f.nchild[o]
        term[i] = f.term[o]
        solved[i] = f.solved[o]
    for i in range(tail):
        j = base + i
        f.visits[j] = visits[i]
        f.wsum[j] = wsum[i]
        f.vloss[j] = 0
        f.prior[j] = prior[i]
        f.move[j] = move[i]
        f.nchild[j] = nchild[i]
        f.term[j] = term[i]
        f.solved[j] = solved[i]
        f.pending[j] = 0
        f.first[j] = base + newfirst[i] if newfirst[i] >= 0 else -1
        f.parent[j] = -1
    for i in range(tail):
        if newfirst[i] >= 0:
            for c in range(nchild[i]):
                f.parent[base + newfirst[i] + c] = base + i
    f.root[g] = base
    f.used[g] = tail
