#!/usr/bin/env python3
"""Checks NMS_TRT and RPROI_TRT of libkiln_plugins.so against numpy.

    python3 check_detection_plugins.py --tools DIR --plugin-lib PATH [--dry-run]

Every case writes a one-step plan with kiln-write-plugin-plan, runs it with
kiln-run-plan on the GPU (plugin_harness.run_case) and compares the outputs
with the float64 references of detection_reference.py, written from Caffe's
DetectionOutput, Faster R-CNN's proposal layer and ROI pooling, with the
output conventions of TensorRT's plugins. Inputs are random with fixed
seeds; a draw whose reference decision lies within f32 noise of a threshold
is replaced by the next seed (the table says which seed ran).

Tolerances:
- NMS_TRT: keepCount, image ids and labels exact; scores exact (they are the
  f32 inputs), 1e-6 with confSigmoid; coordinates 1e-5 (absolute, they are
  in [0, 1]).
- RPROI_TRT: rois 1e-5 relative to max(1, |value|) (image pixels); pooled
  features exact, against Caffe's max ROI pooling of the rois the plugin
  gave (a max picks an input value; pooling the reference's rois instead
  would only add their f32 rounding).

--dry-run computes every reference and prints the plans' commands without
running them (no GPU needed). Exits 1 when a case fails.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import detection_reference as ref  # noqa: E402

try:
    import plugin_harness  # noqa: E402  (runtime/plugins/test, beside this)
except ImportError as error:  # pragma: no cover
    plugin_harness = None
    HARNESS_ERROR = str(error)

SEED_ATTEMPTS = 50


# --------------------------------------------------------------------------
# NMS_TRT cases
# --------------------------------------------------------------------------

def random_priors(rng, count, pixels=False):
    """[2, count * 4]: boxes (xmin, ymin, xmax, ymax), then variances."""
    centre = rng.uniform(0.15, 0.85, size=(count, 2))
    size = rng.uniform(0.1, 0.45, size=(count, 2))
    boxes = np.concatenate([centre - size / 2, centre + size / 2], axis=1)
    if pixels:
        boxes = boxes * 300.0
    variances = np.tile([0.1, 0.1, 0.2, 0.2], (count, 1))
    return np.stack([boxes.reshape(-1), variances.reshape(-1)])


def nms_fields(**overrides):
    fields = dict(shareLocation=1, varianceEncodedInTarget=0,
                  backgroundLabelId=0, numClasses=4, topK=20, keepTopK=15,
                  confidenceThreshold=0.3, nmsThreshold=0.45,
                  inputOrder=[0, 1, 2], confSigmoid=0, isNormalized=1,
                  codeType=ref.CENTER_SIZE)
    fields.update(overrides)
    return {k: v for k, v in fields.items() if v is not None}


def nms_inputs(rng, f, n, num_priors, conf=None, loc=None, priors=None,
               per_image_priors=False, pixels=False):
    """The inputs in the plugin's input order, each f32 and 4-d."""
    loc_classes = 1 if f["shareLocation"] else f["numClasses"]
    if loc is None:
        loc = rng.normal(0.0, 1.0, size=(n, num_priors, loc_classes, 4))
        if f.get("varianceEncodedInTarget") or f.get("codeType") == ref.CORNER:
            loc = loc * 0.05
    if conf is None:
        conf = rng.uniform(0.0, 1.0, size=(n, num_priors, f["numClasses"]))
    if priors is None:
        count = n if per_image_priors else 1
        priors = np.stack([random_priors(rng, num_priors, pixels)
                           for _ in range(count)])
    tensors = {
        "loc": np.asarray(loc, np.float32).reshape(n, -1, 1, 1),
        "conf": np.asarray(conf, np.float32).reshape(n, -1, 1, 1),
        "priors": np.asarray(priors, np.float32).reshape(
            priors.shape[0], 2, -1, 1),
    }
    order = f.get("inputOrder", [0, 2, 1])
    inputs = [None] * 3
    for role, index in zip(("loc", "conf", "priors"), order):
        inputs[index] = tensors[role]
    return inputs


