#!/usr/bin/env bash
# Builds the Dockerfile's image on a machine with no container engine, and runs a SageMaker job
# in it as the service would: `precis train` with no other argument, in the image's root, with
# /opt/ml laid out as SageMaker lays it out. Run it whenever the Dockerfile changes.
#
#   1. a Debian 12 base image from debootstrap (minbase), committed as docker.io/library/debian:12
#   2. the image, built by buildah with --isolation chroot (podman's default runtime fails here
#      on cgroups); with --cuda, with this machine's CUDA toolkit mounted at /usr/local/cuda in
#      the build stage instead of NVIDIA's repository (which needs the network to NVIDIA)
#   3. a SageMaker job in the image (chroot into its mounted root), hyperparameters in both
#      encodings, its weights against `precis train` run outside the image on the same job
#   4. a bad job: non-zero exit and /opt/ml/output/failure naming the bad hyperparameter
#   5. every layer's files listed (one layer an instruction, as docker builds): no private key
# Needs root; installs buildah and debootstrap if missing. Work folder: build-container/.
#   scripts/container-check.sh [--cuda]
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=OFF tag=precis:check
[ "${1:-}" = --cuda ] && { cuda=ON; tag=precis:check-cuda; }
work=$(realpath -m build-container)
mkdir -p "$work"
stamp() { echo "[container-check $(date -u +%T)] $*"; }
for tool in buildah debootstrap; do
  command -v "$tool" > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" > /dev/null
done

if ! buildah images --format '{{.Name}}:{{.Tag}}' | grep -qx 'docker.io/library/debian:12'; then
  stamp "1. base: debootstrap bookworm (minbase) -> docker.io/library/debian:12"
  rm -rf "$work/bookworm"
  debootstrap --variant=minbase bookworm "$work/bookworm" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1
  base=$(buildah from scratch)
  cp -a "$work/bookworm/." "$(buildah mount "$base")/"
  buildah umount "$base" > /dev/null
  buildah commit -q "$base" docker.io/library/debian:12 > /dev/null
  buildah rm "$base" > /dev/null
fi

stamp "2. image: buildah bud --isolation chroot --build-arg CUDA=$cuda -t $tag"
volume=()
# At both its paths, as installed here: CMake's FindCUDAToolkit finds its way from nvcc's real path.
toolkit=$(readlink -f /usr/local/cuda)
[ "$cuda" = ON ] && volume=(--volume "$toolkit:/usr/local/cuda:ro" --volume "$toolkit:$toolkit:ro")
start=$(date +%s)
buildah bud --isolation chroot --pull-never --layers "${volume[@]}" --build-arg CUDA="$cuda" -t "$tag" . \
  > "$work/build-$cuda.log" 2>&1 || { tail -30 "$work/build-$cuda.log" >&2; exit 1; }
stamp "   built in $(( $(date +%s) - start )) s; $(buildah images --format '{{.Size}}' "$tag" | head -1)"

# A SageMaker tree under ROOT/opt/ml for the tiny job (model channel: bart-tiny after one step,
# made by the precis built here), hyperparameters json.dumps'd or str()'d.
job_tree() {  # job_tree ROOT ENCODING [KEY VALUE]
  local root=$1 encoding=$2 bad_key=${3:-} bad_value=${4:-}
  rm -rf "$root/opt/ml"
  mkdir -p "$root/opt/ml/input/config" "$root/opt/ml/input/data/train" "$root/opt/ml/model"
  cp -r "$work/job/model" "$root/opt/ml/input/data/model"
  cp "$work/job/train.jsonl" "$root/opt/ml/input/data/train/"
  python3 - "$root/opt/ml/input/config" "$encoding" "$bad_key" "$bad_value" <<'PY'
import json, sys
config, encoding, bad_key, bad_value = sys.argv[1:]
h = {"model_name_or_path": "/opt/ml/input/data/model", "text_column": "text", "summary_column": "summary",
     "do_train": True, "per_device_train_batch_size": 4, "max_steps": 3, "learning_rate": 1e-3, "seed": 42,
     "max_source_length": 32, "max_target_length": 16, "save_strategy": "no", "output_dir": "/opt/ml/model",
     "report_to": "none"}
if bad_key:
    h[bad_key] = bad_value
code = (lambda v: json.dumps(v)) if encoding == "json" else (lambda v: str(v))
json.dump({k: code(v) for k, v in h.items()}, open(f"{config}/hyperparameters.json", "w"))
json.dump({"current_host": "algo-1", "hosts": ["algo-1"], "network_interface_name": "eth0"},
          open(f"{config}/resourceconfig.json", "w"))
json.dump({"train": {"TrainingInputMode": "File"}}, open(f"{config}/inputdataconfig.json", "w"))
PY
}

