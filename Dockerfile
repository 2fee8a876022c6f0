# precis for SageMaker (bring your own container), Kubernetes (Kubeflow MPIJob) and Slurm.
# SageMaker runs `docker run IMAGE train`: with the exec-form ENTRYPOINT below that is
# `precis train`, which reads the job from /opt/ml (docs/sagemaker.md).
#
#   docker build -t precis .                                 CPU only
#   docker build --build-arg CUDA=ON -t precis:cuda .        GPU: CUDA from NVIDIA's Debian 12 repository
#   buildah bud -v /usr/local/cuda:/usr/local/cuda:ro --build-arg CUDA=ON ...   GPU: a toolkit mounted at
#                                                            build time instead (scripts/container-check.sh --cuda)
#
# Both stages stay Debian 12. With CUDA=ON the build stage installs nvcc, cudart and cuBLAS
# (CUDA_PACKAGES' version) from NVIDIA's Debian 12 repository, and the runtime stage gets the
# CUDA libraries the binary links (libcudart, libcublasLt: whatever ldd finds under
# /usr/local/cuda), copied from the build stage. The GPU driver (libcuda) is not in the image:
# the NVIDIA container runtime mounts the host's, as on SageMaker's GPU instances.
ARG CUDA=OFF

FROM debian:12 AS build
ARG CUDA
ARG CUDA_PACKAGES=12-8
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config libopenblas-openmp-dev libopenmpi-dev openmpi-bin \
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcpp-httplib-dev libsentencepiece-dev liblz4-dev \
      ca-certificates wget \
    && if [ "$CUDA" = ON ] && [ ! -x /usr/local/cuda/bin/nvcc ]; then \
         wget -q https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb \
         && dpkg -i cuda-keyring_1.1-1_all.deb && rm cuda-keyring_1.1-1_all.deb && apt-get update \
         && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
              cuda-nvcc-${CUDA_PACKAGES} cuda-cudart-dev-${CUDA_PACKAGES} libcublas-dev-${CUDA_PACKAGES}; \
       fi \
    && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN if [ "$CUDA" = ON ]; then cuda_compiler=-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc; fi \
    && cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPRECIS_TESTS=OFF -DPRECIS_CUDA=${CUDA} \
         ${cuda_compiler:-} \
    && cmake --build /build --target precis \
    && mkdir /cuda-libs \
    && ldd /build/precis | awk '$3 ~ "^/usr/local/cuda" {print $3}' | xargs -r cp -L -t /cuda-libs \
    && if [ "$CUDA" = ON ] && ! ls /cuda-libs | grep -q libcudart; then \
         echo "CUDA=ON, but precis links no libcudart from /usr/local/cuda" >&2; exit 1; fi

# Every library precis loads comes from a package here or one it pulls in: CI checks it
# (scripts/container/runtime_libraries.py), and scripts/container-check.sh builds and runs it.
# openssh-server's host keys are removed in the layer that makes them: the image holds no
# private key (a later layer's rm would leave them in this one).
FROM debian:12
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libopenblas0-openmp libopenmpi3 openmpi-bin libyaml-cpp0.7 libsentencepiece0 liblz4-1 libcpp-httplib0.11 \
      openssh-server openssh-client ca-certificates \
    && rm -f /etc/ssh/ssh_host_* \
    && rm -rf /var/lib/apt/lists/*
# The CUDA libraries precis links (empty in the CPU image), under their sonames.
COPY --from=build /cuda-libs/ /usr/local/lib/precis-cuda/
RUN echo /usr/local/lib/precis-cuda > /etc/ld.so.conf.d/precis-cuda.conf && ldconfig
# What the NVIDIA container runtime reads to mount the driver into a non-NVIDIA base image
# (no effect without a GPU or that runtime).
ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
# Multi-host jobs: mpirun on the first host reaches the others through sshd as root, with a key
# pair made per job when it starts, and host keys made per container (`precis train` on
# SageMaker: platform/job_ssh_key.h; Kubeflow's MPIJob mounts the operator's per-job key). No
# key is made here: whoever can pull the image could otherwise log in to every job's hosts.
RUN mkdir -p /run/sshd /root/.ssh && chmod 700 /root/.ssh \
    && printf 'Host *\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n' > /root/.ssh/config \
    && sed -i 's/^#\?PermitRootLogin.*/PermitRootLogin prohibit-password/; s/^#\?PasswordAuthentication.*/PasswordAuthentication no/' \
         /etc/ssh/sshd_config
COPY --from=build /build/precis /usr/local/bin/precis
ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENTRYPOINT ["precis"]
