#!/usr/bin/env bash
# Builds and packs what the GPU machine runs but cannot build (it has none of our Debian
# libraries and takes at most 64 MiB of tree): the CPU engine with the CUDA backend (precis), the
# op tests on the real backend (precis_gpu_op_tests) and the GPU benches, with every shared
# library they load, plus a smoke job's data, into .gpu-carry/precis-cpu.tar.xz.
#
# - The build is portable: build-carry/, PRECIS_NATIVE=OFF (the GPU host's CPU may lack this
#   one's AVX-512 or AMX; run-time dispatch still picks them where they are).
# - The pack never carries glibc's own libraries (libc, libm, librt, libpthread, libdl, libutil,
#   libresolv, ld-linux): Debian's bind GLIBC_PRIVATE symbols of Debian's glibc, and the GPU
#   machine has another. Nor the CUDA toolkit's or the driver's: they are found there
#   (libraries.sh). libstdc++ and libgcc_s go in lib/fallback/, used only where the system's
#   are older than the build's.
# - Then the pack is checked as the GPU machine will see it: unpacked into an empty directory
#   with a bare environment, every library resolved from the pack or the system's glibc and
#   CUDA folders, no carried library asking for GLIBC_PRIVATE, the smoke job's loss written
#   down as the value the GPU machine must reproduce, and the op tests' CPU cases passing.
# scripts/gpu/dry_run.sh then runs the pack in a chroot of a newer Debian.
#   scripts/gpu/bundle.sh [BUILD_DIR]    (default build-carry; configured and built here)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-carry}
targets=(precis precis_gpu_op_tests precis_gpu_train_bench precis_gpu_generate_bench precis_gpu_train_counted
         precis_gpu_generate_counted)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPRECIS_NATIVE=OFF -DPRECIS_TESTS=ON \
  -DPRECIS_CUDA=ON > /dev/null
grep -q '^PRECIS_NATIVE:BOOL=OFF' "$build/CMakeCache.txt" ||
  { echo "bundle: $build is not configured with PRECIS_NATIVE=OFF" >&2; exit 1; }
stage=$(mktemp -d) check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" > "$check/build.log" 2>&1 ||
  { grep -B2 -A12 -E "error|undefined" "$check/build.log" | head -60 >&2; echo "bundle: the build failed" >&2; exit 1; }
grep -E "warning" "$check/build.log" && { echo "bundle: the build warns (above)" >&2; exit 1; }
mkdir -p "$stage/bin" "$stage/lib/fallback" "$stage/smoke"
binaries=("$build/precis")
for binary in tests/precis_gpu_op_tests bench/precis_gpu_train_bench bench/precis_gpu_generate_bench; do
  [ -x "$build/$binary" ] && binaries+=("$build/$binary")
