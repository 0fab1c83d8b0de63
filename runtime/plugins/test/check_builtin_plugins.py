#!/usr/bin/env python3
"""Checks LReLU_TRT, Clip_TRT, Normalize_TRT, Reorg_TRT, Region_TRT,
PriorBox_TRT and GridAnchor_TRT of libkiln_plugins.so against numpy.

    python3 check_builtin_plugins.py --tools DIR --plugin-lib PATH
                                     [--out DIR] [--dry-run] [--verbose]

--tools names the folder with kiln-write-plugin-plan and kiln-run-plan. Every
case writes a one-step plan of the plugin, runs it on the GPU
(plugin_harness.Harness.run_case) and compares each output with the float64
references of builtin_reference.py, on seeded random inputs and edge cases.

Tolerances, |got - want| <= atol + rtol * |want|:
- Reorg_TRT, Clip_TRT: exact (data movement and selection);
- LReLU_TRT: rtol 1e-6 + atol 1e-7 (one f32 product);
- Normalize_TRT, Region_TRT: rtol 1e-5 + atol 1e-6 (sums, sqrt, exp);
- PriorBox_TRT, GridAnchor_TRT: rtol 1e-5 + atol 1e-6 (coordinates in
  [0, 1] computed in f32).

--dry-run computes the references and writes the plans (no GPU needed),
checking the plans' output shapes against the references'.
Prints a table; exits 1 when a case fails.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import builtin_reference as ref  # noqa: E402
import plugin_harness as ph  # noqa: E402

EXACT = (0.0, 0.0)
PRODUCT = (1e-6, 1e-7)
ARITHMETIC = (1e-5, 1e-6)


def f32(array):
    return np.ascontiguousarray(array, dtype=np.float32)


def cases():
    """(plugin, case, fields, inputs, expected outputs, (rtol, atol))."""
    rng = np.random.default_rng(20261203)
    out = []

    def add(plugin, name, fields, inputs, expected, tol):
        out.append((plugin, name, fields, inputs, expected, tol))

    # LReLU_TRT
    x = f32(rng.normal(size=(2, 3, 4, 5)))
    x.reshape(-1)[:3] = [0.0, -0.0, 1e-30]
    for slope, name in [(0.1, "random, slope 0.1, zeros"),
                        (0.0, "slope 0 (ReLU)"),
                        (-0.5, "negative slope")]:
        add("LReLU_TRT", name, {"negSlope": slope}, [x],
            [ref.leaky_relu(x, slope)], PRODUCT)
    x = f32(rng.normal(scale=100.0, size=1000003))
    add("LReLU_TRT", "1,000,003 elements (grid-stride)", {"negSlope": 0.01},
        [x], [ref.leaky_relu(x, 0.01)], PRODUCT)
    x = f32([-2.5])
    add("LReLU_TRT", "one element", {"negSlope": 0.2}, [x],
        [ref.leaky_relu(x, 0.2)], PRODUCT)

    # Clip_TRT
    x = f32(rng.uniform(-3, 3, size=(3, 7, 11)))
    add("Clip_TRT", "random, [-1, 1.5]", {"clipMin": -1.0, "clipMax": 1.5},
        [x], [ref.clip(x, -1.0, 1.5)], EXACT)
    add("Clip_TRT", "clipMin == clipMax", {"clipMin": 0.25, "clipMax": 0.25},
        [x], [ref.clip(x, 0.25, 0.25)], EXACT)
    add("Clip_TRT", "bounds outside the data",
        {"clipMin": -10.0, "clipMax": 10.0}, [x], [ref.clip(x, -10, 10)],
        EXACT)
    x = f32(rng.normal(size=(1000, 1001)))
    add("Clip_TRT", "1,001,000 elements, bounds not in f32",
        {"clipMin": -0.1, "clipMax": 0.7}, [x], [ref.clip(x, -0.1, 0.7)],
        EXACT)

    # Normalize_TRT
    def normalize(name, shape, across, shared, eps=1e-10, zero=False,
                  scale=1.0):
        x = f32(rng.normal(scale=scale, size=shape))
        if zero:
            x[0, :, 0, 0] = 0.0  # a position whose norm is sqrt(eps)
        c = shape[1]
        weights = rng.uniform(0.5, 20.0, size=1 if shared else c).tolist()
        fields = {"weights": ph.Floats(weights), "nbWeights": len(weights),
                  "acrossSpatial": int(across), "channelShared": int(shared),
                  "eps": eps}
        add("Normalize_TRT", name, fields, [x],
            [ref.normalize(x, weights, across, shared, eps)], ARITHMETIC)
    normalize("channels, per-channel weights", (2, 16, 5, 7), False, False,
              zero=True)
    normalize("channels, shared weight", (3, 5, 4, 4), False, True)
    normalize("spatial, per-channel weights", (2, 6, 9, 11), True, False)
    normalize("spatial, shared weight", (1, 3, 5, 5), True, True)
    normalize("SSD conv4_3 size, spatial (many slices)", (1, 512, 38, 38),
              True, False, scale=0.01)
    normalize("SSD conv4_3 size, channels", (2, 512, 38, 38), False, False)
    normalize("eps 1 (inside the sqrt)", (2, 4, 3, 3), False, False, eps=1.0,
              scale=0.5)
    normalize("spatial, eps 0.5, batch 3", (3, 2, 6, 5), True, True, eps=0.5)

    # Reorg_TRT
    for shape, stride, name in [((1, 64, 26, 26), 2, "YOLOv2 26x26x64"),
                                ((2, 18, 6, 9), 3, "stride 3, batch 2"),
                                ((2, 3, 5, 4), 1, "stride 1 (identity)"),
                                ((3, 4, 2, 2), 2, "smallest, batch 3")]:
        x = f32(rng.normal(size=shape))
        add("Reorg_TRT", name, {"stride": stride}, [x],
            [ref.reorg(x, stride)], EXACT)

    # Region_TRT
    for (num, coords, classes, n, h, w, scale, name) in [
            (5, 4, 20, 1, 13, 13, 3.0, "YOLOv2 VOC 13x13"),
            (3, 4, 1, 2, 5, 6, 3.0, "one class, batch 2"),
            (2, 5, 3, 2, 4, 7, 3.0, "coords 5 (one more copied)"),
            (4, 4, 6, 1, 3, 3, 40.0, "logits up to +-100 (stability)")]:
        x = f32(rng.normal(scale=scale, size=(n, num * (coords + 1 + classes),
                                              h, w)))
        add("Region_TRT", name,
            {"num": num, "coords": coords, "classes": classes}, [x],
            [ref.region(x, num, coords, classes)], ARITHMETIC)

    # PriorBox_TRT
    def prior_box(name, feature, image, **f):
        fields = {"minSize": ph.Floats(f["min_size"]),
                  "variance": ph.Floats(f.get("variance",
                                              [0.1, 0.1, 0.2, 0.2]))}
        names = {"max_size": "maxSize", "aspect_ratios": "aspectRatios"}
        for key, field in names.items():
            if key in f:
                fields[field] = ph.Floats(f[key])
        for key, field in [("flip", "flip"), ("clip", "clip"),
                           ("img_h", "imgH"), ("img_w", "imgW")]:
            if key in f:
                fields[field] = int(f[key])
        for key, field in [("step_h", "stepH"), ("step_w", "stepW"),
                           ("offset", "offset")]:
            if key in f:
                fields[field] = float(f[key])
        inputs = [f32(rng.normal(size=feature)), f32(rng.normal(size=image))]
        add("PriorBox_TRT", name, fields, inputs,
            [ref.prior_box(feature, image, **f)], ARITHMETIC)
    prior_box("SSD300 conv4_3", (1, 8, 38, 38), (1, 3, 300, 300),
              min_size=[30.0], max_size=[60.0], aspect_ratios=[2.0],
              flip=True, clip=False, img_h=300, img_w=300, step_h=8.0,
              step_w=8.0, offset=0.5)
    prior_box("SSD300 fc7, clip", (1, 4, 19, 19), (1, 3, 300, 300),
              min_size=[60.0], max_size=[111.0], aspect_ratios=[2.0, 3.0],
              flip=True, clip=True, img_h=300, img_w=300, step_h=16.0,
              step_w=16.0)
    prior_box("defaults: image size and steps from the inputs",
              (2, 3, 10, 16), (2, 3, 200, 320), min_size=[40.0],
              aspect_ratios=[2.0])
    prior_box("two minSizes and maxSizes, duplicate ratios, offset 0",
              (1, 2, 5, 7), (1, 1, 64, 96), min_size=[8.0, 20.0],
              max_size=[16.0, 33.5], aspect_ratios=[1.0, 2.0, 2.0, 0.5, 3.0],
              flip=True, clip=True, offset=0.0, variance=[0.1, 0.2, 0.3, 0.4])
    prior_box("no flip, no maxSize, rectangular steps", (1, 1, 6, 4),
              (1, 3, 90, 40), min_size=[12.0, 25.0], aspect_ratios=[3.0],
              flip=False, step_h=15.0, step_w=10.0, img_h=90, img_w=40)

    # GridAnchor_TRT
    def grid(name, shapes, ratios, variance, lo=None, hi=None):
        fields = {"featureMapShapes": list(shapes), "numLayers": len(shapes),
                  "aspectRatios": ph.Floats(ratios),
                  "variance": ph.Floats(variance)}
        if lo is not None:
            fields["minSize"], fields["maxSize"] = lo, hi
        expected = ref.grid_anchors(shapes, ratios, variance,
                                    *(() if lo is None else (lo, hi)))
        add("GridAnchor_TRT", name, fields, [], expected, ARITHMETIC)
    grid("TF SSD (6 layers, defaults)", [19, 10, 5, 3, 2, 1],
         [1.0, 2.0, 0.5, 3.0, 0.3333], [0.1, 0.1, 0.2, 0.2])
    grid("2 layers, 3 ratios, scales 0.3-0.8", [7, 4], [1.0, 2.0, 0.5],
         [0.1, 0.2, 0.3, 0.4], 0.3, 0.8)
    grid("large first layer", [64, 32, 16], [1.0, 2.0, 0.5, 4.0],
         [0.1, 0.1, 0.2, 0.2], 0.1, 0.9)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True,
                        help="folder with kiln-write-plugin-plan and "
                             "kiln-run-plan")
    parser.add_argument("--plugin-lib", required=True,
                        help="libkiln_plugins.so")
    parser.add_argument("--out", help="keep the cases' files here")
    parser.add_argument("--dry-run", action="store_true",
                        help="references and plans only (no GPU)")
    parser.add_argument("--verbose", action="store_true",
                        help="print the tools' commands")
    args = parser.parse_args()
    try:
        harness = ph.Harness(args.tools, args.plugin_lib,
                             dry_run=args.dry_run, out=args.out,
                             verbose=args.verbose)
    except ph.HarnessError as error:
        print(f"check_builtin_plugins.py: {error}", file=sys.stderr)
        return 2
    rows, failed = [], 0
    for plugin, name, fields, inputs, expected, (rtol, atol) in cases():
        tol = ph.tolerance_text(rtol, atol)
        shapes = ph.shapes_text(inputs) + " -> " + ph.shapes_text(expected)
        try:
            outputs = harness.run_case(plugin, fields, inputs)
        except ph.HarnessError as error:
            rows.append((plugin, name, shapes, "-", tol, "FAIL", str(error)))
            failed += 1
            continue
        if outputs is None:  # the plan's output shapes, at least
            want = [e.shape for e in expected]
            if harness.last_output_shapes != want:
                failed += 1
                rows.append((plugin, name, shapes, "-", tol, "FAIL",
                             f"the plan's outputs are "
                             f"{harness.last_output_shapes}, want {want}"))
            else:
                rows.append((plugin, name, shapes, "-", tol, "dry-run",
                             "output shapes match"))
            continue
        worst, problems = ph.compare_outputs(outputs, expected, rtol, atol)
        failed += bool(problems)
        rows.append((plugin, name, shapes, f"{worst:.3g}", tol,
                     "FAIL" if problems else "PASS", "; ".join(problems)))
    ph.print_table(("plugin", "case", "shapes", "max abs err", "tolerance",
                    "result", "detail"), rows)
    if failed:
        print(f"{failed} of {len(rows)} cases failed")
        return 1
    print(f"all {len(rows)} cases "
          f"{'prepared (dry run: plans written, not run)' if args.dry_run else 'passed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
