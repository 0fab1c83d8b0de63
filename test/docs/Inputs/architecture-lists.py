#!/usr/bin/env python3
# ===- architecture-lists.py - what docs/architecture.md must name ---------===#
#
# Reads `kiln-opt --help` (stdin) and prints, one a line, what
# docs/architecture.md must name and does not:
#   pass <name>      a registered kiln pass missing from "Where the code is"
#   pipeline <name>  a registered kiln pipeline missing from the document
#   importer <dir>   a folder of lib/Import missing from "Where the code is"
# Test-only passes (kiln-test-*) are left out. Nothing printed: complete.
#
#   kiln-opt --help | architecture-lists.py docs/architecture.md lib/Import
#
# ===----------------------------------------------------------------------===#
import os
import re
import sys


def registered(help_text):
    """The kiln passes and pipelines kiln-opt lists, as two sorted lists."""
    found = {"Passes:": set(), "Pass Pipelines:": set()}
    group, indent = None, None
    for line in help_text.splitlines():
        if line.strip() in found:
            group, indent = found[line.strip()], None
            continue
        if group is None:
            continue
        if line.strip() and not line.startswith(" " * 4):
            group = None  # the next option category
            continue
        m = re.match(r"^( +)--([\w-]+)", line)
        if not m:
            continue  # an enum value or a wrapped description
        if indent is None:
            indent = len(m.group(1))
        if len(m.group(1)) != indent:
            continue  # a pass's own option
        name = m.group(2)
        if name.startswith("kiln-") and not name.startswith("kiln-test-"):
            group.add(name)
    return sorted(found["Passes:"]), sorted(found["Pass Pipelines:"])


def section(doc, title):
    """The text of the `## title` section of `doc`."""
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", doc,
                  re.M | re.S)
    return m.group(1) if m else ""


def main():
    doc_path, import_dir = sys.argv[1], sys.argv[2]
    with open(doc_path) as f:
        doc = f.read()
    where = section(doc, "Where the code is")
    passes, pipelines = registered(sys.stdin.read())
    if not passes or not pipelines:
        print("error: no kiln passes or pipelines in kiln-opt --help")
        return 1
    named = lambda text, name: re.search(r"`" + re.escape(name) + r"[`{]", text)
    for name in passes:
        if not named(where, name):
            print("pass " + name)
    for name in pipelines:
        if not named(doc, name):
            print("pipeline " + name)
    for entry in sorted(os.listdir(import_dir)):
        if os.path.isdir(os.path.join(import_dir, entry)):
            folder = "lib/Import/" + entry
            if "`" + folder + "`" not in where:
                print("importer " + folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
