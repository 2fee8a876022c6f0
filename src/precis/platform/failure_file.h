// SageMaker's failure file (<base>/output/failure): the service shows its text as the job's
// FailureReason. It is written once, by whoever first knows the cause (a rank's own error, or
// the launcher reading mpirun's report of a killed rank); later writers leave it, so the
// reason shown is the first failure, not the cascade of aborts that follows it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace precis::platform {

// SageMaker keeps at most this much of the file.
inline constexpr size_t kFailureReasonBytes = 1024;

// "<host>, rank <rank>: <cause>", cut to kFailureReasonBytes on a UTF-8 boundary.
std::string failure_reason(std::string_view host, int rank, std::string_view cause);

// Creates `file` holding `reason` (cut to kFailureReasonBytes) unless it exists; true when
// this call wrote it. Never throws: a failure report must not hide the failure.
bool write_failure_once(const std::filesystem::path& file, std::string_view reason);

}  // namespace precis::platform
