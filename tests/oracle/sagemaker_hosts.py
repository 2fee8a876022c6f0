"""Two SageMaker hosts on one machine: algo-1 and algo-2, each with its own /opt/ml tree and an
sshd of its own bound to its loopback address (127.0.0.2, 127.0.0.3; scripts/setup.sh puts the
names in /etc/hosts, as SageMaker's DNS would). A throwaway host key in a temporary folder; no
user key: as in the image, the first host makes the job's key at start and the other fetches
and authorises it (platform/job_ssh_key.h), each host's authorized_keys its own file
(PRECIS_AUTHORIZED_KEYS, which its sshd reads), the key served on a free port
(PRECIS_JOB_KEY_PORT). mpirun reaches a host through `ssh_agent`, a wrapper given as
OMPI_MCA_plm_rsh_agent, which picks the host's port, uses the job's key (PRECIS_JOB_SSH_KEY, set
by the first host) and gives the remote command that host's SAGEMAKER_BASE_DIR (on SageMaker
every host simply has its own /opt/ml)."""
import os
import shutil
import socket
import subprocess
import time

from conftest import precis_binary
from sagemaker_support import make_host, sagemaker_env

HOSTS = {"algo-1": "127.0.0.2", "algo-2": "127.0.0.3"}
SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)


def missing_requirement():
    """Why the two-host tests cannot run here, or None."""
    if SSHD is None:
        return "sshd (openssh-server) is not installed: run scripts/setup.sh"
    for name, address in HOSTS.items():
        try:
            if socket.gethostbyname(name) != address:
                return f"{name} resolves to {socket.gethostbyname(name)}, not {address}: run scripts/setup.sh"
        except OSError:
            return f"{name} does not resolve: scripts/setup.sh adds '{address} {name}' to /etc/hosts"
    return None


def free_port(address):
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


class TwoHosts:
    """The fake hosts' trees, keys, sshd configurations and ssh wrapper under `root`."""

    def __init__(self, root, job_dir, hyperparameters):
        self.root = root
        ssh = root / "ssh"
        ssh.mkdir()
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", ssh / "host_key"], check=True)
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
        self.bases, self.sshd_configs, self.authorized_keys, ports = {}, {}, {}, {}
        self.key_port = free_port("0.0.0.0")
        for host, address in HOSTS.items():
            self.bases[host] = make_host(root / host, job_dir, hyperparameters, host=host, hosts=tuple(HOSTS),
                                         interface="lo")
            ports[host] = free_port(address)
            self.authorized_keys[host] = ssh / f"authorized_keys_{host}"
            config = ssh / f"sshd_{host}"
            config.write_text(
                f"ListenAddress {address}:{ports[host]}\nHostKey {ssh / 'host_key'}\n"
                f"AuthorizedKeysFile {self.authorized_keys[host]}\nPidFile none\nUsePAM no\nStrictModes no\n"
                "PermitRootLogin yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n")
            self.sshd_configs[host] = config
        cases = "\n".join(f"  {h}) port={ports[h]}; base={self.bases[h]} ;;" for h in HOSTS)
        self.agent = ssh / "ssh_agent"
        self.agent.write_text(
            "#!/bin/bash\n# mpirun's remote shell for the fake hosts: AGENT HOST COMMAND...\n"
            "host=$1; shift\ncase $host in\n" + cases + "\n  *) echo \"unknown host $host\" >&2; exit 255 ;;\nesac\n"
            "exec ssh -q -i \"$PRECIS_JOB_SSH_KEY\" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
            "-o BatchMode=yes -o LogLevel=ERROR -p \"$port\" \"$host\" "
            "\"export SAGEMAKER_BASE_DIR=$base;\" \"$@\"\n")
        self.agent.chmod(0o755)

    def env(self, host, **extra):
        return sagemaker_env(self.bases[host], OMPI_MCA_plm_rsh_agent=str(self.agent),
                             PRECIS_SSHD_COMMAND=f"{SSHD} -D -e -f {self.sshd_configs[host]}",
                             PRECIS_AUTHORIZED_KEYS=str(self.authorized_keys[host]),
                             PRECIS_JOB_KEY_PORT=str(self.key_port), **extra)

    def start(self, **extra):
        """Both hosts' `precis train` (SageMaker runs the image with `train` on each); stderr to
        root/<host>.txt. Returns {host: Popen}."""
        procs = {}
        for host in HOSTS:
            with open(self.root / f"{host}.txt", "w") as err:
                procs[host] = subprocess.Popen([precis_binary(), "train"], stdout=subprocess.DEVNULL, stderr=err,
                                               env=self.env(host, **extra), start_new_session=True)
        return procs

    def kill_leftovers(self):
        """SIGKILL to every process that runs in one of the fake hosts' trees (by its
        SAGEMAKER_BASE_DIR, or the hosts' sshd configurations on its command line)."""
        bases = {str(b).encode() for b in self.bases.values()}
        configs = [str(c).encode() for c in self.sshd_configs.values()]
        for pid, env in processes_with_environment():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            if env.get(b"SAGEMAKER_BASE_DIR") in bases or any(c in cmdline for c in configs):
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass

    def stderr(self, host):
        return (self.root / f"{host}.txt").read_text()

    def wait(self, procs, timeout):
        """{host: exit status}; kills what is still running after `timeout` seconds (and fails)."""
        deadline = time.monotonic() + timeout
        status = {}
        for host, proc in procs.items():
            try:
                status[host] = proc.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                for p in procs.values():
                    with_group_killed(p)
                raise AssertionError(f"{host} still running after {timeout} s:\n" +
                                     "\n".join(f"--- {h}\n{self.stderr(h)}" for h in HOSTS))
        return status


def processes_with_environment():
    """(pid, {name: value}) of every process whose environment can be read."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    yield int(entry), dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
            except OSError:
                continue


def process_name(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def with_group_killed(proc):
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass
    proc.wait()
