"""Starting `precis` alone or under mpirun, and acting on it where the trainer's test hook
PRECIS_TEST_STOP_AT (src/precis/train/test_stop.h) has stopped it: the process states in
/proc, the pid of each rank, and the wait until the processes have stopped there."""
import contextlib
import os
import shutil
import signal
import time

from conftest import precis_binary

MPIRUN = shutil.which("mpirun")
# One OpenMP thread per process: ranks share the machine's cores, and results must not depend
# on the thread count anyway.
ENV = dict(os.environ, OMP_NUM_THREADS="1")
# Under AddressSanitizer (with full unwinding for Open MPI) a rank starts and steps many times
# slower; the deadline is for a run that never reaches its stop, not a measure of speed.
STOP_DEADLINE_S = 600 if os.environ.get("PRECIS_SANITIZER") else 180


def launch(ranks, *args, export=(), binary="precis"):
    """The command line: `binary` (precis, or precis_emulated) alone for one rank, under mpirun
    for more; mpirun passes OMP_NUM_THREADS and the variables named in `export` on to every rank
    (a single process gets the caller's environment as it is)."""
    cmd = [precis_binary(binary), *map(str, args)]
    if ranks > 1:
        passed = [arg for name in ("OMP_NUM_THREADS", *export) for arg in ("-x", name)]
        cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *passed, *cmd]
    return cmd


def process_state(pid):
    """The state letter of /proc/PID/stat ("T": stopped, "Z": exited, not yet reaped), or None
    once the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def rank_pids(mpirun_pid):
    """{rank: pid} of the processes mpirun started (those it has started so far)."""
    pids = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid != mpirun_pid:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
            pids[int(env[b"OMPI_COMM_WORLD_RANK"])] = int(pid)
        except (OSError, KeyError, IndexError, ValueError):
            continue  # gone meanwhile, or not a rank
    return pids


def wait_stopped(proc, point, ranks=(), stderr_file=None, deadline_s=STOP_DEADLINE_S):
    """Waits until the test hook has stopped the run `proc` at `point`: the process itself
    (no ranks given), or each rank listed of an mpirun `proc`. Returns {rank: pid} of those
    ranks. Fails, with the run's stderr (from `stderr_file`, or the pipe once the run has
    ended), when the run ends first or has not stopped there after `deadline_s` seconds."""
    deadline = time.monotonic() + deadline_s
    while True:
        pids = rank_pids(proc.pid) if ranks else {}
        if ranks:
            states = {f"rank {r}": process_state(pids[r]) if r in pids else "not started" for r in ranks}
        else:
            states = {"precis": process_state(proc.pid)}
        if all(state == "T" for state in states.values()):
            return {rank: pids[rank] for rank in ranks}
        if proc.poll() is not None:
            raise AssertionError(f"the run ended (exit {proc.returncode}) before it stopped at {point}:\n"
                                 f"{_stderr(proc, stderr_file)}")
        if time.monotonic() > deadline:
            for pid in pids.values():  # ranks a stop of their own would leave behind mpirun
                if pid != proc.pid:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            proc.kill()
            proc.wait()
            raise AssertionError(f"the run had not stopped at {point} after {deadline_s} s (states {states}); "
                                 f"killed:\n{_stderr(proc, stderr_file)}")
        time.sleep(0.02)


def _stderr(proc, stderr_file):
    if stderr_file is not None:
        return stderr_file.read_text()
    if proc.stderr is not None:
        return proc.stderr.read()
    return "(stderr not captured)"
