"""bench-vs-linux's two tail-latency rows (tools/bench-vs-linux imports
this module; the figures are defined here, the script only runs them):

  cold_udp    the first --cold (1000) sequential UDP echoes after the
              guest's ready line, on the fresh guest and before any other
              figure: no warm-up. Median and p99 µs. What a guest pays for
              its first traffic (first allocations, pool fills, the first
              ARP, interrupt/poll transitions) lands here, and with it the
              host's own cost of a vCPU that starts working after idle.
  loaded_udp  --loaded (1000) sequential UDP echoes, after the usual
              warm-up, while LOAD competes for the host's cores: one
              process per host core spinning in pure Python (no system
              calls, never sleeps), at the default priority, started
              before the warm-up and killed after the last echo. Median
              and p99 µs. A guest that busy-polls takes a core that
              QEMU's I/O thread or the client needs; here the spinners
              take them too.

Both count lost echoes (1 s timeout each) beside the figure.
"""
import os
import subprocess
import sys
import time

import irq_figures
from qemu_guest import GuestFailed

# One of these per host core: a busy loop with no system call, so it is
# always runnable and the host scheduler shares every core with it.
SPINNER = "while True:\n    pass\n"


def load_description(n=None):
    """The competing load, in words, for the report."""
    n = n or os.cpu_count()
    return ("%d busy process%s (one per host core: `python3 -c 'while True: pass'`, "
            "nice 0) started before the warm-up and killed after the last echo"
            % (n, "" if n == 1 else "es"))


class CpuLoad:
    """Context manager: n (default: one per host core) spinner processes
    for its duration. .cpu_s after exit: the host CPU seconds they got,
    proof that the load ran."""

    def __init__(self, n=None):
        self.n = n or os.cpu_count()
        self.procs, self.cpu_s = [], 0.0

    def __enter__(self):
        for _ in range(self.n):
            self.procs.append(subprocess.Popen([sys.executable, "-c", SPINNER],
                                               stdin=subprocess.DEVNULL))
        time.sleep(0.1)  # let them start spinning before anything is measured
        return self

    def __exit__(self, *exc):
        self.cpu_s = sum(irq_figures.cpu_seconds(p.pid) for p in self.procs
                         if p.poll() is None)
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def series(g, count, tag):
    """count sequential echoes to g's UDP echo port (1 s timeout each):
    irq_figures.summary of them; GuestFailed when under half came back."""
    rtts, lost = irq_figures.echo_series(g.address("uecho"), count, timeout=1.0, tag=tag)
    if len(rtts) < count // 2:
        raise GuestFailed("UDP echo (%s): %d of %d answered" % (tag.decode(), len(rtts), count))
    return irq_figures.summary(rtts, lost)


def cold_udp(g, a):
    """The first a.cold echoes to a freshly booted guest, no warm-up."""
    s = series(g, a.cold, b"vs-cold")
    return {"cold_rtt_median_us": s["median"], "cold_rtt_p99_us": s["p99"],
            "cold_lost": s["lost"]}


def loaded_udp(g, a):
    """a.loaded echoes after the warm-up, with a CpuLoad running."""
    with CpuLoad() as load:
        irq_figures.echo_warm_up(g.address("uecho"))
        s = series(g, a.loaded, b"vs-loaded")
    return {"loaded_rtt_median_us": s["median"], "loaded_rtt_p99_us": s["p99"],
            "loaded_lost": s["lost"], "loaded_load_cpu_s": load.cpu_s}


def add_arguments(p):
    """The rows' options on bench-vs-linux's parser."""
    p.add_argument("--cold", type=int, default=1000,
                   help="cold-row echoes: the first N after boot, no warm-up")
    p.add_argument("--loaded", type=int, default=1000,
                   help="loaded-row echoes, with one busy process per host core")


# Rows for bench-vs-linux's table, as its ROWS: (label, Linux key, our
# key, unit, better, goal).
ROWS = [
    ("UDP echo RTT median, cold (first echoes after boot, no warm-up)", "cold_rtt_median_us",
     "cold_rtt_median_us", "µs", "lower", None),
    ("UDP echo RTT p99, cold", "cold_rtt_p99_us", "cold_rtt_p99_us", "µs", "lower",
     (1.0, "le")),
    ("cold echoes lost", "cold_lost", "cold_lost", "lost", "lower", None),
    ("UDP echo RTT median, host loaded (a busy process per core)", "loaded_rtt_median_us",
     "loaded_rtt_median_us", "µs", "lower", None),
    ("UDP echo RTT p99, host loaded", "loaded_rtt_p99_us", "loaded_rtt_p99_us", "µs", "lower",
     (1.0, "le")),
    ("loaded echoes lost", "loaded_lost", "loaded_lost", "lost", "lower", None),
]

# bench-vs-linux's KEY_STEP entries: the --skip name of each figure.
KEY_STEP = {k: step for step, keys in (
    ("cold_udp", ("cold_rtt_median_us", "cold_rtt_p99_us", "cold_lost")),
    ("loaded_udp", ("loaded_rtt_median_us", "loaded_rtt_p99_us", "loaded_lost")))
    for k in keys}
