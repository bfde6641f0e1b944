#!/usr/bin/env python3
"""The model zoo: the models people run, frozen to GraphDefs for test/bench/bench.py --zoo.

Every Keras application TensorFlow 2.21 ships at its default input size (weights=None, each
with a fixed seed, batch norms calibrated on the input so that activations stay of order one
and a comparison with TensorFlow checks something), plus transformer encoders (a BERT-base
layer: sequence 128, hidden 768, 12 heads; and a small four-layer one, with the exact GELU),
a 1-D convolutional audio model, a U-Net with transposed convolutions and a DeepLabV3-style
segmenter with dilated convolutions, each at batch 1 and batch 8. Each model is written once to DIR (default $KILN_ZOO, else ~/.cache/kiln-zoo) as
NAME-bBATCH.pb (binary GraphDef), NAME-bBATCH.npz (its inputs) and NAME-bBATCH.json (feeds,
fetches, title); later calls reuse them. A model that does not freeze to a plain GraphDef,
or that this 2-core, 24 GiB machine cannot run in reasonable time, is listed with the reason
it is skipped (`--list`), and `--models` still builds it on request.

Needs TensorFlow (tensorflow-cpu==2.21.0, see bench.py); never needed to build or test Kiln.
    /tmp/tf/bin/python test/bench/zoo.py [--dir DIR] [--list] [--models resnet50 ...]
        [--batches 1 8]
"""
import argparse
import json
import os
import sys
import time
import zlib

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

DEFAULT_DIR = os.environ.get("KILN_ZOO", os.path.join(os.path.expanduser("~"), ".cache",
                                                      "kiln-zoo"))


# ---- the models: key -> (title, builder(batch) -> keras.Model, skip reason or None) --------

def _application(name, size):
    def build(batch):
        import tensorflow as tf
        return getattr(tf.keras.applications, name)(
            input_shape=(size, size, 3), weights=None, classifier_activation=None)
    return build, (size, size, 3)


