"""A cache prefetch hint for jitted code (LLVM's llvm.prefetch), which numba does not expose.

The search asks the transposition table about a child position right after making the move;
the table (32 MiB) does not fit the caches, so that probe usually waits on memory. The child's
key is known before the move is made, and making it takes longer than the memory access, so a
hint issued first hides the wait, as engines written in C++ (PentaZen, Stockfish) do.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch_row(typingctx, arr, row):
    """prefetch_row(arr, row): hint that arr[row, 0] (any C array, row in range) is read soon.
    Only a hint: nothing is loaded into a register and no fault can occur."""
    if not isinstance(arr, types.Array) or not isinstance(row, types.Integer):
        return None
    sig = types.void(arr, row)

    def codegen(context, builder, signature, args):
        aryty, rowty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        first = [context.cast(builder, args[1], rowty, types.intp)]
        rest = [context.get_constant(types.intp, 0)] * (aryty.ndim - 1)
        ptr = cgutils.get_item_pointer2(context, builder, data=ary.data,
                                        shape=cgutils.unpack_tuple(builder, ary.shape),
                                        strides=cgutils.unpack_tuple(builder, ary.strides),
                                        layout=aryty.layout, inds=first + rest, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read access, maximal locality, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                          ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
