#!/usr/bin/env bash
# Digests of the code emitted for every kernel of every PTX file under tests/ (and the CUB
# file of tests/parse-corpus/large/ when present), to compare two builds: a change that only
# makes translation faster must leave the output file identical (`cmp A B`).
#
#   cargo bench -p ptxcross-tests --bench translate_time --profile dev --no-run
#   cp target/debug/deps/translate_time-<hash> /tmp/tt_A      # at each of the two trees
#   scripts/translate-digests.sh /tmp/tt_A /tmp/digests_A.txt
#   scripts/translate-digests.sh /tmp/tt_B /tmp/digests_B.txt && cmp /tmp/digests_A.txt /tmp/digests_B.txt
#
# Per file: one line per kernel (name, SPIR-V words and a hash of them, WGSL bytes and a
# hash of the text; `PTXCROSS_TRANSLATE_DIGEST` of the benchmark), or `failed` when the
# file does not translate whole (spec fragments, refused kernels: they must fail in both).
# No validation, no ptxas.
set -u
bin=${1:?usage: translate-digests.sh BENCH_BINARY OUT}
out=${2:?usage: translate-digests.sh BENCH_BINARY OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp)
: >"$out"
cd "$root/tests"
find "$root/tests" -name '*.ptx' -not -path '*/target/*' | LC_ALL=C sort | while read -r f; do
  echo "== ${f#"$root"/}" >>"$out"
  if PTXCROSS_TRANSLATE_FILE="$f" PTXCROSS_TRANSLATE_DIGEST="$tmp" PTXCROSS_SPIRV_VALIDATE=0 \
    PTXCROSS_WGSL_VALIDATE=0 PTXAS=/bin/false "$bin" >/dev/null 2>&1; then
    cat "$tmp" >>"$out"
  else
    echo failed >>"$out"
  fi
  rm -f "$tmp"
done
echo "$(grep -c '^== ' "$out") files, $(grep -vc '^== \|^failed$' "$out") kernels, $(grep -c '^failed$' "$out") failed: $out"
