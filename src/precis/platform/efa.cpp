#include "precis/platform/efa.h"


namespace precis::platform {

namespace {

// The EC2 families whose EFA does GPUDirect RDMA, as AWS's EFA documentation lists them
// (p6's come as p6-b200, p6e-gb200, ...).
bool reads_gpu_memory(std::string type) {
  if (type.rfind("ml.", 0) == 0) type = type.substr(3);
  const std::string family = type.substr(0, type.find('.'));
  for (const char* f : {"p4d", "p4de", "p5", "p5e", "p5en"})
    if (family == f) return true;
  return family.rfind("p6-", 0) == 0 || family.rfind("p6e-", 0) == 0;
}

}  // namespace

Efa detect_efa(const std::string& instance_type, const std::filesystem::path& rdma_devices) {
  Efa efa;
  std::error_code ec;
  for (const auto& device : std::filesystem::directory_iterator(rdma_devices, ec)) {
    const std::filesystem::path driver =
        std::filesystem::read_symlink(device.path() / "device" / "driver", ec);
    if (!ec && driver.filename() == "efa") efa.present = true;
  }
  efa.device_rdma = efa.present && reads_gpu_memory(instance_type);
  return efa;
}

std::vector<std::pair<std::string, std::string>> efa_environment(const Efa& efa) {
  if (!efa.present) return {};
  std::vector<std::pair<std::string, std::string>> env = {{"FI_PROVIDER", "efa"}};
  if (efa.device_rdma) env.emplace_back("FI_EFA_USE_DEVICE_RDMA", "1");
  return env;
}

}  // namespace precis::platform
