#!/usr/bin/env python3
"""Writes Kiln's bundled example: a small MLP as a TensorFlow GraphDef in text form, an
input batch, and the expected output computed independently with NumPy (float64).

    x[2,8] -> MatMul(w1[8,16]) -> BiasAdd(b1) -> Relu -> MatMul(w2[16,4]) -> BiasAdd(b2)
           -> Softmax = probs[2,4]

Run with Debian's python3 (python3-numpy): /usr/bin/python3 examples/mlp/make_mlp.py
Outputs (next to this script): mlp.pbtxt, x.npy, probs_0.npy.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2015)
w1 = rng.normal(0, 0.5, (8, 16)).astype(np.float32)
b1 = rng.normal(0, 0.1, (16,)).astype(np.float32)
w2 = rng.normal(0, 0.5, (16, 4)).astype(np.float32)
b2 = rng.normal(0, 0.1, (4,)).astype(np.float32)
x = rng.uniform(-1, 1, (2, 8)).astype(np.float32)


def const(name, value):
    dims = "".join("        dim { size: %d }\n" % d for d in value.shape)
    vals = "".join("        float_val: %s\n" % np.format_float_positional(v, unique=True)
                   for v in value.reshape(-1))
    return """node {
  name: "%s"
  op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape {
%s        }
%s      }
    }
  }
}
""" % (name, dims, vals)


def op(name, kind, inputs, extra=""):
    ins = "".join('  input: "%s"\n' % i for i in inputs)
    return """node {
  name: "%s"
  op: "%s"
%s  attr { key: "T" value { type: DT_FLOAT } }
%s}
""" % (name, kind, ins, extra)


graph = ["# A small MLP for Kiln's example, written by make_mlp.py. Do not edit.\n"]
graph.append("""node {
  name: "x"
  op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 8 } } } }
}
""")
graph += [const("dense1/kernel", w1), const("dense1/bias", b1),
          const("dense2/kernel", w2), const("dense2/bias", b2)]
graph.append(op("dense1/MatMul", "MatMul", ["x", "dense1/kernel"],
                '  attr { key: "transpose_a" value { b: false } }\n'
                '  attr { key: "transpose_b" value { b: false } }\n'))
graph.append(op("dense1/BiasAdd", "BiasAdd", ["dense1/MatMul", "dense1/bias"],
                '  attr { key: "data_format" value { s: "NHWC" } }\n'))
graph.append(op("dense1/Relu", "Relu", ["dense1/BiasAdd"]))
graph.append(op("dense2/MatMul", "MatMul", ["dense1/Relu", "dense2/kernel"]))
graph.append(op("dense2/BiasAdd", "BiasAdd", ["dense2/MatMul", "dense2/bias"]))
graph.append(op("probs", "Softmax", ["dense2/BiasAdd"]))
graph.append("versions { producer: 1882 }\n")

with open(os.path.join(HERE, "mlp.pbtxt"), "w") as f:
    f.write("".join(graph))

# The reference, in float64 from the same float32 weights.
h = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
logits = h @ w2 + b2
e = np.exp(logits - logits.max(axis=1, keepdims=True))
probs = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
np.save(os.path.join(HERE, "x.npy"), x)
np.save(os.path.join(HERE, "probs_0.npy"), probs)
print("wrote mlp.pbtxt, x.npy, probs_0.npy; probs =\n", probs)
