# precis for SageMaker (bring your own container), Kubernetes (Kubeflow MPIJob) and Slurm.
# SageMaker runs `docker run IMAGE train`: with the exec-form ENTRYPOINT below that is
# `precis train`, which reads the job from /opt/ml (docs/sagemaker.md).
#
#   docker build -t precis .
#   docker build --build-arg CUDA=ON -t precis:cuda .   (with the CUDA toolkit in the builder)
FROM debian:12 AS build
ARG CUDA=OFF
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config libopenblas-openmp-dev libopenmpi-dev openmpi-bin \
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcpp-httplib-dev libsentencepiece-dev liblz4-dev \
    && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPRECIS_TESTS=OFF -DPRECIS_CUDA=${CUDA} \
    && cmake --build /build --target precis

# The CUDA runtime libraries come from NVIDIA's Debian 12 repository in a GPU image; the CPU
# image needs only the libraries precis links and OpenMPI.
FROM debian:12
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libopenblas0-openmp libopenmpi3 openmpi-bin libyaml-cpp0.7 libsentencepiece0 liblz4-1 \
      openssh-server openssh-client ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# Multi-host jobs: mpirun on the first host reaches the others through sshd as root with one
# key that every container of the image shares (as AWS's training toolkit sets it up).
RUN mkdir -p /run/sshd /root/.ssh \
    && ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519 \
    && cp /root/.ssh/id_ed25519.pub /root/.ssh/authorized_keys \
    && printf 'Host *\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n' > /root/.ssh/config \
    && sed -i 's/^#\?PermitRootLogin.*/PermitRootLogin prohibit-password/' /etc/ssh/sshd_config
COPY --from=build /build/precis /usr/local/bin/precis
ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENTRYPOINT ["precis"]
