#!/usr/bin/env bash
# Writes the seeds of test/fuzz/corpus/ that come from elsewhere in the tree: GraphDefs of
# the end-to-end and import tests (text, and binary through protoc), SavedModels of the
# end-to-end tests, and .npy files of every
# header version and several dtypes (NumPy, /usr/bin/python3). The configs and runner
# command lines are written by hand; findings of scripts/fuzz.sh are added as they are.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
proto=compiler/Import/proto
corpus=test/fuzz/corpus
graphs=(test/e2e/tf/conv3x3_relu_pool test/e2e/tf/gather_out_of_range
        test/e2e/tf/floordiv_by_zero test/e2e/tf/one_hot_range test/e2e/tf/stridedslice_shrink
        test/e2e/tf/batchnorm_v3 test/e2e/tf/reduce_empty_axis test/e2e/tf/depthwise_same
        test/e2e/tf/concat test/e2e/tf/topk_f32_ties test/e2e/tf/range_folded_f32
        test/e2e/tf/fused_matmul_nn_relu test/e2e/tf/einsum_keras_scores
        test/e2e/tf/einsum_ellipsis test/e2e/tf/while_nested test/e2e/tf/cond_in_while
        test/e2e/tf/case_default test/e2e/rnn/lstm test/e2e/rnn/map_fn
        test/e2e/tf/while_v1_nested test/e2e/tf/cond_in_while_v1 test/e2e/tf/case_v1_1
        test/e2e/tf/while_in_cond_v1 test/e2e/tf/while_v1_grow test/e2e/rnn/lstm_lowered
        test/import/functionalize test/e2e/tf/nms test/e2e/tf/boolean_mask
        test/e2e/tf/pool_grads_same test/e2e/tf/cross_entropy test/e2e/tf/dynamic_stitch
        test/e2e/tf/strided_slice_writes
        test/import/all-ops examples/mlp/mlp)
for g in "${graphs[@]}"; do
  name=$(basename "$g")
  grep -v '^ *#' "$g.pbtxt" > "$corpus/graphdef-text/$name.pbtxt"
  protoc --encode=tensorflow.GraphDef -I $proto $proto/graph.proto \
    < "$corpus/graphdef-text/$name.pbtxt" > "$corpus/graphdef/$name.pb"
done
# SavedModels: those of the end-to-end tests (their saved_model.pb; the fuzz target pairs
# each with tf2_module's checkpoint).
for m in tf1_dense tf2_module keras_cnn; do
  cp "test/e2e/savedmodel/$m/saved_model.pb" "$corpus/saved-model/$m.pb"
done
/usr/bin/python3 - "$corpus/npy" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
np.save(d + "/f32_2x3.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(d + "/i64_scalar.npy", np.array(7, np.int64))
np.save(d + "/bool_5.npy", np.array([1, 0, 1, 1, 0], bool))
np.save(d + "/u16_empty.npy", np.zeros((0, 4), np.uint16))
np.save(d + "/f16_3.npy", np.array([1, -2, 0.5], np.float16))
np.save(d + "/f64_1x1x1.npy", np.ones((1, 1, 1), np.float64))
np.save(d + "/i8_4.npy", np.array([-128, 0, 1, 127], np.int8))
for version, name, array in [((2, 0), "v2_u8", np.arange(3, dtype=np.uint8)),
                             ((3, 0), "v3_i32", np.arange(4, dtype=np.int32).reshape(2, 2))]:
    with open("%s/%s.npy" % (d, name), "wb") as f:
        np.lib.format.write_array(f, array, version=version)
PY