def nms_cases():
    """(name, fields, make_inputs(rng)) for NMS_TRT."""
    cases = []

    def add(name, fields, make):
        cases.append((name, fields, make))

    f = nms_fields(numClasses=5, topK=30, keepTopK=25,
                   confidenceThreshold=0.25)
    add("random, batch 3, CENTER_SIZE", f,
        lambda rng, f=f: nms_inputs(rng, f, 3, 96))
    f = nms_fields(confidenceThreshold=0.99)
    add("no box above the threshold", f,
        lambda rng, f=f: nms_inputs(
            rng, f, 2, 32, conf=rng.uniform(0, 0.9, size=(2, 32, 4))))

    def all_equal(rng, f):
        priors = np.tile(random_priors(rng, 1), (1, 1, 24))
        return nms_inputs(rng, f, 2, 24, conf=np.full((2, 24, 4), 0.7),
                          loc=np.tile(rng.normal(0, 0.5, size=4),
                                      (2, 24, 1, 1)),
                          priors=priors.reshape(1, 2, -1))
    f = nms_fields(keepTopK=10)
    add("all boxes equal (coordinates and scores)", f,
        lambda rng, f=f: all_equal(rng, f))

    def few(rng, f):
        conf = rng.uniform(0, 0.2, size=(2, 64, 4))
        conf[:, :3, 1:] = rng.uniform(0.5, 1.0, size=(2, 3, 3))
        return nms_inputs(rng, f, 2, 64, conf=conf)
    f = nms_fields(topK=40, keepTopK=40)
    add("keepTopK above the candidates", f, lambda rng, f=f: few(rng, f))
    f = nms_fields(topK=4, keepTopK=4, confidenceThreshold=0.05)
    add("topK below the candidates", f,
        lambda rng, f=f: nms_inputs(rng, f, 2, 64))
    f = nms_fields(numClasses=1, backgroundLabelId=-1, topK=16, keepTopK=16)
    add("one class, no background", f,
        lambda rng, f=f: nms_inputs(rng, f, 2, 48))

    def spaced_logits(rng, n, priors, classes):
        # Distinct sigmoids, far apart in f32.
        values = np.linspace(-4.0, 4.0, n * priors * classes)
        return rng.permutation(values).reshape(n, priors, classes)
    f = nms_fields(shareLocation=0, codeType=ref.CORNER, inputOrder=[1, 2, 0],
                   confSigmoid=1, isBatchAgnostic=0, backgroundLabelId=2,
                   confidenceThreshold=0.4, topK=12, keepTopK=12)
    add("loc per class, CORNER, inputOrder 1 2 0, sigmoid, priors per image",
        f, lambda rng, f=f: nms_inputs(
            rng, f, 2, 40, conf=spaced_logits(rng, 2, 40, 4),
            per_image_priors=True))
    f = nms_fields(codeType=None, inputOrder=None, isNormalized=0,
                   varianceEncodedInTarget=1, nmsThreshold=0.3)
    add("TF_CENTER and inputOrder by default, pixel boxes", f,
        lambda rng, f=f: nms_inputs(rng, f, 2, 64, pixels=True))
    f = nms_fields(codeType=ref.CORNER_SIZE, varianceEncodedInTarget=1,
                   nmsThreshold=0.5, numClasses=3, backgroundLabelId=-1)
    add("CORNER_SIZE, variance in target", f,
        lambda rng, f=f: nms_inputs(rng, f, 1, 80))
    return cases


def check_nms(fields, inputs, outputs, expected):
    detections, count = expected[0], expected[1]
    got_det, got_count = (np.asarray(o) for o in outputs)
    problems = []
    if got_det.shape != detections.shape:
        return [f"detections have shape {got_det.shape}, want "
                f"{detections.shape}"]
    if got_count.shape != count.shape:
        return [f"keepCount has shape {got_count.shape}, want {count.shape}"]
    if not np.array_equal(got_count.astype(np.int64), count.astype(np.int64)):
        problems.append(f"keepCount {got_count.reshape(-1).tolist()}, want "
                        f"{count.reshape(-1).tolist()}")
    score_tol = 1e-6 if fields["confSigmoid"] else 0.0
    for img in range(detections.shape[0]):
        for row in range(detections.shape[2]):
            g, w = got_det[img, 0, row], detections[img, 0, row]
            bad = (g[0] != w[0] or g[1] != w[1] or
                   not abs(g[2] - w[2]) <= score_tol or
                   not np.all(np.abs(g[3:] - w[3:]) <= 1e-5))
            if bad:
                problems.append(f"image {img} row {row}: got "
                                f"{np.round(g, 6).tolist()}, want "
                                f"{np.round(w, 6).tolist()}")
    return problems


