"""float64 numpy references of kiln's built-in plugins (check_builtin_plugins).

Written from the layers' definitions, not from kiln's kernels:
- LReLU_TRT, Clip_TRT: the formulas;
- Normalize_TRT: Caffe SSD's NormalizeLayer (norm = sqrt(sum x^2 + eps),
  across channels per position or across the whole image, then a shared or
  per-channel scale);
- Reorg_TRT: Darknet's reorg_cpu(..., forward = 0, ...) with its loops;
- Region_TRT: Darknet's region layer at inference (logistic on x, y and the
  objectness, softmax over the classes of each anchor);
- PriorBox_TRT: Caffe SSD's PriorBoxLayer::Forward_cpu loops;
- GridAnchor_TRT: TensorFlow's create_ssd_anchors and tile_anchors (the
  first layer's three priors take TensorRT's aspectRatios[0:3]).
"""

import math

import numpy as np


def leaky_relu(x, slope):
    x = x.astype(np.float64)
    return np.where(x >= 0, x, np.float64(np.float32(slope)) * x)


def clip(x, lo, hi):
    return np.minimum(np.maximum(x.astype(np.float64), np.float32(lo)),
                      np.float32(hi))


def normalize(x, weights, across_spatial, channel_shared, eps):
    x = x.astype(np.float64)
    n, c = x.shape[:2]
    eps = np.float64(np.float32(eps))
    w = np.asarray(weights, np.float32).astype(np.float64)
    scale = (np.full(c, w[0]) if channel_shared else w).reshape(1, c, 1, 1)
    if across_spatial:
        norm = np.sqrt((x ** 2).reshape(n, -1).sum(axis=1) + eps)
        norm = norm.reshape(n, 1, 1, 1)
    else:
        norm = np.sqrt((x ** 2).sum(axis=1, keepdims=True) + eps)
    return x / norm * scale


def reorg(x, stride):
    """Darknet's reorg_cpu(x, w, h, c, batch, stride, forward=0, out): the
    loops over the input's (batch, c, h, w), out[in_index] =
    x[out_index]."""
    batch, c, h, w = x.shape
    flat = x.reshape(-1)
    out = np.empty_like(flat)
    out_c = c // (stride * stride)
    b, k, j, i = np.meshgrid(np.arange(batch), np.arange(c), np.arange(h),
                             np.arange(w), indexing="ij")
    in_index = i + w * (j + h * (k + c * b))
    c2 = k % out_c
    offset = k // out_c
    w2 = i * stride + offset % stride
    h2 = j * stride + offset // stride
    out_index = w2 + w * stride * (h2 + h * stride * (c2 + out_c * b))
    out[in_index.reshape(-1)] = flat[out_index.reshape(-1)]
    return out.reshape(batch, c * stride * stride, h // stride, w // stride)


def region(x, num, coords, classes):
    n, c, h, w = x.shape
    v = x.astype(np.float64).reshape(n, num, coords + 1 + classes, h, w)
    out = v.copy()

    def logistic(t):
        return 1.0 / (1.0 + np.exp(-t))
    out[:, :, 0:2] = logistic(v[:, :, 0:2])
    out[:, :, coords] = logistic(v[:, :, coords])
    scores = v[:, :, coords + 1:]
    e = np.exp(scores - scores.max(axis=2, keepdims=True))
    out[:, :, coords + 1:] = e / e.sum(axis=2, keepdims=True)
    return out.reshape(n, c, h, w)


def prior_box(feature_shape, image_shape, min_size, max_size=(),
              aspect_ratios=(), flip=True, clip=False,
              variance=(0.1, 0.1, 0.2, 0.2), img_h=0, img_w=0, step_h=0.0,
              step_w=0.0, offset=0.5):
    """Caffe's PriorBoxLayer: [1, 2, H * W * priors * 4, 1]."""
    layer_h, layer_w = feature_shape[2], feature_shape[3]
    if img_h == 0 or img_w == 0:
        img_h, img_w = image_shape[2], image_shape[3]
    if step_h == 0 or step_w == 0:
        step_h, step_w = img_h / layer_h, img_w / layer_w
    ratios = [1.0]
    for ar in aspect_ratios:
        if any(abs(ar - r) < 1e-6 for r in ratios):
            continue
        ratios.append(ar)
        if flip:
            ratios.append(1.0 / ar)
    boxes = []
    for h in range(layer_h):
        for w in range(layer_w):
            center_x = (w + offset) * step_w
            center_y = (h + offset) * step_h
            for s, size in enumerate(min_size):
                sides = [(size, size)]
                if max_size:
                    side = math.sqrt(size * max_size[s])
                    sides.append((side, side))
                for ar in ratios:
                    if abs(ar - 1.0) < 1e-6:
                        continue
                    sides.append((size * math.sqrt(ar), size / math.sqrt(ar)))
                for box_w, box_h in sides:
                    boxes.append([(center_x - box_w / 2.0) / img_w,
                                  (center_y - box_h / 2.0) / img_h,
                                  (center_x + box_w / 2.0) / img_w,
                                  (center_y + box_h / 2.0) / img_h])
    boxes = np.asarray(boxes, np.float64).reshape(-1)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    variances = np.tile(np.asarray(variance, np.float64), boxes.size // 4)
    return np.stack([boxes, variances]).reshape(1, 2, -1, 1)


def grid_anchors(feature_map_shapes, aspect_ratios, variance, min_scale=0.2,
                 max_scale=0.95):
    """One [1, 2, F * F * priors * 4, 1] array per layer."""
    layers = len(feature_map_shapes)
    scales = [min_scale + (max_scale - min_scale) * i / (layers - 1)
              for i in range(layers)] + [1.0]
    outputs = []
    for layer, side in enumerate(feature_map_shapes):
        scale, scale_next = scales[layer], scales[layer + 1]
        if layer == 0:
            specs = [(0.1, aspect_ratios[0]), (scale, aspect_ratios[1]),
                     (scale, aspect_ratios[2])]
        else:
            specs = [(scale, ar) for ar in aspect_ratios]
            specs.append((math.sqrt(scale * scale_next), 1.0))
        heights = np.array([s / math.sqrt(ar) for s, ar in specs])
        widths = np.array([s * math.sqrt(ar) for s, ar in specs])
        # tile_anchors: centres on a grid of stride 1 / F, offset half a
        # stride; [y, x, anchor] order; boxes as [ymin, xmin, ymax, xmax].
        stride = 1.0 / side
        centers = np.arange(side) * stride + 0.5 * stride
        y, x, a = np.meshgrid(centers, centers, np.arange(len(specs)),
                              indexing="ij")
        ymin = y - 0.5 * heights[a]
        xmin = x - 0.5 * widths[a]
        ymax = y + 0.5 * heights[a]
        xmax = x + 0.5 * widths[a]
        # TensorRT gives (xmin, ymin, xmax, ymax).
        boxes = np.stack([xmin, ymin, xmax, ymax], axis=-1).reshape(-1)
        variances = np.tile(np.asarray(variance, np.float64), boxes.size // 4)
        outputs.append(np.stack([boxes, variances]).reshape(1, 2, -1, 1))
    return outputs
