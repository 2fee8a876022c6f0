"""Interleaved side-by-side timing: each side is a long-lived worker process that loads its
model once, then runs one measured unit of work (a training step, a generate() call) per
request line and answers with one JSON line. The drivers alternate the two sides request by
request, so both see the same background load (the development machine is shared), and
compare medians.
"""
import json
import statistics
import subprocess


class Worker:
    """A child process speaking the line protocol: a {"ready": ...} line first, then one JSON
    answer per request line written to its stdin."""

    def __init__(self, name, argv, env):
        self.name = name
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.ready = self._read()

    def request(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self):
        """Ends the worker; returns its last line (a summary) when it prints one."""
        self.process.stdin.close()
        tail = self.process.stdout.read().strip()
        if self.process.wait() != 0:
            raise RuntimeError(f"{self.name} exited with status {self.process.returncode}")
        return json.loads(tail.splitlines()[-1]) if tail else {}

    def _read(self):
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.name} ended early (status {self.process.wait()}); see its stderr above")
        return json.loads(line)


def alternate(workers, round_index):
    """The order in which to ask the workers in a round: reversed every other round, so that
    neither side always runs right after the other."""
    return workers if round_index % 2 == 0 else list(reversed(workers))


def median(values):
    return statistics.median(values)
