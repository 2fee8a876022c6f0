#!/usr/bin/env bash
# Packs the CPU engine built here (build/precis) and the op tests with the CUDA backend
# (build/tests/precis_gpu_op_tests, where the toolkit is) with every shared library they load
# except glibc's own and the CUDA toolkit's (the GPU machine has its own, of the same major
# version), plus a smoke job's data, into .gpu-carry/precis-cpu.tar.xz (the GPU machine has
# none of our Debian libraries and takes at most 64 MiB of tree). Then checks the pack as the
# GPU machine will see it: unpacked into an empty directory, with a bare environment, every
# library resolved from the pack (or the toolkit), the smoke job's loss written down as the
# value the GPU machine must reproduce, and the op tests' CPU cases passing.
#   scripts/gpu/bundle.sh   (after a build: cmake --build build --target precis precis_gpu_op_tests)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/precis ] || { echo "bundle: build/precis is missing; build it first" >&2; exit 1; }
stage=$(mktemp -d) check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/smoke"
binaries=(build/precis)
[ -x build/tests/precis_gpu_op_tests ] && binaries+=(build/tests/precis_gpu_op_tests)
for bench in precis_gpu_train_bench precis_gpu_generate_bench; do
  [ -x "build/bench/$bench" ] && binaries+=("build/bench/$bench")
done
for binary in "${binaries[@]}"; do
  cp "$binary" "$stage/bin/"
  ldd "$binary" | awk '/=> \//{print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so.*|libm.so.*|libgcc_s.so.*|ld-linux*) ;;  # the system's glibc
      libcudart.so*|libcublas*.so*|libcuda.so*) ;;      # the toolkit's and driver's, there
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
done
# Smoke data: sentences of our own docs, the summary their first six words.
python3 - "$stage/smoke/train.jsonl" <<'PY'
import glob, json, sys
rows = [l.strip() for f in sorted(glob.glob("docs/*.md")) for l in open(f) if len(l.split()) >= 8]
with open(sys.argv[1], "w") as out:
    for line in rows[:64]:
        out.write(json.dumps({"text": line, "summary": " ".join(line.split()[:6])}) + "\n")
PY
build/precis tokenizer train --files "$stage/smoke/train.jsonl" --text_field text --text_field summary \
  --vocab_size 400 --min_frequency 2 --output "$stage/smoke/tokenizer" > /dev/null 2>&1
cp scripts/gpu/carried_smoke.sh "$stage/"
scripts/gpu/carried_smoke.sh "$stage" "$check/here" > "$stage/smoke/expected_train_loss"
mkdir -p .gpu-carry
tar -C "$stage" -cJf .gpu-carry/precis-cpu.tar.xz .
echo "bundle: .gpu-carry/precis-cpu.tar.xz ($(du -h .gpu-carry/precis-cpu.tar.xz | cut -f1)), expected train_loss $(cat "$stage/smoke/expected_train_loss")"

# The check: a clean directory, a bare environment, nothing but the pack.
mkdir -p "$check/clean" && tar -C "$check/clean" -xJf .gpu-carry/precis-cpu.tar.xz
for binary in "$check"/clean/bin/*; do
  outside=$(env -i LD_LIBRARY_PATH="$check/clean/lib:/usr/local/cuda/lib64" ldd "$binary" | awk '/=> \//{print $3}' |
    grep -v "^$check/clean/lib/" | grep -Ev '/(libc|libm|libgcc_s)\.so|^/usr/local/cuda/' || true)
  [ -z "$outside" ] || { echo "bundle: $(basename "$binary"): libraries resolved outside the pack: $outside" >&2; exit 1; }
done
loss=$(cd "$check/clean" && env -i PATH=/usr/bin:/bin bash ./carried_smoke.sh . "$check/run")
[ "$loss" = "$(cat "$check/clean/smoke/expected_train_loss")" ] ||
  { echo "bundle: unpacked pack gave train_loss $loss, expected $(cat "$check/clean/smoke/expected_train_loss")" >&2; exit 1; }
echo "bundle: unpacked in an empty directory with a bare environment: train_loss $loss, as expected"
if [ -x "$check/clean/bin/precis_gpu_op_tests" ]; then
  # No GPU here: the backends are the CPU alone, and its cases must pass from the pack.
  (cd "$check/clean" && env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$PWD/lib:/usr/local/cuda/lib64" \
    OMP_NUM_THREADS=1 ./bin/precis_gpu_op_tests --gtest_brief=1 > "$check/op_tests.log" 2>&1) ||
    { tail -20 "$check/op_tests.log" >&2; echo "bundle: the carried op tests failed" >&2; exit 1; }
  echo "bundle: the carried op tests: $(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$check/op_tests.log" | head -1) (CPU cases; no GPU here)"
fi
