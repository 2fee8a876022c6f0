#include "precis/platform/mpi_launcher.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/subprocess.h"
#include "precis/platform/child_process.h"
#include "precis/platform/failure_file.h"
#include "precis/platform/host_names.h"
#include "precis/platform/job_ssh_key.h"
#include "precis/platform/mpirun_report.h"
#include "precis/platform/process_tree.h"

namespace precis::platform {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Set by SIGTERM / SIGINT; the launcher's loops pass the stop on to the ranks of its host.
volatile sig_atomic_t g_stop_requested = 0;
extern "C" void on_stop_signal(int) { g_stop_requested = 1; }

void watch_for_stop() {
  ::signal(SIGTERM, on_stop_signal);
  ::signal(SIGINT, on_stop_signal);
}

// Passes a stop on to the training ranks of this host, each once. The stop stays in force
// after it is first passed on: SIGTERM may come while mpirun or an orted is still starting
// ranks, and a rank that appears later must see it too (else the job would run on until the
// platform's SIGKILL).
class StopForwarder {
 public:
  explicit StopForwarder(std::string executable) : executable_(std::move(executable)) {}
  // Called on each turn of a launcher's loop with the processes the ranks run under.
  void forward(const std::vector<pid_t>& roots) {
    if (g_stop_requested) stopping_ = true;
    if (!stopping_) return;
    int n = 0;
    for (pid_t pid : descendants_running(roots, executable_))
      if (signalled_.insert(pid).second && ::kill(pid, SIGTERM) == 0) ++n;
    if (n > 0)
      std::fprintf(stderr, "precis: SIGTERM: passed to %d rank%s on this host\n", n, n == 1 ? "" : "s");
  }

