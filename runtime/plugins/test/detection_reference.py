"""Float64 numpy references of NMS_TRT and RPROI_TRT.

Written from the layers' definitions, not from kiln's kernels:
- nms_reference: Caffe SSD's DetectionOutput (DecodeBBoxesAll, ApplyNMSFast
  with JaccardOverlap, keep_top_k) with TensorRT's NMS_TRT output format:
  detections sorted by score (ties: lower class, then the class's own
  order, as TensorRT's stable sorts), keepTopK rows padded with
  (image, -1, 0, 0, 0, 0, 0), coordinates clamped to [0, 1].
- rproi_reference: Faster R-CNN's proposal layer (anchors, bbox_transform_inv,
  clip_boxes, NMS) as TensorRT's RPROI_TRT runs it (boxes under the minimum
  size get the score -inf instead of being dropped, NMS on +1 pixel sizes),
  and Caffe's max ROI pooling.

Each reference also says whether a decision it made lies within float32
noise of a threshold (an IoU near nmsThreshold, a box size near the minimum,
two sigmoid scores closer than f32 can tell apart); the checks draw other
data then, so a comparison never depends on rounding.
"""

import math

import numpy as np

CORNER, CENTER_SIZE, CORNER_SIZE, TF_CENTER = 0, 1, 2, 3

# Distances to a threshold under which a decision is called ambiguous.
IOU_MARGIN = 1e-4
SCORE_MARGIN = 1e-6
SIZE_MARGIN = 1e-3


# --------------------------------------------------------------------------
# NMS_TRT
# --------------------------------------------------------------------------

def decode_box(prior, var, loc, code_type, variance_in_target):
    """One box [xmin, ymin, xmax, ymax] from its prior, variances and
    prediction (Caffe's DecodeBBox; TF_CENTER as TensorRT documents it)."""
    prior = np.asarray(prior, np.float64)
    var = np.asarray(var, np.float64)
    loc = np.asarray(loc, np.float64)
    pw, ph = prior[2] - prior[0], prior[3] - prior[1]
    pcx, pcy = (prior[0] + prior[2]) / 2, (prior[1] + prior[3]) / 2
    if code_type == CORNER:
        return prior + (loc if variance_in_target else loc * var)
    if code_type == CORNER_SIZE:
        size = np.array([pw, ph, pw, ph])
        return prior + (loc if variance_in_target else loc * var) * size
    if code_type == CENTER_SIZE:
        scale = np.ones(4) if variance_in_target else var
        cx = scale[0] * loc[0] * pw + pcx
        cy = scale[1] * loc[1] * ph + pcy
        w = math.exp(scale[2] * loc[2]) * pw
        h = math.exp(scale[3] * loc[3]) * ph
    elif code_type == TF_CENTER:
        # [ty, tx, th, tw], always scaled by the variances (x by var[0]).
        cx = var[0] * loc[1] * pw + pcx
        cy = var[1] * loc[0] * ph + pcy
        w = math.exp(var[2] * loc[3]) * pw
        h = math.exp(var[3] * loc[2]) * ph
    else:
        raise ValueError(f"codeType {code_type}")
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def jaccard(a, b, normalized):
    """Caffe's JaccardOverlap: corners sorted; +1 pixel when not normalized,
    for the sizes and the intersection alike."""
    ax0, ax1 = min(a[0], a[2]), max(a[0], a[2])
    ay0, ay1 = min(a[1], a[3]), max(a[1], a[3])
    bx0, bx1 = min(b[0], b[2]), max(b[0], b[2])
    by0, by1 = min(b[1], b[3]), max(b[1], b[3])
    if bx0 > ax1 or bx1 < ax0 or by0 > ay1 or by1 < ay0:
        ix0 = iy0 = ix1 = iy1 = 0.0
    else:
        ix0, iy0 = max(ax0, bx0), max(ay0, by0)
        ix1, iy1 = min(ax1, bx1), min(ay1, by1)
    pad = 0.0 if normalized else 1.0
    iw, ih = ix1 - ix0 + pad, iy1 - iy0 + pad
    if not (iw > 0 and ih > 0):
        return 0.0
    inter = iw * ih
    area_a = (ax1 - ax0 + pad) * (ay1 - ay0 + pad)
    area_b = (bx1 - bx0 + pad) * (by1 - by0 + pad)
    return inter / (area_a + area_b - inter)