stamp "3. a SageMaker job in the image, and the same job outside it"
if [ ! -d "$work/job/model" ]; then
  mkdir -p "$work/job"
  python3 - "$work/job/train.jsonl" <<'PY'
import glob, json, sys
rows = [l.strip() for f in sorted(glob.glob("docs/*.md")) for l in open(f) if len(l.split()) >= 8]
with open(sys.argv[1], "w") as out:
    for line in rows[:64]:
        out.write(json.dumps({"text": line, "summary": " ".join(line.split()[:6])}) + "\n")
PY
  build/precis tokenizer train --files "$work/job/train.jsonl" --text_field text --text_field summary \
    --vocab_size 400 --min_frequency 2 --output "$work/job/tokenizer" > /dev/null
  build/precis train --config_name bart-tiny --tokenizer_name "$work/job/tokenizer" --train_file "$work/job/train.jsonl" \
    --text_column text --summary_column summary --max_steps 1 --do_train --save_strategy no --report_to none \
    --output_dir "$work/job/model" > /dev/null 2>&1
fi
container=$(buildah from "$tag")
root=$(buildah mount "$container")
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2> /dev/null || true; done
  buildah umount "$container" > /dev/null 2>&1 || true
  buildah rm "$container" > /dev/null 2>&1 || true
}
trap cleanup EXIT
for fs in proc sys dev; do
  mkdir -p "$root/$fs"
  mount --bind "/$fs" "$root/$fs" && mounted=("$root/$fs" "${mounted[@]}")
done
in_image() {  # SageMaker's `docker run IMAGE train`: the entrypoint with `train`
  chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=2 /usr/local/bin/precis train
}
compare() {  # compare A B: the largest difference of two model.safetensors
  python3 - "$1" "$2" <<'PY'
import json, struct, sys
def tensors(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    return {k: struct.unpack(f"<{(v['data_offsets'][1] - v['data_offsets'][0]) // 4}f",
                             body[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items() if k != "__metadata__" and v["dtype"] == "F32"}
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
assert a.keys() == b.keys(), "different tensors"
print(max(abs(x - y) for k in a for x, y in zip(a[k], b[k])))
PY
}
for encoding in json str; do
  job_tree "$root" "$encoding"
  in_image > "$work/job-$encoding.log" 2>&1 || { tail -20 "$work/job-$encoding.log" >&2; exit 1; }
  job_tree "$work/outside" "$encoding"
  SAGEMAKER_BASE_DIR="$work/outside/opt/ml" OMP_NUM_THREADS=2 build/precis train > "$work/outside-$encoding.log" 2>&1
  diff=$(compare "$root/opt/ml/model/model.safetensors" "$work/outside/opt/ml/model/model.safetensors")
  loss=$(sed -n 's/.*"train_loss": *\([-0-9.e]*\).*/\1/p' "$root/opt/ml/model/train_results.json")
  stamp "   hyperparameters $encoding-encoded: train_loss $loss; weights against precis outside the image: max |diff| $diff"
  python3 -c "import sys; sys.exit(0 if float('$diff') <= 1e-6 else 1)" ||
    { echo "container-check: the image's weights differ from precis's outside it" >&2; exit 1; }
done

stamp "4. a bad job: learning_rate \"fast\""
job_tree "$root" json learning_rate fast
if in_image > "$work/job-bad.log" 2>&1; then echo "container-check: the bad job exited 0" >&2; exit 1; fi
stamp "   exit non-zero; output/failure: $(cat "$root/opt/ml/output/failure")"
grep -q learning_rate "$root/opt/ml/output/failure"
stamp "   precis info in the image: $(chroot "$root" /usr/local/bin/precis info | grep -E 'BLAS core|GPU backend' | paste -sd';')"

stamp "5. every layer's files: no private key"
rm -rf "$work/oci"
buildah push -q "$tag" "oci:$work/oci" > /dev/null
layers=0 keys=""
for blob in "$work"/oci/blobs/sha256/*; do
  tar -tzf "$blob" > "$work/layer.txt" 2> /dev/null || tar -tf "$blob" > "$work/layer.txt" 2> /dev/null || continue
  layers=$((layers + 1))
  keys+=$(grep -E '(^|/)(ssh_host_[a-z0-9]+_key|id_(rsa|dsa|ecdsa|ed25519)|authorized_keys)$' "$work/layer.txt" || true)
done
[ -z "$keys" ] || { echo "container-check: private keys in the image's layers: $keys" >&2; exit 1; }
stamp "   $layers layers listed: no ssh host key, no id_* key, no authorized_keys"