# --------------------------------------------------------------------------
# RPROI_TRT cases
# --------------------------------------------------------------------------

def rproi_fields(**overrides):
    fields = dict(poolingH=3, poolingW=3, featureStride=16, preNmsTop=120,
                  nmsMaxOut=16, iouThreshold=0.6, minBoxSize=8.0,
                  spatialScale=0.0625, anchorsRatioCount=3,
                  anchorsScaleCount=2, anchorsRatios=[0.5, 1.0, 2.0],
                  anchorsScales=[2.0, 4.0])
    fields.update(overrides)
    return fields


def rproi_inputs(rng, f, n, height, width, channels=3, map_scale=1,
                 im_info=None, scores=None, deltas=None):
    a = f["anchorsRatioCount"] * f["anchorsScaleCount"]
    if scores is None:
        scores = rng.uniform(0, 1, size=(n, 2 * a, height, width))
    if deltas is None:
        deltas = rng.normal(0, 0.3, size=(n, 4 * a, height, width))
    feature = rng.normal(0, 1, size=(n, channels, height * map_scale,
                                     width * map_scale))
    if im_info is None:
        stride = f["featureStride"]
        im_info = [[height * stride, width * stride, 1.0]] * n
    return [np.asarray(scores, np.float32), np.asarray(deltas, np.float32),
            np.asarray(feature, np.float32), np.asarray(im_info, np.float32)]


def rproi_cases():
    cases = []

    def add(name, fields, make):
        cases.append((name, fields, make))

    f = rproi_fields()
    add("random, batch 2, two image sizes", f,
        lambda rng, f=f: rproi_inputs(
            rng, f, 2, 5, 7, im_info=[[80, 112, 1.0], [70, 100, 1.5]]))
    f = rproi_fields(nmsMaxOut=300, iouThreshold=0.3, poolingH=2,
                     poolingW=2)
    add("fewer proposals survive than nmsMaxOut", f,
        lambda rng, f=f: rproi_inputs(rng, f, 1, 4, 5))
    f = rproi_fields(preNmsTop=8, nmsMaxOut=8)
    add("preNmsTop below the proposals", f,
        lambda rng, f=f: rproi_inputs(rng, f, 2, 5, 6))

    def all_equal(rng, f):
        a = f["anchorsRatioCount"] * f["anchorsScaleCount"]
        deltas = np.zeros((1, 4 * a, 4, 4))
        deltas[:, 2::4] = deltas[:, 3::4] = 6.0  # every box covers the image
        return rproi_inputs(rng, f, 1, 4, 4, scores=np.full((1, 2 * a, 4, 4),
                                                           0.5),
                            deltas=deltas)
    f = rproi_fields(nmsMaxOut=5)
    add("all boxes equal (coordinates and scores)", f,
        lambda rng, f=f: all_equal(rng, f))
    f = rproi_fields(minBoxSize=40.0, nmsMaxOut=60, iouThreshold=0.8)
    add("boxes under minBoxSize sort last", f,
        lambda rng, f=f: rproi_inputs(rng, f, 1, 4, 6))
    f = rproi_fields(spatialScale=0.125, poolingH=2, poolingW=4,
                     anchorsRatioCount=1, anchorsScaleCount=3,
                     anchorsRatios=[1.0], anchorsScales=[1.0, 2.0, 3.0])
    add("feature map twice the size, one ratio", f,
        lambda rng, f=f: rproi_inputs(rng, f, 3, 4, 5, channels=4,
                                      map_scale=2))
    return cases


def rproi_reference(fields, inputs):
    scores, deltas, _, im_info = inputs
    rois, ambiguous = ref.proposals_reference(scores, deltas, im_info, fields)
    return (rois,), ambiguous