def nms_reference(inputs, p):
    """(detections [N,1,keepTopK,7] f32, keepCount [N,1,1,1] i32, ambiguous)
    for NMS_TRT's inputs (in inputOrder) and fields `p` (a dict)."""
    order = p.get("inputOrder", [0, 2, 1])
    loc, conf, priors = (np.asarray(inputs[i]) for i in order)
    n = loc.shape[0]
    num_classes = p["numClasses"]
    num_priors = priors.shape[2] // 4
    share = bool(p["shareLocation"])
    loc_classes = 1 if share else num_classes
    background = p["backgroundLabelId"]
    top_k, keep_top_k = p["topK"], p["keepTopK"]
    threshold = np.float32(p["confidenceThreshold"])
    nms_threshold = float(np.float32(p["nmsThreshold"]))
    normalized = bool(p["isNormalized"])
    code_type = p.get("codeType", TF_CENTER)
    loc = loc.reshape(n, num_priors, loc_classes, 4)
    conf = conf.reshape(n, num_priors, num_classes).astype(np.float64)
    if p["confSigmoid"]:
        conf = 1.0 / (1.0 + np.exp(-conf))
    priors = priors.reshape(priors.shape[0], 2, num_priors, 4)
    ambiguous = []
    detections = np.zeros((n, 1, keep_top_k, 7), np.float32)
    keep_count = np.zeros((n, 1, 1, 1), np.int32)
    for img in range(n):
        pri = priors[img if priors.shape[0] > 1 else 0]
        kept = []  # (score, class, rank in class, prior)
        for c in range(num_classes):
            if c == background:
                continue
            scores = conf[img, :, c]
            if p["confSigmoid"]:
                near = np.abs(scores - float(threshold)) < SCORE_MARGIN
                if near.any():
                    ambiguous.append(f"image {img} class {c}: a score is "
                                     "within f32 noise of the threshold")
                passed = scores > float(threshold)
            else:
                passed = conf[img, :, c].astype(np.float32) > threshold
            candidates = [(-scores[i], i) for i in range(num_priors)
                          if passed[i]]
            candidates.sort()  # higher score first, then lower prior index
            if p["confSigmoid"]:
                for (s0, i0), (s1, i1) in zip(candidates, candidates[1:]):
                    if s0 != s1 and s1 - s0 < SCORE_MARGIN:
                        ambiguous.append(f"image {img} class {c}: scores of "
                                         f"priors {i0} and {i1} are closer "
                                         "than f32 can order")
            candidates = candidates[:top_k]
            boxes = {}
            lc = 0 if share else c
            for _, i in candidates:
                boxes[i] = decode_box(pri[0, i], pri[1, i], loc[img, i, lc],
                                      code_type,
                                      p["varianceEncodedInTarget"])
            survivors = []
            for rank, (neg_score, i) in enumerate(candidates):
                keep = True
                for _, j in survivors:
                    overlap = jaccard(boxes[j], boxes[i], normalized)
                    if abs(overlap - nms_threshold) < IOU_MARGIN:
                        ambiguous.append(f"image {img} class {c}: IoU of "
                                         f"priors {j} and {i} is {overlap}")
                    if overlap > nms_threshold:
                        keep = False
                        break
                if keep:
                    survivors.append((rank, i))
            for rank, i in survivors:
                kept.append((-conf[img, i, c], c, rank, i, boxes[i]))
        kept.sort(key=lambda k: k[:3])
        if p["confSigmoid"]:
            for k0, k1 in zip(kept, kept[1:]):
                if k0[0] != k1[0] and k1[0] - k0[0] < SCORE_MARGIN:
                    ambiguous.append(f"image {img}: kept scores of classes "
                                     f"{k0[1]} and {k1[1]} are closer than "
                                     "f32 can order")
        count = min(len(kept), keep_top_k)
        keep_count[img, 0, 0, 0] = count
        for row in range(keep_top_k):
            if row < count:
                neg_score, c, _, _, box = kept[row]
                values = [img, c, -neg_score] + list(np.clip(box, 0.0, 1.0))
            else:
                values = [img, -1, 0, 0, 0, 0, 0]
            detections[img, 0, row] = values
    return detections, keep_count, ambiguous


# --------------------------------------------------------------------------
# RPROI_TRT
# --------------------------------------------------------------------------

def round_half_away(x):
    x = np.asarray(x, np.float64)
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def anchors(stride, ratios, scales):
    """[A, 4] (centre x, centre y, width, height), anchor r * len(scales) + s,
    as Faster R-CNN's generate_anchors with TensorRT's f32 rounding."""
    out = []
    base = np.float32(stride)
    for ratio in ratios:
        ratio = np.float32(ratio)
        ws = round_half_away(np.sqrt(np.float32(base * base / ratio)))
        hs = round_half_away(np.float32(ws) * ratio)
        for scale in scales:
            out.append([(float(base) - 1) / 2, (float(base) - 1) / 2,
                        ws * float(np.float32(scale)),
                        hs * float(np.float32(scale))])
    return np.array(out, np.float64)


