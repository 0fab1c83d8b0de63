#!/usr/bin/env bash
# Checks that every C and C++ file of the repository is formatted as
# clang-format (Debian's clang-format, the version CI installs) formats it
# with the root .clang-format (LLVM style). Prints the files that are not;
# `clang-format -i FILE` fixes one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tool="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
if [ -z "$tool" ]; then
  echo "kiln: clang-format not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
bad=()
while IFS= read -r -d '' file; do
  "$tool" --dry-run --Werror "$file" > /dev/null 2>&1 || bad+=("$file")
done < <(git ls-files -z '*.cpp' '*.h' '*.c' '*.cu')
if [ ${#bad[@]} -ne 0 ]; then
  echo "kiln: ${#bad[@]} file(s) are not clang-format clean ($("$tool" --version)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "fix with: $tool -i <file>" >&2
  exit 1
fi
echo "kiln: $(git ls-files '*.cpp' '*.h' '*.c' '*.cu' | wc -l) C/C++ files are clang-format clean ($("$tool" --version | sed 's/.*version //'))"
