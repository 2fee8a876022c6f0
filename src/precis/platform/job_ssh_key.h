// The SSH key of one multi-host SageMaker job, made when the job starts, so that the image holds
// no private key: anyone who can pull an image that bakes one holds the key to every job's
// containers wherever their sshd is reachable.
//
// The first host makes an ed25519 key pair (ssh-keygen) in a fresh private folder and serves
// the public half on TCP port kJobKeyPort (PRECIS_JOB_KEY_PORT) until the job ends; each other
// host, before its sshd starts, asks the first host (resourceconfig.json's hosts[0], by the
// name SageMaker's DNS gives) for it and authorises it for root, replacing what was there.
// mpirun's ssh and the launcher's own then use the private key (OMPI_MCA_plm_rsh_agent, unless
// the user set one; PRECIS_JOB_SSH_KEY names it for an agent of their own). Host keys are made
// at start too where the image has none (ssh-keygen -A), as the Dockerfile leaves it.
//
// Only the public key crosses the network. What a host trusts is "the first key the first
// host's address hands out at start": the trust the job already places in SageMaker's DNS and
// network for mpirun's own connections.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

namespace precis::platform {

inline constexpr int kJobKeyPort = 27022;

// PRECIS_JOB_KEY_PORT, else kJobKeyPort.
int job_key_port();

// The first host's side: the key pair, and the server of its public half.
class JobKeyServer {
 public:
  // Makes the key pair (under the temporary folder, mode 0700) and starts serving.
  explicit JobKeyServer(int port);
  ~JobKeyServer();  // stops serving and removes the key pair
  JobKeyServer(const JobKeyServer&) = delete;
  JobKeyServer& operator=(const JobKeyServer&) = delete;

  const std::filesystem::path& private_key() const { return private_key_; }
  const std::string& public_key() const { return public_key_; }

 private:
  void serve();

  std::filesystem::path dir_, private_key_;
  std::string public_key_;
  int listener_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Another host's side: the first host's public key, asked for until `timeout_s` passes (the
// first host may start later). Throws precis::Error naming the host and port after that, or
// when the answer is not one ed25519 public key.
std::string fetch_job_public_key(const std::string& first_host, int port, double timeout_s);

// Writes `public_key` as the only key of `authorized_keys` (PRECIS_AUTHORIZED_KEYS, else
// ~/.ssh/authorized_keys), its folder 0700 and the file 0600, atomically.
void authorize_job_key(const std::string& public_key);

// The ssh command line mpirun and the launcher use with the job's key (StrictHostKeyChecking
// off: the host keys are made per container, so none can be known in advance).
std::string job_ssh_agent(const std::filesystem::path& private_key);

// sshd's host keys, made (ssh-keygen -A) where the image has none.
void ensure_host_keys();

}  // namespace precis::platform
