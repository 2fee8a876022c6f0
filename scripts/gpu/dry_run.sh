#!/usr/bin/env bash
# The carried pack (scripts/gpu/bundle.sh) on a system it was not built on, before a GPU machine
# sees it: a chroot of Debian 13 (trixie: glibc 2.41, GCC 14's libstdc++; the GPU machine's
# Ubuntu 24.04 has glibc 2.39) holding nothing beyond debootstrap's minimal base, and, as the
# GPU machine has, the CUDA toolkit at /usr/local/cuda (this machine's, mounted read-only: the
# pack carries none of it). The pack is unpacked there, every library of its binaries must
# resolve (ldd, in the chroot), and the smoke job runs with a bare environment (env -i) to the
# train_loss bundle.sh wrote down here: equal, or within 1e-6 (libm is the chroot's). Needs root
# and debootstrap (apt-get install debootstrap).
#   scripts/gpu/dry_run.sh [ROOT]     (default build-trixie/root; made once, about 2 minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(realpath -m "${1:-build-trixie/root}")
[ -f .gpu-carry/precis-cpu.tar.xz ] || { echo "dry run: no .gpu-carry/precis-cpu.tar.xz; run scripts/gpu/bundle.sh" >&2; exit 1; }
if [ ! -f "$root/etc/debian_version" ]; then
  mirror=$(sed -n 's/^URIs: *\(.*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | head -1)
  echo "dry run: debootstrap --variant=minbase trixie into $root"
  debootstrap --variant=minbase trixie "$root" "${mirror:-http://deb.debian.org/debian}" > "$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log" >&2; exit 1; }
fi
echo "dry run: $(chroot "$root" /bin/sh -c '. /etc/os-release; echo "$PRETTY_NAME"'), $(chroot "$root" ldd --version | head -1)"
rm -rf "$root/pack" "$root/run"
mkdir -p "$root/pack"
tar -C "$root/pack" -xJf .gpu-carry/precis-cpu.tar.xz
# /proc, /sys and /dev as any machine has them (OpenMP and MPI read the CPUs there).
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount "$m" 2> /dev/null || true; done; }
trap cleanup EXIT
for fs in proc sys dev; do
  if ! mountpoint -q "$root/$fs"; then
    mount --bind "/$fs" "$root/$fs" && mounted=("$root/$fs" "${mounted[@]}")
  fi
done
cuda=$(readlink -f /usr/local/cuda)
mkdir -p "$root/usr/local/cuda"
if [ -d "$cuda" ] && ! mountpoint -q "$root/usr/local/cuda"; then
  mount --bind -o ro "$cuda" "$root/usr/local/cuda" && mounted=("$root/usr/local/cuda" "${mounted[@]}")
fi
status=0
for binary in "$root"/pack/bin/*; do
  name=$(basename "$binary")
  missing=$(chroot "$root" env -i PATH=/usr/bin:/bin bash -c \
    "source /pack/libraries.sh; LD_LIBRARY_PATH=\$(carried_library_path /pack) ldd /pack/bin/$name" 2>&1 |
    grep 'not found' | grep -Ev 'libcuda\.so' || true)
  if [ -n "$missing" ]; then
    echo "dry run: $name: $missing" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "dry run: every library of $(ls "$root/pack/bin" | paste -sd' ') resolves in the chroot (libcuda, the driver's, only on a GPU machine)"
echo "dry run: LD_LIBRARY_PATH there: $(chroot "$root" env -i PATH=/usr/bin:/bin bash -c 'source /pack/libraries.sh; carried_library_path /pack')"
if [ -x "$root/pack/bin/precis_gpu_op_tests" ]; then
  ran=$(chroot "$root" env -i PATH=/usr/bin:/bin OMP_NUM_THREADS=2 bash -c \
    'source /pack/libraries.sh; LD_LIBRARY_PATH=$(carried_library_path /pack) /pack/bin/precis_gpu_op_tests --gtest_brief=1' 2>&1 |
    tail -3) || { echo "$ran" >&2; echo "dry run: the carried op tests failed in the chroot" >&2; exit 1; }
  echo "dry run: the carried op tests' CPU cases in the chroot: $(echo "$ran" | grep -o '[0-9]* tests\? from [0-9]* test suites\? ran') (no GPU)"
fi
expected=$(cat "$root/pack/smoke/expected_train_loss")
loss=$(chroot "$root" env -i PATH=/usr/bin:/bin bash /pack/carried_smoke.sh /pack /run) ||
  { echo "dry run: the smoke job failed in the chroot" >&2; exit 1; }
verdict=$(awk -v a="$loss" -v b="$expected" 'BEGIN { d = a - b; if (d < 0) d = -d;
  print (a == b) ? "identical" : (d <= 1e-6 * b) ? "within 1e-6" : "DIFFERENT" }')
echo "dry run: the smoke job in the chroot: train_loss $loss, $expected where the pack was built: $verdict"
[ "$verdict" != DIFFERENT ] && [ "$status" = 0 ]