done
for binary in "${binaries[@]}"; do
  cp "$binary" "$stage/bin/"
  ldd "$binary" | awk '/=> \//{print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so.*|libm.so.*|librt.so.*|libpthread.so.*|libdl.so.*|libutil.so.*|libresolv.so.*|ld-linux*|libmvec.so.*) ;;
      libcudart.so*|libcublas*.so*|libcuda.so*|libnccl.so*|libnvrtc*.so*|libcudnn*.so*|libnvJitLink*.so*) ;;
      libstdc++.so.*|libgcc_s.so.*) cp -L "$lib" "$stage/lib/fallback/" ;;
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
done
# A carried library that asks for GLIBC_PRIVATE is one of glibc's own under another name.
for lib in "$stage"/lib/*.so* "$stage"/lib/fallback/*.so*; do
  if objdump -T "$lib" | grep -q GLIBC_PRIVATE; then
    echo "bundle: $(basename "$lib") binds GLIBC_PRIVATE symbols: it belongs to glibc and must not be carried" >&2
    exit 1
  fi
done
glibc=$(objdump -T "$stage"/bin/* "$stage"/lib/*.so* "$stage"/lib/fallback/*.so* | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)
{
  echo "commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src tools tests bench || echo ' (with uncommitted changes)')"
  echo "built on $(grep PRETTY_NAME /etc/os-release | cut -d'"' -f2), $(ldd --version | head -1)"
  echo "PRECIS_NATIVE=OFF; GPU code for sm_$(grep -o 'CMAKE_CUDA_ARCHITECTURES [0-9 ]*' CMakeLists.txt | cut -d' ' -f2- | sed 's/ /, sm_/g')"
  echo "needs glibc >= ${glibc#GLIBC_}, and the CUDA $(/usr/local/cuda/bin/nvcc --version | grep -o 'release [0-9]*' | cut -d' ' -f2) runtime and cuBLASLt"
} > "$stage/BUILD_INFO"
# Smoke data: sentences of our own docs, the summary their first six words.
python3 - "$stage/smoke/train.jsonl" <<'PY'
import glob, json, sys
rows = [l.strip() for f in sorted(glob.glob("docs/*.md")) for l in open(f) if len(l.split()) >= 8]
with open(sys.argv[1], "w") as out:
    for line in rows[:64]:
        out.write(json.dumps({"text": line, "summary": " ".join(line.split()[:6])}) + "\n")
PY
"$build/precis" tokenizer train --files "$stage/smoke/train.jsonl" --text_field text --text_field summary \
  --vocab_size 400 --min_frequency 2 --output "$stage/smoke/tokenizer" > /dev/null 2>&1
cp scripts/gpu/carried_smoke.sh scripts/gpu/libraries.sh "$stage/"
# The cost model's prices for this build (scripts/gpu-model.sh), for gpu-check.sh to set beside
# what it measures.
bash scripts/gpu-model.sh "$build" > "$stage/model.txt"
"$stage/carried_smoke.sh" "$stage" "$check/here" > "$stage/smoke/expected_train_loss"
mkdir -p .gpu-carry
tar -C "$stage" -cJf .gpu-carry/precis-cpu.tar.xz .
echo "bundle: .gpu-carry/precis-cpu.tar.xz ($(du -h .gpu-carry/precis-cpu.tar.xz | cut -f1)), expected train_loss $(cat "$stage/smoke/expected_train_loss")"
sed 's/^/bundle: /' "$stage/BUILD_INFO"

# The check: a clean directory, a bare environment, nothing but the pack and the system's glibc
# and CUDA folders.
mkdir -p "$check/clean" && tar -C "$check/clean" -xJf .gpu-carry/precis-cpu.tar.xz
path=$(cd "$check/clean" && env -i PATH=/usr/bin:/bin bash -c 'source ./libraries.sh; carried_library_path "$PWD"')
for binary in "$check"/clean/bin/*; do
  outside=$(env -i LD_LIBRARY_PATH="$path" ldd "$binary" | awk '/=> \//{print $3} /not found/{print}' |
    grep -v "^$check/clean/lib/" |
    grep -Ev '/(libc|libm|librt|libpthread|libdl|libutil|libresolv|libmvec|libgcc_s|libstdc\+\+)\.so|/ld-linux|lib(cudart|cublas|cublasLt|cuda|nccl)\.so' || true)
  [ -z "$outside" ] || { echo "bundle: $(basename "$binary"): libraries resolved outside the pack: $outside" >&2; exit 1; }
done
loss=$(cd "$check/clean" && env -i PATH=/usr/bin:/bin bash ./carried_smoke.sh . "$check/run")
[ "$loss" = "$(cat "$check/clean/smoke/expected_train_loss")" ] ||
  { echo "bundle: unpacked pack gave train_loss $loss, expected $(cat "$check/clean/smoke/expected_train_loss")" >&2; exit 1; }
echo "bundle: unpacked in an empty directory with a bare environment: train_loss $loss, as expected"
if [ -x "$check/clean/bin/precis_gpu_op_tests" ]; then
  # No GPU here: the backends are the CPU alone, and its cases must pass from the pack.
  (cd "$check/clean" && env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$path" \
    OMP_NUM_THREADS=1 ./bin/precis_gpu_op_tests --gtest_brief=1 > "$check/op_tests.log" 2>&1) ||
    { tail -20 "$check/op_tests.log" >&2; echo "bundle: the carried op tests failed" >&2; exit 1; }
  echo "bundle: the carried op tests: $(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$check/op_tests.log" | head -1) (CPU cases; no GPU here)"
fi
