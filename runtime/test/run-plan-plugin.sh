#!/bin/sh
# kiln-run-plan with a plugin library, on the stand-in driver:
#   run-plan-plugin.sh WRITER RUN_PLAN DRIVER PLUGIN_LIBRARY DIR
# A plan of the test library's TestClip@2 is refused naming the plugin
# without --plugin-lib, and runs with it.
set -eu
writer=$1 run_plan=$2 driver=$3 library=$4 dir=$5
mkdir -p "$dir"
"$writer" --clip "$dir/clip.kplan" 64 -1 1
if "$run_plan" "$dir/clip.kplan" --driver="$driver" > "$dir/without.txt" 2>&1; then
  echo "FAIL: the plan ran without its plugin library"; exit 1
fi
grep -q "plugin 'TestClip' version '2' namespace 'kiln.test' is not registered" "$dir/without.txt" ||
  { echo "FAIL: unexpected refusal:"; cat "$dir/without.txt"; exit 1; }
"$run_plan" "$dir/clip.kplan" --driver="$driver" --plugin-lib="$library"
if "$run_plan" "$dir/clip.kplan" --driver="$driver" --plugin-lib=/no/lib.so 2> "$dir/missing.txt"; then
  echo "FAIL: a missing plugin library was accepted"; exit 1
fi
grep -q "plugin library '/no/lib.so'" "$dir/missing.txt"
echo "kiln-run-plan --plugin-lib: ok"