 private:
  std::string executable_;
  bool stopping_ = false;
  std::set<pid_t> signalled_;
};

std::string self_executable() { return process_executable(::getpid()); }

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The remote shell mpirun uses (OpenMPI's plm_rsh_agent, "ssh : rsh" by default: the first).
std::vector<std::string> ssh_agent() {
  const char* agent = std::getenv("OMPI_MCA_plm_rsh_agent");
  std::string text = agent && *agent ? agent : "ssh";
  if (size_t colon = text.find(':'); colon != std::string::npos) text.resize(colon);
  return words(text);
}

// sshd in the foreground, as the toolkit starts it; PRECIS_SSHD_COMMAND replaces the command
// line (a test's sshd on a loopback address, or an image's own configuration).
Child start_sshd() {
  const char* custom = std::getenv("PRECIS_SSHD_COMMAND");
  std::vector<std::string> argv =
      custom && *custom ? words(custom) : std::vector<std::string>{"/usr/sbin/sshd", "-D"};
  if (!custom && !fs::exists(argv[0]))
    throw Error(argv[0] + " not found: a multi-host job needs openssh-server in the image "
                "(see the Dockerfile and docs/sagemaker.md)");
  if (!custom) ensure_host_keys();
  return start_child(argv, false);
}

bool ssh_answers(const std::string& host) {
  std::vector<std::string> argv = ssh_agent();
  argv.insert(argv.end(), {host, "true"});
  try {
    return run_process(argv).exit_code == 0;
  } catch (const Error&) {
    return false;
  }
}

// The job's own SSH key (job_ssh_key.h), unless PRECIS_JOB_KEY=off: an image that brings its
// own keys.
bool job_keys() {
  const char* setting = std::getenv("PRECIS_JOB_KEY");
  return !(setting && std::string(setting) == "off");
}

// The first host's side of the job's key: served to the other hosts, and used by mpirun's and
// the launcher's ssh (their agent, unless the user set one). Empty for one host.
void start_job_key(const ResourceConfig& rc, std::optional<JobKeyServer>& key) {
  if (rc.hosts.size() < 2 || !job_keys()) return;
  key.emplace(job_key_port());
  // Authorised here too: mpirun reaches this host through ssh as well where the name in
  // resourceconfig.json is not the one it calls itself.
  authorize_job_key(key->public_key());
  ::setenv("PRECIS_JOB_SSH_KEY", key->private_key().c_str(), 1);
  const char* agent = std::getenv("OMPI_MCA_plm_rsh_agent");
  if (!agent || !*agent) ::setenv("OMPI_MCA_plm_rsh_agent", job_ssh_agent(key->private_key()).c_str(), 1);
}

// Waits until every other host answers ssh, for at most `timeout`.
void wait_for_ssh(const ResourceConfig& rc, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (const std::string& host : rc.hosts) {
    if (host == rc.current_host) continue;
    while (!ssh_answers(host)) {
      if (Clock::now() > deadline)
        throw Error("host " + host + " does not answer ssh after " + std::to_string(timeout.count()) + " s");
      if (g_stop_requested) throw Error("stopped (SIGTERM) before the job started");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

// Where `precis sagemaker-job-end` leaves the first host's word for run_other_host.
fs::path job_end_file(const ResourceConfig& resources) {
  return fs::temp_directory_path() / ("precis-sagemaker-job-end-" + resources.current_host);
}

// The orted daemons mpirun started on this host through ssh. An orted detaches from its ssh
// session, so it is found by name (as AWS's toolkit finds it) and, where several fake hosts
// share a machine in tests, by the host's SAGEMAKER_BASE_DIR it inherited from the session
// (unset on both sides on SageMaker, where a container is a host).
std::vector<pid_t> this_hosts_orteds() {
  const char* base = std::getenv("SAGEMAKER_BASE_DIR");
  const std::string ours = base ? base : "";
  std::vector<pid_t> out;
  for (pid_t pid : processes_named("orted"))
    if (process_environment_variable(pid, "SAGEMAKER_BASE_DIR") == ours) out.push_back(pid);
  return out;
}

// Tells every other host how the job ended.
void announce_job_end(const MpiLaunch& launch, int status, const std::string& reason) {
  const std::string self = self_executable();
  for (const std::string& host : launch.resources.hosts) {
    if (host == launch.resources.current_host) continue;
    std::vector<std::string> argv = ssh_agent();
    argv.insert(argv.end(), {host, self, "sagemaker-job-end", std::to_string(status)});
    ProcessOptions options;
    options.input = reason.empty() ? std::string("-") : reason;
    try {
      ProcessResult r = run_process(argv, options);
      if (r.exit_code != 0)
        std::fprintf(stderr, "precis: warning: could not tell %s that the job ended: %s\n",
                     host.c_str(), r.output.c_str());
    } catch (const Error& e) {
      std::fprintf(stderr, "precis: warning: could not tell %s that the job ended: %s\n",
                   host.c_str(), e.what());
    }
  }
}

// Reads what is there on `fd` (non-blocking after poll), passing whole lines to `line`;
// false at end of file.
bool pump_lines(int fd, std::string& pending, const std::function<void(std::string_view)>& line) {
  char buffer[4096];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n <= 0) {
    if (n < 0 && errno == EINTR) return true;
    if (!pending.empty()) line(pending);
    pending.clear();
    return false;
  }
  pending.append(buffer, size_t(n));
  for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
    line(std::string_view(pending).substr(0, nl));
    pending.erase(0, nl + 1);
  }
  return true;
}

}  // namespace

std::vector<std::string> mpirun_command(const MpiLaunch& launch, const std::string& precis) {
  const ResourceConfig& rc = launch.resources;
  const std::string& iface = rc.network_interface_name;
  const int ranks = launch.ranks_per_host * int(rc.hosts.size());
  // One host: its ranks are local, started by mpirun itself (no ssh, whatever the hostname).
  std::string host_list;
  for (const std::string& h : rc.hosts)
    host_list += (host_list.empty() ? "" : ",") + (rc.hosts.size() == 1 ? "localhost" : h) + ":" +
                 std::to_string(launch.ranks_per_host);
  std::vector<std::string> cmd = {
      "mpirun", "--host", host_list, "-np", std::to_string(ranks), "--allow-run-as-root",
      // Each rank's lines tagged [job,rank]: MpirunReport reads who failed from them.
      "--tag-output",
      // MPI's own traffic and its out-of-band channel on the interface SageMaker names.
      "-mca", "btl_tcp_if_include", iface, "-mca", "oob_tcp_if_include", iface,
      // The first host starts every orted itself (no tree through the workers' sshd).
      "-mca", "plm_rsh_no_tree_spawn", "1",
      // A rank that exits non-zero ends the job instead of leaving the others waiting.
      "-mca", "orte_abort_on_non_zero_status", "1",
      "-mca", "pml", "ob1", "-mca", "btl", "^openib",
      // precis pins its own threads (dist/host_threads.h); ranks fill hosts in order.
      "--bind-to", "none", "--map-by", "slot",
      // NCCL (GPU collectives) on the same interface.
      "-x", "NCCL_SOCKET_IFNAME=" + iface, "-x", "PATH", "-x", "LD_LIBRARY_PATH"};
  // libfabric's provider where the hosts have EFA, unless set here.
  for (const auto& [name, value] : efa_environment(launch.efa))
    if (!std::getenv(name.c_str())) cmd.insert(cmd.end(), {"-x", name + "=" + value});
  // Passed on when set here: thread counts, NCCL's and libfabric's settings (NCCL_DEBUG,
  // ...), and the test hooks (docs/testing.md). Never SAGEMAKER_BASE_DIR: each host's ranks
  // read that host's own /opt/ml.
  for (char** e = environ; *e; ++e) {
    std::string name(*e, std::strcspn(*e, "="));
    const bool nccl = (name.rfind("NCCL_", 0) == 0 && name != "NCCL_SOCKET_IFNAME") ||
                      name.rfind("FI_", 0) == 0;
    if (name == "OMP_NUM_THREADS" || nccl || name.rfind("PRECIS_TEST_", 0) == 0)
      cmd.insert(cmd.end(), {"-x", name});
  }
  cmd.insert(cmd.end(), {precis, "train"});
  cmd.insert(cmd.end(), launch.train_arguments.begin(), launch.train_arguments.end());
  return cmd;
}

int run_first_host(const MpiLaunch& launch) {
  watch_for_stop();
  const ResourceConfig& rc = launch.resources;
  const std::string self = self_executable();
  StopForwarder stop(self);
  Child sshd;
  Child mpirun;
  std::optional<JobKeyServer> job_key;
  int status = 1;
  std::string reason;
  try {
    start_job_key(rc, job_key);
    if (rc.hosts.size() > 1) sshd = start_sshd();
    wait_until_hosts_resolve(rc.hosts, 300);
    wait_for_ssh(rc, std::chrono::minutes(10));
    const std::vector<std::string> cmd = mpirun_command(launch, self);
    std::fprintf(stderr, "precis: %zu hosts, %d rank%s each: starting mpirun\n", rc.hosts.size(),
                 launch.ranks_per_host, launch.ranks_per_host == 1 ? "" : "s");
    mpirun = start_child(cmd, true);
    MpirunReport report;
    std::string pending;
    bool open = true;
    std::optional<int> ended;
    while (!ended) {
      std::vector<pid_t> roots = this_hosts_orteds();
      roots.push_back(mpirun.pid);
      stop.forward(roots);
      if (open) {
        pollfd p{mpirun.stderr_fd, POLLIN, 0};
        if (::poll(&p, 1, 200) > 0)
          open = pump_lines(mpirun.stderr_fd, pending, [&](std::string_view line) {
            std::fprintf(stderr, "%.*s\n", int(line.size()), line.data());
            report.read_line(line);
          });
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      if (!open) ended = child_exit_status(mpirun.pid);
    }
    ::close(mpirun.stderr_fd);
    status = *ended;
    if (status != 0) {
      if (std::optional<RankFailure> f = report.failure()) {
        const int per_host = std::max(1, launch.ranks_per_host);
        // One host: mpirun ran its ranks itself and names the machine (its hostname, or
        // localhost), which SageMaker knows as current_host.
        std::string host =
            f->host == "localhost" || rc.hosts.size() == 1 ? rc.current_host : f->host;
        if (host.empty() && f->rank >= 0 && size_t(f->rank / per_host) < rc.hosts.size())
          host = rc.hosts[size_t(f->rank / per_host)];
        reason = failure_reason(host, f->rank, f->cause);
      } else {
        reason = rc.current_host + ": mpirun exited with status " + std::to_string(status);
      }
    }
  } catch (const std::exception& e) {
    if (mpirun.pid > 0) stop_child(mpirun.pid, 10);
    std::fprintf(stderr, "precis: error: %s\n", e.what());
    reason = rc.current_host + ": " + e.what();
    status = 1;
  }
  if (status != 0) write_failure_once(launch.paths.failure(), reason);
  announce_job_end(launch, status, reason);
  stop_child(sshd.pid, 5);
  return status;
}

int end_job_before_launch(const MpiLaunch& launch, const std::string& cause) {
  const std::string reason = launch.resources.current_host + ": " + cause;
  write_failure_once(launch.paths.failure(), reason);
  // The other hosts hear it through ssh, which needs the job's key; a host that never answers
  // fails on its own (it sees no MPI processes).
  std::optional<JobKeyServer> job_key;
  try {
    start_job_key(launch.resources, job_key);
    wait_until_hosts_resolve(launch.resources.hosts, 120);
    wait_for_ssh(launch.resources, std::chrono::minutes(2));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis: warning: %s\n", e.what());
  }
  announce_job_end(launch, 1, reason);
  return 1;
}

int run_other_host(const MpiLaunch& launch) {
  watch_for_stop();
  const ResourceConfig& rc = launch.resources;
  StopForwarder stop(self_executable());
  const fs::path word = job_end_file(rc);
  std::error_code ec;
  fs::remove(word, ec);  // a previous job's
  int status = 1;
  std::string reason;
  Child sshd;
  try {
    // The job's key from the first host before sshd serves anyone (job_ssh_key.h).
    if (job_keys()) authorize_job_key(fetch_job_public_key(rc.hosts.front(), job_key_port(), 600));
    sshd = start_sshd();
    const auto start = Clock::now();
    bool seen_orted = false;
    std::optional<Clock::time_point> ranks_ended;
    for (;;) {
      const std::vector<pid_t> orteds = this_hosts_orteds();
      stop.forward(orteds);
      if (fs::exists(word, ec)) {
        std::istringstream in(read_existing_file(word, word.string() + ": cannot read"));
        in >> status;
        std::getline(in >> std::ws, reason, '\0');
        break;
      }
      if (child_exit_status(sshd.pid)) throw Error("sshd ended while the job ran");
      const bool running = !orteds.empty();
      seen_orted = seen_orted || running;
      if (!seen_orted && Clock::now() - start > std::chrono::minutes(15))
        throw Error(rc.hosts.front() + " started no MPI processes here within 15 minutes");
      if (seen_orted && !running && !ranks_ended) ranks_ended = Clock::now();
      if (ranks_ended && Clock::now() - *ranks_ended > std::chrono::duration<double>(kJobEndWait_s))
        throw Error("this host's ranks ended, but " + rc.hosts.front() +
                    " did not say how the job ended");
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis: error: %s\n", e.what());
    reason = rc.current_host + ": " + e.what();
    status = 1;
  }
  if (status != 0) write_failure_once(launch.paths.failure(), reason);
  fs::remove(word, ec);
  stop_child(sshd.pid, 5);
  return status;
}

void record_job_end(const SageMakerPaths& paths, int status, const std::string& cause) {
  const ResourceConfig rc = read_resource_config(paths);
  write_file_atomic(job_end_file(rc), std::to_string(status) + "\n" + cause);
}

}  // namespace precis::platform