def _encoder(layers, seq, hidden, heads, ffn):
    """Transformer encoder layers as Keras builds them (MultiHeadAttention, post-norm, exact
    GELU), over float embeddings [batch, seq, hidden]."""
    def build(batch):
        import tensorflow as tf
        k = tf.keras
        x = k.Input((seq, hidden), batch_size=batch)
        h = x
        for _ in range(layers):
            a = k.layers.MultiHeadAttention(heads, hidden // heads)(h, h)
            h = k.layers.LayerNormalization(epsilon=1e-12)(h + a)
            f = k.layers.Dense(ffn, activation=lambda t: tf.keras.activations.gelu(
                t, approximate=False))(h)
            f = k.layers.Dense(hidden)(f)
            h = k.layers.LayerNormalization(epsilon=1e-12)(h + f)
        return k.Model(x, h)
    return build, (seq, hidden)


def _audio(samples=16000, classes=35):
    """A 1-D convolutional keyword spotter on raw audio (M5-like): strided Conv1D, batch
    norm, ReLU and max pools, then global average pooling and a dense layer."""
    def build(batch):
        import tensorflow as tf
        k = tf.keras
        x = k.Input((samples, 1), batch_size=batch)
        h = x
        for i, (filters, width, stride) in enumerate([(128, 80, 4), (128, 3, 1), (256, 3, 1),
                                                      (512, 3, 1)]):
            h = k.layers.Conv1D(filters, width, strides=stride, padding="same")(h)
            h = k.layers.BatchNormalization()(h)
            h = k.layers.ReLU()(h)
            h = k.layers.MaxPooling1D(4)(h)
        h = k.layers.GlobalAveragePooling1D()(h)
        return k.Model(x, k.layers.Dense(classes)(h))
    return build, (samples, 1)


def _unet(size=128, classes=2):
    """A U-Net: four levels of two 3x3 convolutions with batch norm and ReLU, max pools down,
    2x2 stride-2 transposed convolutions up, skip connections concatenated."""
    def build(batch):
        import tensorflow as tf
        k = tf.keras

        def block(h, filters):
            for _ in range(2):
                h = k.layers.Conv2D(filters, 3, padding="same", use_bias=False)(h)
                h = k.layers.ReLU()(k.layers.BatchNormalization()(h))
            return h
        x = k.Input((size, size, 3), batch_size=batch)
        skips, h = [], x
        for filters in (32, 64, 128):
            h = block(h, filters)
            skips.append(h)
            h = k.layers.MaxPooling2D(2)(h)
        h = block(h, 256)
        for filters, skip in zip((128, 64, 32), reversed(skips)):
            h = k.layers.Conv2DTranspose(filters, 2, strides=2, padding="same")(h)
            h = block(k.layers.Concatenate()([h, skip]), filters)
        return k.Model(x, k.layers.Conv2D(classes, 1)(h))
    return build, (size, size, 3)


def _deeplab(size=129, classes=21):
    """A DeepLabV3-style segmenter: a strided backbone to 1/8 resolution, a residual block of
    dilated 3x3 convolutions (rate 2), atrous spatial pyramid pooling (a 1x1 convolution,
    3x3 convolutions at rates 6, 12 and 18, and image pooling, concatenated), a 1x1
    projection and bilinear upsampling to the input's size. Keras writes each dilated
    convolution as SpaceToBatchND, Conv2D, BatchToSpaceND."""
    def build(batch):
        import tensorflow as tf
        k = tf.keras

        def conv(h, filters, kernel, strides=1, rate=1):
            h = k.layers.Conv2D(filters, kernel, strides=strides, dilation_rate=rate,
                                padding="same", use_bias=False)(h)
            return k.layers.ReLU()(k.layers.BatchNormalization()(h))
        x = k.Input((size, size, 3), batch_size=batch)
        h = x
        for filters in (32, 64, 128):
            h = conv(conv(h, filters, 3, strides=2), filters, 3)
        h = k.layers.Add()([h, conv(conv(h, 128, 3, rate=2), 128, 3, rate=2)])
        pooled = k.layers.GlobalAveragePooling2D(keepdims=True)(h)
        pooled = k.layers.UpSampling2D(h.shape[1], interpolation="bilinear")(
            conv(pooled, 64, 1))
        branches = [conv(h, 64, 1)] + [conv(h, 64, 3, rate=r) for r in (6, 12, 18)] + [pooled]
        h = conv(k.layers.Concatenate()(branches), 64, 1)
        h = k.layers.Conv2D(classes, 1)(h)
        return k.Model(x, k.layers.Resizing(size, size, interpolation="bilinear")(h))
    return build, (size, size, 3)


def _lstm(seq, features, units):
    """A Keras LSTM over a sequence (unroll=False: a While loop over TensorLists), its last
    output; frozen keeping the loop functional (lower_control_flow=False)."""
    def build(batch):
        import tensorflow as tf
        k = tf.keras
        x = k.Input((seq, features), batch_size=batch)
        return k.Model(x, k.layers.LSTM(units)(x))
    return build, (seq, features)


# Models whose loops stay functional While ops when frozen. TensorFlow's default lowers them
# to TF1 Switch/Merge/NextIteration, which Kiln reads too (test/e2e/rnn/lists.test), but
# tf2onnx converts the functional form to an ONNX Loop, and so every system runs one loop.
KEEP_CONTROL_FLOW = {"lstm"}


def _large(gmacs):
    return ("%g G multiply-adds per image (published figure), over the zoo's 20 G (VGG19's "
            "19.6): at batch 8, minutes per turn for each system on 2 cores" % gmacs)


_APPLICATIONS = [
    # (key, Keras name, input size, skip reason)
    ("resnet50", "ResNet50", 224, None), ("resnet101", "ResNet101", 224, None),
    ("resnet152", "ResNet152", 224, None), ("resnet50v2", "ResNet50V2", 224, None),
    ("resnet101v2", "ResNet101V2", 224, None), ("resnet152v2", "ResNet152V2", 224, None),
    ("vgg16", "VGG16", 224, None), ("vgg19", "VGG19", 224, None),
    ("densenet121", "DenseNet121", 224, None), ("densenet169", "DenseNet169", 224, None),
    ("densenet201", "DenseNet201", 224, None), ("xception", "Xception", 299, None),
    ("inceptionv3", "InceptionV3", 299, None),
    ("inceptionresnetv2", "InceptionResNetV2", 299, None),
    ("mobilenet", "MobileNet", 224, None), ("mobilenetv2", "MobileNetV2", 224, None),
    ("mobilenetv3small", "MobileNetV3Small", 224, None),
    ("mobilenetv3large", "MobileNetV3Large", 224, None),
    ("efficientnetb0", "EfficientNetB0", 224, None),
    ("efficientnetb1", "EfficientNetB1", 240, None),
    ("efficientnetb2", "EfficientNetB2", 260, None),
    ("efficientnetb3", "EfficientNetB3", 300, None),
    ("efficientnetb4", "EfficientNetB4", 380, None),
    ("efficientnetb5", "EfficientNetB5", 456, None),
    ("efficientnetb6", "EfficientNetB6", 528, None),
    ("efficientnetb7", "EfficientNetB7", 600, _large(37)),
    ("efficientnetv2b0", "EfficientNetV2B0", 224, None),
    ("efficientnetv2b1", "EfficientNetV2B1", 240, None),
    ("efficientnetv2b2", "EfficientNetV2B2", 260, None),
    ("efficientnetv2b3", "EfficientNetV2B3", 300, None),
    ("efficientnetv2s", "EfficientNetV2S", 384, None),
    ("efficientnetv2m", "EfficientNetV2M", 480, _large(24)),
    ("efficientnetv2l", "EfficientNetV2L", 480, _large(53)),
    ("nasnetmobile", "NASNetMobile", 224, None),
    ("nasnetlarge", "NASNetLarge", 331, _large(23.8)),
    ("convnexttiny", "ConvNeXtTiny", 224, None), ("convnextsmall", "ConvNeXtSmall", 224, None),
    ("convnextbase", "ConvNeXtBase", 224, None),
    ("convnextlarge", "ConvNeXtLarge", 224, _large(34.4)),
    ("convnextxlarge", "ConvNeXtXLarge", 224, _large(60.9)),
]

ZOO = {}
for _key, _name, _size, _skip in _APPLICATIONS:
    ZOO[_key] = ("%s %dx%d" % (_name, _size, _size), _application(_name, _size), _skip)
ZOO["bert-base-layer"] = ("BERT-base encoder layer (seq 128, hidden 768, 12 heads)",
                          _encoder(1, 128, 768, 12, 3072), None)
ZOO["encoder-small"] = ("small encoder (4 layers, seq 64, hidden 256, 4 heads)",
                        _encoder(4, 64, 256, 4, 1024), None)
ZOO["audio-conv1d"] = ("1-D conv audio model (16000 samples)", _audio(), None)
ZOO["unet"] = ("U-Net 128x128 (transposed convolutions)", _unet(), None)
ZOO["deeplab"] = ("DeepLabV3-style segmenter 129x129 (dilated convolutions, ASPP at rates 6, "
                  "12, 18)", _deeplab(), None)
ZOO["lstm"] = ("Keras LSTM (seq 50, 64 features, hidden 128)", _lstm(50, 64, 128), None)

BATCHES = (1, 8)


def default_models():
    return [key for key, (_, _, skip) in ZOO.items() if skip is None]


# ---- freezing ------------------------------------------------------------------------------

def _calibrate(model, x):
    """Random weights with the default batch-norm statistics shrink (or blow up) activations
    layer after layer, so that logits compare nothing. Set each batch norm's statistics to
    those of its input on this input, in order, so that every layer sees values of order one."""
    import tensorflow as tf
    norms = [layer for layer in model.layers
             if isinstance(layer, tf.keras.layers.BatchNormalization)]
    if not norms:
        return
    # One function computing every batch norm's input, traced once: each call reads the
    # statistics set so far (a sub-model per layer took minutes on ResNet152).
    inputs = tf.function(tf.keras.Model(model.inputs, [layer.input for layer in norms]))
    for i, layer in enumerate(norms):
        act = inputs([x], training=False)[i].numpy()
        axes = tuple(range(act.ndim - 1))
        layer.moving_mean.assign(act.mean(axis=axes))
        layer.moving_variance.assign(act.var(axis=axes) + 1e-3)


def freeze(key, batch, directory):
    """Writes key's GraphDef, inputs and description at this batch; returns the paths' stem.
    A graph that still calls functions after freezing (ConvNeXt) is written as it is, with a
    note saying so."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    title, (build, shape), _ = ZOO[key]
    seed = zlib.crc32(key.encode()) % 100000
    tf.keras.utils.set_random_seed(seed)
    model = build(batch)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (batch,) + shape).astype(np.float32)
    _calibrate(model, x)
    fn = tf.function(lambda x: model(x, training=False)).get_concrete_function(
        tf.TensorSpec((batch,) + shape, tf.float32, name="x"))
    graph_def = convert_variables_to_constants_v2(
        fn, lower_control_flow=key not in KEEP_CONTROL_FLOW).graph.as_graph_def()
    calls = sorted({n.op for n in graph_def.node if n.op.endswith("PartitionedCall")})
    outputs = [n.name for n in graph_def.node if n.name.startswith("Identity")]
    stem = os.path.join(directory, "%s-b%d" % (key, batch))
    with open(stem + ".pb", "wb") as f:
        f.write(graph_def.SerializeToString())
    np.savez(stem + ".npz", x=x)
    with open(stem + ".json", "w") as f:
        json.dump({"title": "%s batch %d" % (title, batch), "feeds": ["x"],
                   "fetches": outputs[:1], "seed": seed, "nodes": len(graph_def.node),
                   "params": int(model.count_params()),
                   "note": "the frozen graph still calls functions (%s)" % ", ".join(calls)
                           if calls else ""}, f)
    return stem


def load(key, batch, directory=DEFAULT_DIR):
    """(title, graph path, feeds, fetches) of a zoo model, freezing it first if needed."""
    stem = os.path.join(directory, "%s-b%d" % (key, batch))
    if not os.path.exists(stem + ".json"):
        os.makedirs(directory, exist_ok=True)
        freeze(key, batch, directory)
    with open(stem + ".json") as f:
        meta = json.load(f)
    with np.load(stem + ".npz") as z:
        feeds = {name: z[name] for name in meta["feeds"]}
    return meta["title"], stem + ".pb", feeds, meta["fetches"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", default=DEFAULT_DIR)
    p.add_argument("--list", action="store_true", help="list the models and why some are skipped")
    p.add_argument("--models", nargs="+", help="default: every model not skipped")
    p.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    a = p.parse_args()
    if a.list:
        for key, (title, _, skip) in ZOO.items():
            print("%-18s %s%s" % (key, title, "   (skipped: %s)" % skip if skip else ""))
        return
    unknown = [m for m in a.models or [] if m not in ZOO]
    if unknown:
        sys.exit("zoo.py: unknown model %s (--list names them)" % ", ".join(unknown))
    os.makedirs(a.dir, exist_ok=True)
    failed = 0
    for key in a.models or default_models():
        for batch in a.batches:
            start = time.time()
            try:
                load(key, batch, a.dir)
                print("%-18s batch %d  %.0f s" % (key, batch, time.time() - start), flush=True)
            except Exception as e:  # report every model, then fail
                failed += 1
                print("%-18s batch %d  failed: %s" % (key, batch, str(e).splitlines()[0][:200]),
                      flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
