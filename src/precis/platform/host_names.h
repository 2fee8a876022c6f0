// The other hosts by name, as SageMaker names them in resourceconfig.json ("algo-2"). Their
// DNS records appear as the instances start, not all at once: a launcher retries a lookup
// for a while before it calls a host unknown (AWS's own toolkit does the same).
#pragma once

#include <string>
#include <vector>

namespace precis::platform {

// Whether `host` resolves now.
bool resolves(const std::string& host);

// Waits until every host resolves, retrying each second; throws precis::Error naming those
// that still do not after `timeout_s`.
void wait_until_hosts_resolve(const std::vector<std::string>& hosts, double timeout_s);

}  // namespace precis::platform
