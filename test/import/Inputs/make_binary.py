#!/usr/bin/env python3
"""Writes the binary GraphDef inputs of the import and diagnostics tests.

Protobuf's Python package is not needed: this file encodes the few messages it uses
(GraphDef, NodeDef, AttrValue, TensorProto, TensorShapeProto, VersionDef) by hand, with the
field numbers of compiler/Import/proto/*.proto. Run it from anywhere; it writes into the
directory given as its argument, or beside itself (the committed copies; the import tests
check that they match what this script writes):

  small_graph.pb   Placeholder -> AddV2 (Const from tensor_content, control input) -> Relu
  consts.pb        Consts with packed typed fields: negative int32, int64, uint64, bool,
                   double, half, and a value that repeats
  corrupt.pb       bytes that are not a protobuf (fixed pseudo-random bytes)
"""
import hashlib
import os
import struct
import sys

# tensorflow.DataType
DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8 = 1, 2, 3, 4, 5, 6
DT_INT64, DT_BOOL, DT_HALF, DT_UINT64 = 9, 10, 19, 23

VARINT, I64, LEN, I32 = 0, 1, 2, 5


def varint(value):
    """Base-128 varint; negative values as their 64-bit two's complement (10 bytes)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def int_field(field, value):
    return key(field, VARINT) + varint(value)


def bytes_field(field, data):
    if isinstance(data, str):
        data = data.encode()
    return key(field, LEN) + varint(len(data)) + data


def packed(field, values, fmt=None):
    """A packed repeated scalar: varints, or fixed-width values in struct format `fmt`."""
    if fmt is None:
        body = b"".join(varint(v) for v in values)
    else:
        body = b"".join(struct.pack("<" + fmt, v) for v in values)
    return bytes_field(field, body)


def shape(dims=None, unknown_rank=False):
    if unknown_rank:
        return int_field(3, 1)
    return b"".join(bytes_field(2, int_field(1, d)) for d in dims)


def tensor(dtype, dims, **fields):
    out = int_field(1, dtype) + bytes_field(2, shape(dims))
    if "content" in fields:
        out += bytes_field(4, fields["content"])
    if "float_val" in fields:
        out += packed(5, fields["float_val"], "f")
    if "double_val" in fields:
        out += packed(6, fields["double_val"], "d")
    if "int_val" in fields:
        out += packed(7, fields["int_val"])
    if "int64_val" in fields:
        out += packed(10, fields["int64_val"])
    if "bool_val" in fields:
        out += packed(11, [int(b) for b in fields["bool_val"]])
    if "half_val" in fields:
        out += packed(13, fields["half_val"])
    if "uint64_val" in fields:
        out += packed(17, fields["uint64_val"])
    return out


def attr_type(dtype):
    return int_field(6, dtype)


def attr_shape(dims=None, unknown_rank=False):
    return bytes_field(7, shape(dims, unknown_rank))


def attr_tensor(t):
    return bytes_field(8, t)


def node(name, op, inputs=(), device="", **attrs):
    out = bytes_field(1, name) + bytes_field(2, op)
    for i in inputs:
        out += bytes_field(3, i)
    if device:
        out += bytes_field(4, device)
    for k in sorted(attrs):
        entry = bytes_field(1, k) + bytes_field(2, attrs[k])
        out += bytes_field(5, entry)
    return out


def graph(nodes, producer):
    return b"".join(bytes_field(1, n) for n in nodes) + bytes_field(4, int_field(1, producer))


def const(name, t, dtype):
    return node(name, "Const", dtype=attr_type(dtype), value=attr_tensor(t))


def small_graph():
    return graph([
        node("x", "Placeholder", dtype=attr_type(DT_FLOAT), shape=attr_shape([-1, 3])),
        const("c", tensor(DT_FLOAT, [3], content=struct.pack("<3f", 1.0, -2.0, 0.5)), DT_FLOAT),
        node("init", "NoOp"),
        node("sum", "AddV2", ["x", "c:0", "^init"],
             device="/job:localhost/replica:0/task:0/device:CPU:0", T=attr_type(DT_FLOAT)),
        node("out", "Relu", ["sum"], T=attr_type(DT_FLOAT)),
    ], producer=27)


def consts():
    return graph([
        const("i32", tensor(DT_INT32, [3], int_val=[-1, 0, 2147483647]), DT_INT32),
        const("i8", tensor(DT_INT8, [2], int_val=[-128, 127]), DT_INT8),
        const("u8", tensor(DT_UINT8, [2], int_val=[200, 255]), DT_UINT8),
        const("i64", tensor(DT_INT64, [2], int64_val=[-9223372036854775808, 42]), DT_INT64),
        const("u64", tensor(DT_UINT64, [2], uint64_val=[18446744073709551615, 1]), DT_UINT64),
        const("b", tensor(DT_BOOL, [4], bool_val=[True, False]), DT_BOOL),
        const("f64", tensor(DT_DOUBLE, [2], double_val=[0.25, -1e10]), DT_DOUBLE),
        const("f16", tensor(DT_HALF, [2], half_val=[0x3C00, 0xC000]), DT_HALF),
        const("rep", tensor(DT_FLOAT, [2, 3], float_val=[1.0, 2.0, 3.0]), DT_FLOAT),
        const("zeros", tensor(DT_INT16, [3]), DT_INT16),
    ], producer=27)


def corrupt():
    # Deterministic noise; the first byte is not a letter, so the importer cannot take the
    # file for text.
    data = b"".join(hashlib.sha256(b"kiln-%d" % i).digest() for i in range(8))
    return b"\xff" + data


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(here, exist_ok=True)
    for name, data in [("small_graph.pb", small_graph()), ("consts.pb", consts()),
                       ("corrupt.pb", corrupt())]:
        with open(os.path.join(here, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
