#!/usr/bin/env bash
# Packs the CPU engine built here (build/precis) with every shared library it loads except
# glibc's own, plus a smoke job's data, into .gpu-carry/precis-cpu.tar.xz (about 11 MB; the
# GPU machine has none of our Debian libraries and takes at most 64 MiB of tree). Then checks
# the pack as the GPU machine will see it: unpacked into an empty directory, with a bare
# environment, every library resolved from the pack, and the smoke job's loss written down as
# the value the GPU machine must reproduce.
#   scripts/gpu/bundle.sh            (after a build: cmake --build build --target precis)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x build/precis ] || { echo "bundle: build/precis is missing; build it first" >&2; exit 1; }
stage=$(mktemp -d) check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/smoke"
cp build/precis "$stage/bin/"
ldd build/precis | awk '/=> \//{print $3}' | while read -r lib; do
  case $(basename "$lib") in libc.so.*|libm.so.*|libgcc_s.so.*|ld-linux*) ;;  # the system's glibc
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
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
outside=$(env -i LD_LIBRARY_PATH="$check/clean/lib" ldd "$check/clean/bin/precis" | awk '/=> \//{print $3}' |
  grep -v "^$check/clean/lib/" | grep -Ev '/(libc|libm|libgcc_s)\.so' || true)
[ -z "$outside" ] || { echo "bundle: libraries resolved outside the pack: $outside" >&2; exit 1; }
loss=$(cd "$check/clean" && env -i PATH=/usr/bin:/bin bash ./carried_smoke.sh . "$check/run")
[ "$loss" = "$(cat "$check/clean/smoke/expected_train_loss")" ] ||
  { echo "bundle: unpacked pack gave train_loss $loss, expected $(cat "$check/clean/smoke/expected_train_loss")" >&2; exit 1; }
echo "bundle: unpacked in an empty directory with a bare environment: train_loss $loss, as expected"
