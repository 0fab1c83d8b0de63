"""The network definition API from Python, against numpy.

Each test builds a network with random inputs and weights, runs it on kiln's
CPU reference executor (Builder.run_reference: the graph passes, linalg,
JIT-compiled loops) and compares with numpy in float64, to a tolerance of
rtol 1e-5, atol 1e-5 (float32 arithmetic).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import kiln

pytest.importorskip("kiln._compiler")

RTOL = ATOL = 1e-5


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def run(network, *inputs):
    return kiln.Builder().run_reference(network, list(inputs))


def conv2d(x, w, b, stride=1, pad=0):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    oh, ow = (h - r) // stride + 1, (wd - s) // stride + 1
    out = np.zeros((n, k, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride : i * stride + r, j * stride : j * stride + s]
            out[:, :, i, j] = np.einsum("ncrs,kcrs->nk", patch, w)
    return out + b.reshape(1, k, 1, 1)


def maxpool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def softmax(z, axis=1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_convolution_relu_pool_fc_softmax():
    rng = np.random.default_rng(0)
    x = rand(rng, 2, 3, 8, 8)
    wc, bc = rand(rng, 4, 3, 3, 3), rand(rng, 4)
    wf, bf = rand(rng, 5, 4 * 4 * 4), rand(rng, 5)
    net = kiln.NetworkDefinition()
    data = net.add_input("data", np.float32, (2, 3, 8, 8))
    conv = net.add_convolution(data, 4, (3, 3), wc, bc).set_padding((1, 1))
    assert isinstance(conv, kiln.ConvolutionLayer)
    relu = net.add_activation(conv.output, kiln.ActivationType.RELU)
    pool = net.add_pooling(relu.output, kiln.PoolingType.MAX, (2, 2))
    fc = net.add_fully_connected(pool.output, 5, wf, bf)
    prob = net.add_softmax(fc.output)
    prob.output.name = "prob"
    net.mark_output(prob.output)
    assert prob.output.shape == (2, 5) and prob.output.is_network_output
    (out,) = run(net, x)
    h = maxpool2(np.maximum(conv2d(x, wc, bc, pad=1), 0))
    want = softmax(h.reshape(2, -1) @ wf.T.astype(np.float64) + bf)
    np.testing.assert_allclose(out, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "op, ref",
    [
        ("SUM", np.add),
        ("PROD", np.multiply),
        ("MAX", np.maximum),
        ("SUB", np.subtract),
        ("DIV", np.divide),
    ],
)
def test_elementwise_broadcasts(op, ref):
    rng = np.random.default_rng(1)
    a, b = rand(rng, 2, 3, 4), rand(rng, 1, 3, 1) + 3
    net = kiln.NetworkDefinition()
    ta = net.add_input("a", "float32", (2, 3, 4))
    tb = net.add_input("b", "float32", (1, 3, 1))
    layer = net.add_elementwise(ta, tb, getattr(kiln.ElementWiseOperation, op))
    net.mark_output(layer.output)
    np.testing.assert_allclose(run(net, a, b)[0], ref(a.astype(np.float64), b), rtol=RTOL, atol=ATOL)


def test_shuffle_reduce_concat_unary():
    rng = np.random.default_rng(2)
    x = rand(rng, 2, 3, 4)
    net = kiln.NetworkDefinition()
    t = net.add_input("x", np.float32, (2, 3, 4))
    shuffle = net.add_shuffle(t).set_first_transpose((0, 2, 1)).set_reshape_dimensions((2, -1))
    reduce = net.add_reduce(t, kiln.ReduceOperation.SUM, 0b100, True)
    concat = net.add_concatenation([t, net.add_unary(t, kiln.UnaryOperation.ABS).output])
    concat.set_axis(2)
    for layer in (shuffle, reduce, concat):
        net.mark_output(layer.output)
    got = run(net, x)
    np.testing.assert_allclose(got[0], x.transpose(0, 2, 1).reshape(2, -1), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got[1], x.astype(np.float64).sum(axis=2, keepdims=True), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got[2], np.concatenate([x, np.abs(x)], axis=2), rtol=RTOL, atol=ATOL)


def test_gather_matmul_scale_padding_activation():
    rng = np.random.default_rng(3)
    x, y = rand(rng, 2, 4, 3), rand(rng, 2, 5, 3)
    idx = np.array([3, 0, 2], np.int64)
    shift, scale = rand(rng, 4), rand(rng, 4)
    net = kiln.NetworkDefinition()
    tx = net.add_input("x", np.float32, (2, 4, 3))
    ty = net.add_input("y", np.float32, (2, 5, 3))
    ti = net.add_constant((3,), idx).output
    gather = net.add_gather(tx, ti, 1)
    matmul = net.add_matrix_multiply(tx, False, ty, True)
    scaled = net.add_scale(tx, kiln.ScaleMode.CHANNEL, shift=shift, scale=scale)
    padded = net.add_padding(tx, (1,), (2,))
    leaky = net.add_activation(tx, kiln.ActivationType.LEAKY_RELU).set_alpha(0.25)
    for layer in (gather, matmul, scaled, padded, leaky):
        net.mark_output(layer.output)
    got = run(net, x, y)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(got[0], x[:, idx, :], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got[1], x64 @ y.transpose(0, 2, 1), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got[2], x64 * scale.reshape(1, 4, 1) + shift.reshape(1, 4, 1), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got[3], np.pad(x, ((0, 0), (0, 0), (1, 2))), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(got[4], np.where(x > 0, x, 0.25 * x64), rtol=RTOL, atol=ATOL)


def test_layer_normalization():
    rng = np.random.default_rng(4)
    x, g, b = rand(rng, 2, 3, 8), rand(rng, 8), rand(rng, 8)
    net = kiln.NetworkDefinition()
    tx = net.add_input("x", np.float32, (2, 3, 8))
    tg = net.add_constant((8,), g).output
    tb = net.add_constant((8,), b).output
    norm = net.add_normalization(tx, tg, tb, 0b100).set_epsilon(1e-5)
    net.mark_output(norm.output)
    x64 = x.astype(np.float64)
    mean, var = x64.mean(-1, keepdims=True), x64.var(-1, keepdims=True)
    want = (x64 - mean) / np.sqrt(var + 1e-5) * g + b
    np.testing.assert_allclose(run(net, x)[0], want, rtol=1e-4, atol=1e-4)


def test_bad_use_raises_clear_errors():
    net = kiln.NetworkDefinition(log=lambda s, m: None)
    x = net.add_input("x", np.float32, (1, 2, 4, 4))
    with pytest.raises(kiln.InvalidArgumentError, match="weights of 0 values"):
        net.add_convolution(x, 3, (3, 3), np.zeros(0, np.float32))
    # Short weights make a layer that does not build (a setter may mend a
    # shape): listed in errors, and building refuses the network.
    short = net.add_convolution(x, 3, (3, 3), np.zeros(5, np.float32))
    short.name = "short"
    assert any("short" in e for e in net.errors)
    with pytest.raises(kiln.InvalidArgumentError, match="x"):
        net.add_input("x", np.float32, (1,))  # a duplicate name
    other = kiln.NetworkDefinition(log=lambda s, m: None)
    y = other.add_input("y", np.float32, (1, 2, 4, 4))
    with pytest.raises(kiln.InvalidArgumentError, match="not one of this network"):
        net.add_activation(y, kiln.ActivationType.RELU)
    with pytest.raises(kiln.InvalidArgumentError):
        kiln.Builder(log=lambda s, m: None).build_serialized_plan(net, kiln.BuilderConfig())


def test_a_network_without_outputs_or_with_int8_does_not_build():
    net = kiln.NetworkDefinition(log=lambda s, m: None)
    x = net.add_input("x", np.float32, (1, 4))
    builder = kiln.Builder(log=lambda s, m: None)
    with pytest.raises(kiln.InvalidArgumentError, match="output"):
        builder.build_serialized_plan(net, kiln.BuilderConfig())
    net.mark_output(net.add_activation(x, kiln.ActivationType.RELU).output)
    config = kiln.BuilderConfig()
    config.int8 = True
    with pytest.raises(kiln.InvalidArgumentError, match="INT8 is not supported yet"):
        builder.build_serialized_plan(net, config)


def test_handles_outlive_their_network_safely():
    net = kiln.NetworkDefinition(log=lambda s, m: None)
    x = net.add_input("x", np.float32, (1, 4))
    layer = net.add_activation(x, kiln.ActivationType.RELU)
    assert x and layer
    del net
    gc.collect()
    assert not x and not layer  # invalid, never dangling
    assert x.name == ""


def test_log_receives_severities():
    messages = []
    net = kiln.NetworkDefinition(log=lambda s, m: messages.append((s, m)))
    with pytest.raises(kiln.InvalidArgumentError, match="dimension -4"):
        net.add_input("x", np.float32, (1, -4))
    assert messages and messages[-1][0] == kiln.Severity.ERROR
    assert net.errors


def test_plugin_layers_take_their_outputs_from_the_plugin():
    """add_plugin_v2 with the test plugin library's kiln.test::TestClip@2,
    registered with the compiler only (the runtime's registry stays as the
    runtime tests expect it)."""
    import os

    library = os.environ.get("KILN_TEST_PLUGIN_LIBRARY") or pytest.skip("no test plugin library")
    kiln._compiler.load_plugin_library(library)
    bad = kiln.NetworkDefinition(log=lambda s, m: None)
    z = bad.add_input("z", np.float32, (2, 3))
    with pytest.raises(kiln.InvalidArgumentError, match="kiln.test::TestClip@7: it is not registered"):
        bad.add_plugin_v2([z], "TestClip", {"lower": -1.0, "upper": 1.0}, version="7", namespace="kiln.test")
    with pytest.raises(kiln.InvalidArgumentError, match="lower 2.000000 > upper 1.000000"):
        bad.add_plugin_v2([z], "TestClip", {"lower": 2.0, "upper": 1}, version="2", namespace="kiln.test")
    with pytest.raises(TypeError, match="plugin field 'lower'"):
        bad.add_plugin_v2([z], "TestClip", {"lower": None}, version="2", namespace="kiln.test")
    net = kiln.NetworkDefinition(log=lambda s, m: None)
    x = net.add_input("x", np.float32, (2, 3))
    clip = net.add_plugin_v2([x], "TestClip", {"lower": -0.5, "upper": 1}, version="2", namespace="kiln.test")
    assert clip.num_outputs == 1
    assert tuple(clip.get_output(0).shape) == (2, 3)
    y = net.add_activation(clip.get_output(0), kiln.ActivationType.RELU).output
    y.name = "y"
    net.mark_output(y)
    builder = kiln.Builder(log=lambda s, m: None)
    plan = builder.build_serialized_plan(net, kiln.BuilderConfig())
    assert b"kiln.plugin" in plan and b"TestClip" in plan
    with pytest.raises(kiln.KilnError, match="which runs only on the GPU"):
        builder.run_reference(net, [np.zeros((2, 3), np.float32)])
