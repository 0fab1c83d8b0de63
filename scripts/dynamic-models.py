#!/usr/bin/env python3
"""Writes the models of issue 32's goals, exported with dynamic axes by a real
exporter, and what their framework computes at each shape of the grid.

Needs TensorFlow and tf2onnx (PyPI `tensorflow-cpu`, `tf2onnx`; a virtual
environment keeps them away from the build's Python packages):

    python3 -m venv /tmp/tfenv
    /tmp/tfenv/bin/pip install tensorflow-cpu tf2onnx
    /tmp/tfenv/bin/python scripts/dynamic-models.py OUT [--small]

Writes OUT/<model>.onnx (random weights, seed 0) with a `None` batch (and
sequence), and OUT/<model>/<shape>/ holding each input as <name>.npy and
TensorFlow's output as output_0.npy. Models: Keras ResNet50, MobileNetV2
and EfficientNetB0 (random weights that do not saturate, logits; batch 1,
3, 64) and a 2-layer transformer encoder with
a padding mask (batch 1, 3, 64 x sequence 1, 77, 128, 512). --small writes
only the encoder at small shapes (the files test/Reference commits).
scripts/check-dynamic-models.py runs kiln on them.
"""
import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import onnx.numpy_helper
import tensorflow as tf
import tf2onnx

VOCAB, WIDTH, HEADS, FFN, LAYERS = 1000, 64, 4, 128, 2


class Positions(tf.keras.layers.Layer):
    """Adds a learned position embedding sized by the sequence."""

    def build(self, shape):
        self.table = self.add_weight(shape=(512, WIDTH),
                                     initializer="random_normal",
                                     name="table")

    def call(self, x):
        n = tf.shape(x)[1]
        return x + tf.gather(self.table, tf.range(n))[None]


def encoder():
    ids = tf.keras.Input((None,), dtype="int32", name="ids")
    mask = tf.keras.Input((None,), dtype="int32", name="mask")
    x = Positions()(tf.keras.layers.Embedding(VOCAB, WIDTH)(ids))
    attend = tf.keras.layers.Lambda(
        lambda m: tf.cast(m[:, None, :], tf.bool))(mask)
    for _ in range(LAYERS):
        a = tf.keras.layers.MultiHeadAttention(HEADS, WIDTH // HEADS)(
            x, x, attention_mask=attend)
        x = tf.keras.layers.LayerNormalization()(x + a)
        f = tf.keras.layers.Dense(
            FFN, activation=lambda t: tf.nn.gelu(t, approximate=True))(x)
        x = tf.keras.layers.LayerNormalization()(
            x + tf.keras.layers.Dense(WIDTH)(f))
    return tf.keras.Model([ids, mask], x)


def cnn(name, rng):
    """The Keras application with random weights that do not saturate:
    Keras' initial batch-norm statistics and zero biases give near-constant
    outputs, which would make a weak comparison. Logits, not probabilities."""
    apps = tf.keras.applications
    model = {"resnet50": apps.ResNet50, "mobilenetv2": apps.MobileNetV2,
             "efficientnetb0": apps.EfficientNetB0}[name](
                 weights=None, classifier_activation=None)
    for w in model.weights:
        shape, path = tuple(w.shape), w.path
        if "count" in path or not w.dtype.startswith("float"):
            continue
        if "gamma" in path or "variance" in path:
            value = rng.uniform(0.5, 1.5, shape)
        elif len(shape) <= 1:
            value = rng.normal(0, 0.1, shape)
        else:
            fan_in = int(np.prod(shape[:-1])) if shape[-1] != 1 else \
                int(np.prod(shape[:-2]))
            value = rng.normal(0, 1 / np.sqrt(fan_in), shape)
        w.assign(value.astype(np.float32))
    return model


def export(model, specs, path):
    @tf.function(input_signature=specs)
    def call(*args):
        return model(list(args) if len(args) > 1 else args[0],
                     training=False)

    proto, _ = tf2onnx.convert.from_function(call, input_signature=specs,
                                             opset=17)
    # tf2onnx leaves the normalization statistics of Keras' EfficientNet
    # as graph inputs: they are weights, so they become initializers.
    feeds = {s.name for s in specs}
    extra = [i for i in proto.graph.input if i.name not in feeds]
    if extra:
        norm = next(l for l in model.layers
                    if isinstance(l, tf.keras.layers.Normalization))
        values = {"Sub/y": norm.mean.numpy(), "Sqrt/x": norm.variance.numpy()}
        for i in extra:
            key = next(k for k in values if k in i.name)
            proto.graph.initializer.append(onnx.numpy_helper.from_array(
                values[key].astype(np.float32).reshape(
                    [d.dim_value for d in i.type.tensor_type.shape.dim]),
                i.name))
            proto.graph.input.remove(i)
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def write_case(model, folder, inputs):
    os.makedirs(folder, exist_ok=True)
    for name, value in inputs.items():
        np.save(os.path.join(folder, name + ".npy"), value)
    args = list(inputs.values())
    y = model(args if len(args) > 1 else args[0], training=False)
    np.save(os.path.join(folder, "output_0.npy"), np.asarray(y))


def encoder_inputs(rng, batch, seq):
    ids = rng.integers(0, VOCAB, (batch, seq)).astype(np.int32)
    mask = np.ones((batch, seq), np.int32)
    for i in range(batch):  # padding of different lengths, one token kept
        mask[i, max(1, seq - 7 * i):] = 0
    return {"ids": ids, "mask": mask}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--models", default="encoder,resnet50,mobilenetv2,"
                        "efficientnetb0", help="comma-separated")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(0)

    models = args.models.split(",")
    if "encoder" in models:
        write_encoder(args, rng)
    if args.small:
        return 0

    for name in ("resnet50", "mobilenetv2", "efficientnetb0"):
        if name not in models:
            continue
        tf.keras.utils.set_random_seed(0)
        model = cnn(name, rng)
        export(model,
               (tf.TensorSpec((None, 224, 224, 3), tf.float32, name="input"),),
               os.path.join(args.out, name + ".onnx"))
        for batch in (1, 3, 64):
            x = rng.uniform(-1, 1, (batch, 224, 224, 3)).astype(np.float32)
            write_case(model, os.path.join(args.out, name, str(batch)),
                       {"input": x})
        print(name, "written", flush=True)
    return 0


def write_encoder(args, rng):
    tf.keras.utils.set_random_seed(0)
    model = encoder()
    export(model, (tf.TensorSpec((None, None), tf.int32, name="ids"),
                   tf.TensorSpec((None, None), tf.int32, name="mask")),
           os.path.join(args.out, "encoder.onnx"))
    grid = ([(1, 1), (3, 77), (2, 128)] if args.small else
            [(b, s) for b in (1, 3, 64) for s in (1, 77, 128, 512)])
    for batch, seq in grid:
        write_case(model, os.path.join(args.out, "encoder", f"{batch}x{seq}"),
                   encoder_inputs(rng, batch, seq))


if __name__ == "__main__":
    sys.exit(main())
