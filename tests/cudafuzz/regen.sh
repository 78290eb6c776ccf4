#!/usr/bin/env bash
# Regenerates the committed regression set cases/<seed>/ from the seeds and variants listed in
# cases.txt: each line is `SEED VARIANT[,VARIANT...] [found/FILE.cu]` (a kept program that once
# failed, from an earlier generator, instead of gen.py's). Stops at the first case that fails.
# Per case: prog.cu (gen.py), the input tables and out.init.bin, out.expected.bin (the host run
# of prog.cu through cf.h + host.cpp, g++), and per variant prog.<variant>.ptx (nvcc 13.5.37 /
# clang-16, flags in fuzz.py's VARIANTS) with its launch spec prog.<variant>.json.
# Needs the CUDA venv of ../cuda-env.sh, clang-16, g++ >= 11, and a built ptxcross
# (PTXCROSS=path, default target/debug/ptxcross), which also runs every case once.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$HERE/../cuda-env.sh"
need_clang
"$CUDA_BIN/nvcc" --version | tail -n 1
PTXCROSS="${PTXCROSS:-$HERE/../../target/debug/ptxcross}"
rm -rf "${HERE:?}/cases"
grep -v '^\s*#' "$HERE/cases.txt" | while read -r seed variants source; do
    [ -n "$seed" ] || continue
    n=$(echo "$variants" | tr ',' '\n' | wc -l)
    python3 "$HERE/fuzz.py" --seed "$seed" --count 1 --variants "$variants" --per-program "$n" \
        --ptxcross "$PTXCROSS" --save-case "$HERE/cases" --keep "$HERE/../../target/cudafuzz-regen" \
        ${source:+--source "$HERE/$source"}
done