def pixel_iou(a, b):
    iw = max(min(a[2], b[2]) - max(a[0], b[0]) + 1, 0.0)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]) + 1, 0.0)
    inter = iw * ih
    area_a = (a[2] - a[0] + 1) * (a[3] - a[1] + 1)
    area_b = (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
    return inter / (area_a + area_b - inter)


def proposals_reference(scores, deltas, im_info, p):
    """(rois [N, nmsMaxOut, 4] f64, ambiguous)."""
    n, two_a, height, width = scores.shape
    a_count = two_a // 2
    anc = anchors(p["featureStride"], p["anchorsRatios"], p["anchorsScales"])
    stride = p["featureStride"]
    max_out = p["nmsMaxOut"]
    iou_threshold = float(np.float32(p["iouThreshold"]))
    rois = np.zeros((n, max_out, 4))
    ambiguous = []
    for img in range(n):
        im_h, im_w, im_scale = (float(v) for v in im_info[img].reshape(3))
        min_size = float(np.float32(p["minBoxSize"])) * im_scale
        boxes, fg = [], []
        for a in range(a_count):
            for h in range(height):
                for w in range(width):
                    dx, dy, dw, dh = (float(deltas[img, 4 * a + k, h, w])
                                      for k in range(4))
                    cx = anc[a, 0] + w * stride + dx * anc[a, 2]
                    cy = anc[a, 1] + h * stride + dy * anc[a, 3]
                    bw, bh = math.exp(dw) * anc[a, 2], math.exp(dh) * anc[a, 3]
                    box = [min(max(cx - bw / 2, 0.0), im_w - 1),
                           min(max(cy - bh / 2, 0.0), im_h - 1),
                           min(max(cx + bw / 2, 0.0), im_w - 1),
                           min(max(cy + bh / 2, 0.0), im_h - 1)]
                    score = float(scores[img, a_count + a, h, w])
                    sizes = (box[2] - box[0] + 1, box[3] - box[1] + 1)
                    for size in sizes:
                        if abs(size - min_size) < SIZE_MARGIN:
                            ambiguous.append(f"image {img} anchor {a} at "
                                             f"({h}, {w}): size {size} is at "
                                             f"the minimum {min_size}")
                    if math.isnan(score) or min(sizes) < min_size:
                        score = -math.inf
                    boxes.append(box)
                    fg.append(score)
        # Higher score first, then lower index (a stable sort).
        order = sorted(range(len(fg)), key=lambda r: (-fg[r], r))
        order = order[:p["preNmsTop"]]
        kept = []
        for r in order:
            if len(kept) == max_out:
                break
            keep = True
            for k in kept:
                overlap = pixel_iou(boxes[k], boxes[r])
                if abs(overlap - iou_threshold) < IOU_MARGIN:
                    ambiguous.append(f"image {img}: IoU of proposals {k} "
                                     f"and {r} is {overlap}")
                if overlap > iou_threshold:
                    keep = False
                    break
            if keep:
                kept.append(r)
        for row, r in enumerate(kept):
            rois[img, row] = boxes[r]
    return rois, ambiguous


def roi_pool_reference(feature, rois, p):
    """[N * R, C, poolingH, poolingW] by Caffe's max ROI pooling of `rois`
    ([N, R, 4] f32, image pixels) over `feature` ([N, C, Hf, Wf]), with the
    f32 arithmetic TensorRT's kernel uses for the bins."""
    n, channels, map_h, map_w = feature.shape
    rois_per_image = rois.shape[1]
    ph_count, pw_count = p["poolingH"], p["poolingW"]
    scale = np.float32(p["spatialScale"])
    out = np.zeros((n * rois_per_image, channels, ph_count, pw_count),
                   np.float32)
    for img in range(n):
        for j in range(rois_per_image):
            x1, y1, x2, y2 = (np.float32(v) for v in rois[img, j])
            start_w = int(round_half_away(np.float32(x1 * scale)))
            start_h = int(round_half_away(np.float32(y1 * scale)))
            end_w = int(round_half_away(np.float32(x2 * scale)))
            end_h = int(round_half_away(np.float32(y2 * scale)))
            roi_w = max(end_w - start_w + 1, 1)
            roi_h = max(end_h - start_h + 1, 1)
            bin_h = np.float32(roi_h) / np.float32(ph_count)
            bin_w = np.float32(roi_w) / np.float32(pw_count)
            for ph in range(ph_count):
                h0 = int(math.floor(np.float32(ph) * bin_h)) + start_h
                h1 = int(math.ceil(np.float32(ph + 1) * bin_h)) + start_h
                h0, h1 = min(max(h0, 0), map_h), min(max(h1, 0), map_h)
                for pw in range(pw_count):
                    w0 = int(math.floor(np.float32(pw) * bin_w)) + start_w
                    w1 = int(math.ceil(np.float32(pw + 1) * bin_w)) + start_w
                    w0, w1 = min(max(w0, 0), map_w), min(max(w1, 0), map_w)
                    row = out[img * rois_per_image + j, :, ph, pw]
                    if h1 <= h0 or w1 <= w0:
                        row[:] = 0
                    else:
                        row[:] = feature[img, :, h0:h1, w0:w1].max(axis=(1, 2))
    return out
