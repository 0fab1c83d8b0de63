"""Writes x.npy (random, seeded) and ref/output_0.npy = clip(x, -0.5, 0.25)
for plugins.test: numpy's answer for the TestClip plugin's plan."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(os.path.join(out, "ref"), exist_ok=True)
x = np.random.default_rng(7).standard_normal((2, 3, 4)).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
np.save(os.path.join(out, "ref", "output_0.npy"), np.clip(x, -0.5, 0.25))