def check_rproi(fields, inputs, outputs, expected):
    rois = expected[0]
    got_rois, got_pooled = (np.asarray(o) for o in outputs)
    problems = []
    if got_rois.shape != rois.shape:
        return [f"rois have shape {got_rois.shape}, want {rois.shape}"]
    tol = 1e-5 * np.maximum(1.0, np.abs(rois))
    for img, row in zip(*np.nonzero(np.any(np.abs(got_rois - rois) > tol,
                                           axis=2))):
        problems.append(f"image {img} roi {row}: got "
                        f"{np.round(got_rois[img, row], 4).tolist()}, want "
                        f"{np.round(rois[img, row], 4).tolist()}")
    pooled = ref.roi_pool_reference(inputs[2], got_rois, fields)
    if got_pooled.shape != pooled.shape:
        problems.append(f"pooled has shape {got_pooled.shape}, want "
                        f"{pooled.shape}")
    else:
        wrong = np.argwhere(got_pooled != pooled)
        for index in wrong[:5]:
            i = tuple(index)
            problems.append(f"pooled{list(i)}: got {got_pooled[i]}, want "
                            f"{pooled[i]}")
        if len(wrong) > 5:
            problems.append(f"... {len(wrong)} pooled values differ")
    return problems


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def nms_reference(fields, inputs):
    detections, count, ambiguous = ref.nms_reference(inputs, fields)
    return (detections, count), ambiguous


PLUGINS = {
    "NMS_TRT": (nms_cases, nms_reference, check_nms),
    "RPROI_TRT": (rproi_cases, rproi_reference, check_rproi),
}


def draw(make, reference, fields, base_seed):
    """Inputs and reference outputs from the first seed whose reference
    decisions are all clear of f32 noise."""
    for attempt in range(SEED_ATTEMPTS):
        seed = base_seed + attempt
        inputs = make(np.random.default_rng(seed))
        expected, ambiguous = reference(fields, inputs)
        if not ambiguous:
            return seed, inputs, expected
    raise RuntimeError(f"no clear draw in {SEED_ATTEMPTS} seeds from "
                       f"{base_seed}: {ambiguous[0]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", required=True,
                        help="directory with kiln-write-plugin-plan and "
                             "kiln-run-plan")
    parser.add_argument("--plugin-lib", required=True,
                        help="libkiln_plugins.so")
    parser.add_argument("--dry-run", action="store_true",
                        help="compute the references and print the "
                             "commands, without running them")
    args = parser.parse_args()
    if plugin_harness is None and not args.dry_run:
        print("check_detection_plugins.py needs plugin_harness.py beside it "
              f"({HARNESS_ERROR})", file=sys.stderr)
        return 1
    harness = (plugin_harness.Harness(args.tools, args.plugin_lib,
                                      dry_run=args.dry_run)
               if plugin_harness else None)
    rows, failed = [], 0
    base_seed = 1000
    for plugin, (cases, reference, check) in PLUGINS.items():
        for name, fields, make in cases():
            base_seed += 100
            try:
                seed, inputs, expected = draw(make, reference, fields,
                                              base_seed)
            except RuntimeError as error:
                rows.append((plugin, name, "-", "FAIL", str(error)))
                failed += 1
                continue
            if harness is None:  # --dry-run without the harness
                rows.append((plugin, name, seed, "dry-run", ""))
                continue
            try:
                outputs = harness.run_case(plugin, fields, inputs)
            except plugin_harness.HarnessError as error:
                rows.append((plugin, name, seed, "FAIL", str(error)))
                failed += 1
                continue
            if outputs is None:  # --dry-run
                rows.append((plugin, name, seed, "dry-run", ""))
                continue
            problems = check(fields, inputs, outputs, expected)
            if problems:
                failed += 1
                detail = "; ".join(problems[:3])
                if len(problems) > 3:
                    detail += f"; ... {len(problems)} problems"
                rows.append((plugin, name, seed, "FAIL", detail))
            else:
                rows.append((plugin, name, seed, "ok", ""))
    header = ("plugin", "case", "seed", "result", "detail")
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip())
    if failed:
        print(f"{failed} of {len(rows)} cases failed")
        return 1
    print(f"all {len(rows)} cases "
          f"{'prepared (dry run)' if args.dry_run else 'passed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
