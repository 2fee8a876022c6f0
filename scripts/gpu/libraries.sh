# shellcheck shell=bash
# Where the carried engine finds its shared libraries on a machine it was not built on. Sourced
# by scripts/gpu-check.sh and scripts/gpu/carried_smoke.sh (bash).
#
# The pack (scripts/gpu/bundle.sh) holds our Debian libraries in lib/, never glibc's own
# (libc, libm, librt, libpthread, libdl, libutil, libresolv, ld-linux: they would bind
# GLIBC_PRIVATE symbols of another glibc) and never the CUDA toolkit's or the driver's, which
# the GPU machine has in its own folders: the toolkit's, the driver's, or torch's NVIDIA wheels.
# libstdc++ and libgcc_s come in lib/fallback/, used only where the system's are too old.

# The folders of this machine that hold the CUDA runtime, cuBLAS(Lt), NCCL and the driver's
# libcuda, one per line, each once: ldconfig's cache first, then the toolkit, the driver's
# mount, and torch's nvidia-* wheels (nvidia/*/lib wherever Python finds the package).
has_gpu_library() {
  local name
  for name in libcudart.so libcublasLt.so libcublas.so libnccl.so libcuda.so; do
    compgen -G "$1/$name.*" > /dev/null && return 0
  done
  return 1
}
gpu_library_dirs() {
  local libraries='libcudart\.so\.|libcublasLt\.so\.|libcublas\.so\.|libnccl\.so\.|libcuda\.so\.'
  {
    ldconfig -p 2>/dev/null | grep -E " ($libraries)" | sed 's/.* => //' | xargs -r -n1 dirname
    local dir
    for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/nvidia/lib64 \
               /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu/nvidia/current; do
      has_gpu_library "$dir" && echo "$dir"
    done
    # torch's CUDA wheels: the namespace package nvidia (nvidia/cu13/lib, nvidia/cublas/lib, ...).
    local package
    for package in $(python3 -c 'import nvidia; print(" ".join(nvidia.__path__))' 2> /dev/null); do
      for dir in "$package"/*/lib "$package"/*/lib64; do
        has_gpu_library "$dir" && echo "$dir"
      done
    done
  } | xargs -r -n1 readlink -f | awk '!seen[$0]++'
}

# The LD_LIBRARY_PATH for the pack's binaries in BUNDLE: the pack's lib/, then whatever the
# caller had (never dropped), then the GPU libraries' folders found above, then lib/fallback/
# if the system's libstdc++ or libgcc_s lacks a version the binaries need.
carried_library_path() {
  local bundle=$1 path
  path="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local dir
  while read -r dir; do [ -n "$dir" ] && path="$path:$dir"; done < <(gpu_library_dirs)
  if [ -d "$bundle/lib/fallback" ]; then
    local binary
    for binary in "$bundle"/bin/*; do
      if LD_LIBRARY_PATH="$path" ldd "$binary" 2>&1 |
         grep -Eq "(libstdc\+\+|libgcc_s)[^ ]* => not found|version .(GLIBCXX|CXXABI|GCC)_[0-9.]*. not found"; then
        path="$path:$bundle/lib/fallback"
        break
      fi
    done
  fi
  echo "$path"
}
