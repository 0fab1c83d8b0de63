"""Builds the kiln package's native modules with kiln's CMake build.

`pip install ./python` (from the repository root) runs this. The modules are
the CMake targets _runtime and _compiler (python/CMakeLists.txt), built in
KILN_BUILD_DIR (default: the repository's build/, configured by
scripts/build.sh when it is not yet; a first build of kiln takes a while),
and copied, stripped, into the wheel beside the package's Python files.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


class BuildWithCMake(build_py):
    def run(self):
        super().run()
        build = pathlib.Path(os.environ.get("KILN_BUILD_DIR", ROOT / "build")).resolve()
        env = dict(os.environ, KILN_BUILD_DIR=str(build))
        subprocess.run(
            [str(ROOT / "scripts" / "build.sh"), "_runtime", "_compiler"], check=True, env=env
        )
        target = pathlib.Path(self.build_lib) / "kiln"
        target.mkdir(parents=True, exist_ok=True)
        modules = sorted((build / "python" / "kiln").glob("_*.so"))
        if len(modules) < 2:
            raise RuntimeError(f"kiln: the native modules are not in {build}/python/kiln")
        # The built-in plugins (libkiln_plugins.so), where nvcc built them.
        modules += sorted((build / "python" / "kiln").glob("libkiln_plugins.so"))
        for module in modules:
            dest = target / module.name
            shutil.copyfile(module, dest)
            if shutil.which("strip"):
                subprocess.run(["strip", "--strip-unneeded", str(dest)], check=True)


class BinaryDistribution(Distribution):
    """A wheel for this platform and Python (the modules are native)."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution)
