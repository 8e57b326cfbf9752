"""Small ONNX policy-value nets built with the onnx package, for tests that need a real net
file without training one: a uniform net (every move equally likely, every outcome even) and a
randomly initialised conv trunk the size of AlphaZero_Gomoku's (3x3 convs 32-64-128) with fully
convolutional heads. Both follow docs/net-format.md, so the engine loads them like any net."""
from __future__ import annotations

from typing import Optional

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from gomoku.engine.net.metadata import NetInfo


def _finish(nodes, inits, info: NetInfo, path: str, meta_override: Optional[dict] = None) -> str:
    c = len(info.planes)
    planes = helper.make_tensor_value_info("planes", TensorProto.FLOAT, ["B", c, "H", "W"])
    policy = helper.make_tensor_value_info("policy", TensorProto.FLOAT, ["B", "H", "W"])
    value = helper.make_tensor_value_info("value", TensorProto.FLOAT, ["B", info.players + 1])
    graph = helper.make_graph(nodes, "net", [planes], [policy, value], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    meta = info.to_metadata() if meta_override is None else meta_override
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def uniform_net(path: str, players: int = 2, win_length: int = 5, rules=("freestyle",), sizes=(8,),
                meta_override: Optional[dict] = None) -> str:
    """policy logits all 0, value logits all 0 (whatever the position)."""
    info = NetInfo(players=players, win_length=win_length, rules=list(rules), board_sizes=list(sizes),
                   arch="uniform")
    inits = [numpy_helper.from_array(np.zeros((1, players + 1), np.float32), "zeros"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1"),
             numpy_helper.from_array(np.array([1, 2, 3], np.int64), "axes123"),
             numpy_helper.from_array(np.array([-1, 1], np.int64), "shape_b1"),
             numpy_helper.from_array(np.zeros((), np.float32), "zero")]
    nodes = [
        helper.make_node("ReduceSum", ["planes", "axis1"], ["s"], keepdims=0),
        helper.make_node("Mul", ["s", "zero"], ["policy"]),
        helper.make_node("ReduceSum", ["planes", "axes123"], ["t"], keepdims=1),
        helper.make_node("Reshape", ["t", "shape_b1"], ["t2"]),
        helper.make_node("Mul", ["t2", "zeros"], ["value"]),
    ]
    return _finish(nodes, inits, info, path, meta_override)


def conv_net(path: str, players: int = 2, win_length: int = 5, rules=("freestyle",), sizes=(8,),
             channels=(32, 64, 128), seed: int = 0) -> str:
    """Random 3x3 conv trunk + 1x1 policy conv + pooled value head (untrained: for speed)."""
    rng = np.random.default_rng(seed)
    info = NetInfo(players=players, win_length=win_length, rules=list(rules), board_sizes=list(sizes),
                   arch="cnn" + "-".join(str(c) for c in channels))
    nodes, inits = [], []
    x, cin = "planes", players + 4
    for i, cout in enumerate(channels):
        w = (rng.standard_normal((cout, cin, 3, 3)) * np.sqrt(2.0 / (cin * 9))).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(np.zeros(cout, np.float32), f"b{i}")]
        nodes += [helper.make_node("Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"], pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"c{i}"], [f"r{i}"])]
        x, cin = f"r{i}", cout
    wp = (rng.standard_normal((1, cin, 1, 1)) * 0.1).astype(np.float32)
    wv = (rng.standard_normal((players + 1, cin)) * 0.1).astype(np.float32)
    inits += [numpy_helper.from_array(wp, "wp"), numpy_helper.from_array(wv, "wv"),
              numpy_helper.from_array(np.zeros(players + 1, np.float32), "bv"),
              numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    nodes += [helper.make_node("Conv", [x, "wp"], ["p4"]),
              helper.make_node("Squeeze", ["p4", "axis1"], ["policy"]),
              helper.make_node("GlobalAveragePool", [x], ["g"]),
              helper.make_node("Flatten", ["g"], ["gf"]),
              helper.make_node("Gemm", ["gf", "wv", "bv"], ["value"], transB=1)]
    return _finish(nodes, inits, info, path)


if __name__ == "__main__":
    # python tests/netfiles.py OUT.onnx [SIZE [CHANNELS]]: a random conv net for `gomoku bench --net`
    import sys
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    chans = tuple(int(c) for c in sys.argv[3].split(",")) if len(sys.argv) > 3 else (32, 64, 128)
    print(conv_net(out, sizes=(size,), channels=chans))
