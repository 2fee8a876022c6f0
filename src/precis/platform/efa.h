// AWS's Elastic Fabric Adapter, where a host has one: NCCL reaches it through libfabric
// (the aws-ofi-nccl plugin), which must be told to use the EFA provider, and on the instance
// types whose EFA reads GPU memory directly (p4d, p4de, p5, p5e, p5en, p6: GPUDirect RDMA) to
// do so. Elsewhere (g5's EFA has no RDMA read) FI_EFA_USE_DEVICE_RDMA=1 stops the ranks at
// start, so it is set only on those.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace precis::platform {

struct Efa {
  bool present = false;      // an EFA device in the host's RDMA devices
  bool device_rdma = false;  // and the instance type reads GPU memory over it
};

// `rdma_devices` is the kernel's list (/sys/class/infiniband): a device whose driver is efa
// makes it present. `instance_type` is SageMaker's ("ml.p4d.24xlarge") or EC2's ("p5.48xlarge").
Efa detect_efa(const std::string& instance_type,
               const std::filesystem::path& rdma_devices = "/sys/class/infiniband");

// The variables libfabric needs for `efa` ("FI_PROVIDER=efa", ...); none where it is absent.
std::vector<std::pair<std::string, std::string>> efa_environment(const Efa& efa);

}  // namespace precis::platform
