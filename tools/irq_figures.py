"""The figures of the interrupt-and-idle goals, shared by tools/bench-irq
and tools/bench-vs-linux (both import this file from tools/):

  echo_series   sequential UDP echoes, one in flight, timed on the host:
                back to back (the busy link) or one per gap (the quiet
                link: the guest has gone idle before each datagram);
  echo_warm_up  back-to-back echoes for a while, not timed: what a busy
                link figure sends first (see its comment);
  idle_cpu      the host CPU a process (QEMU) uses over a window with no
                traffic, as a percentage of one core, counted two ways;
  thread_groups the host CPU QEMU's vCPU threads, its main loop and its
                other threads used over a window (thread_seconds readings);
  host_floor    the same quiet and busy echoes between two host processes
                over loopback, with no QEMU: what this host's own wake-ups
                cost, the floor under every guest's figure.

Measurement helpers only: nothing here asserts a speed.
"""
import os
import random
import socket
import statistics
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def children(pid):
    """The pids whose parent is pid (one scan of /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        # the name field may hold spaces and parentheses: split after its end
        if int(st.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(d))
    return out


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def qemu_pid(parent, timeout=10.0):
    """The qemu-system process below parent (tools/qemu-run, or a wrapper
    around it such as `ip netns exec`), or None if none appears within
    timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        todo, seen = [parent], set()
        while todo:
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            if p != parent and comm(p).startswith("qemu-system"):
                return p
            todo += children(p)
        if time.monotonic() > end:
            return None
        time.sleep(0.1)


def cpu_seconds(pid):
    """utime + stime of the whole process (every thread, also ones that
    ended), in seconds. The kernel charges them a clock tick at a time
    (1/CLK_TCK s, 10 ms here), by sampling: over a 10 s window one tick
    is 0.1 % of a core."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_seconds(pid):
    """{tid: (name, on-CPU seconds)} of pid's live threads, from the
    scheduler's exact count (/proc/PID/task/*/schedstat, first field, ns)
    and each thread's comm (QEMU names its vCPU threads "CPU n/TCG")."""
    out = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                ns = int(f.read().split()[0])
            with open("/proc/%d/task/%s/comm" % (pid, t)) as f:
                name = f.read().strip()
        except (OSError, ValueError, IndexError):
            continue
        out[int(t)] = (name, ns / 1e9)
    return out


def sched_seconds(pid):
    """The scheduler's exact on-CPU time summed over the process's live
    threads, in seconds (thread_seconds). A thread that ends inside the
    window takes its time with it, which QEMU's long-lived threads (main
    loop, vCPU, RCU) do not."""
    return sum(s for _, s in thread_seconds(pid).values())


def thread_groups(before, after):
    """What each kind of thread used between two thread_seconds()
    readings, in seconds: {"vcpus": every "CPU n/..." thread (QEMU names
    them so with -name debug-threads=on), "vcpu_max": the busiest of
    them, "main": the main loop (QEMU's I/O thread, named after the
    executable), "other": the rest (RCU, worker pools)}. A thread absent
    from `before` started inside the window and counts whole; one absent
    from `after` ended and its time is lost (the caller's window is
    short)."""
    groups = {"vcpus": 0.0, "vcpu_max": 0.0, "main": 0.0, "other": 0.0}
    for tid, (name, secs) in after.items():
        used = secs - before.get(tid, (name, 0.0))[1]
        if name.startswith("CPU "):
            groups["vcpus"] += used
            groups["vcpu_max"] = max(groups["vcpu_max"], used)
        elif name.startswith("qemu-system"):
            groups["main"] += used
        else:
            groups["other"] += used
    return groups


def idle_cpu(pid, seconds):
    """The host CPU pid uses over the next `seconds`, as % of one core:
    {"stat_pct": utime+stime, "sched_pct": schedstat, "window_s": ...}."""
    c0, s0, t0 = cpu_seconds(pid), sched_seconds(pid), time.monotonic()
    time.sleep(seconds)
    c1, s1, t1 = cpu_seconds(pid), sched_seconds(pid), time.monotonic()
    return {"stat_pct": 100 * (c1 - c0) / (t1 - t0), "sched_pct": 100 * (s1 - s0) / (t1 - t0),
            "window_s": t1 - t0}


def family(addr):
    """The socket family of (host, port): IPv6 for a literal with a colon."""
    return socket.AF_INET6 if ":" in addr[0] else socket.AF_INET


# Back-to-back echoes to a guest that was idle are slow for a while: on
# this 2-core host, 1.5 s after the last traffic, 73-84 of the next 1500
# echoes to our e1000 guest took over 300 us (up to 1 ms), all in the
# first 60-140 ms, then none; with QEMU's vCPU thread pinned to a core of
# its own (taskset) 1-2 did. The host scheduler keeps a vCPU thread that
# starts spinning on the core of QEMU's main loop or of the client until
# load balancing moves it: a figure of the host's placement, not of the
# guest, and it set the p99 of 1000 echoes. So a busy-link figure first
# runs this long unmeasured; what an idle guest costs is the quiet link's.
WARM_UP_S = 0.3


def echo_warm_up(addr, seconds=WARM_UP_S, timeout=1.0, tag=b"warm-up"):
    """Sequential UDP echoes to addr for seconds, unmeasured. Returns how
    many were answered."""
    answered, i = 0, 0
    end = time.monotonic() + seconds
    with socket.socket(family(addr), socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.connect(addr)
        while time.monotonic() < end:
            msg = tag + b" %08d" % i
            i += 1
            try:
                s.send(msg)
                while s.recv(2048) != msg:
                    pass
                answered += 1
            except (socket.timeout, ConnectionRefusedError):
                pass
    return answered


def echo_series(addr, n, gap_s=None, jitter_s=0.0, timeout=1.0, tag=b"echo"):
    """n sequential UDP echoes to addr (host, port), one in flight: back to
    back, or gap_s (plus a uniform 0..jitter_s, so the sends do not lock to
    a guest's timer tick) after each answer or timeout. Returns (round
    trips in µs in send order, lost). A late answer to an earlier datagram
    that timed out is skipped, not taken for the current one."""
    rtts, lost = [], 0
    with socket.socket(family(addr), socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.connect(addr)
        for i in range(n):
            if gap_s:
                time.sleep(gap_s + random.uniform(0, jitter_s))
            msg = tag + b" %08d" % i
            t0 = time.perf_counter_ns()
            s.send(msg)
            try:
                while s.recv(2048) != msg:
                    pass
                rtts.append((time.perf_counter_ns() - t0) / 1000)
            except socket.timeout:
                lost += 1
            except ConnectionRefusedError:  # ICMP port unreachable: lost
                lost += 1
    return rtts, lost


def p99(rtts):
    """The 99th percentile as bench-vs-linux has always taken it: the
    sorted sample at index int(n * 0.99)."""
    v = sorted(rtts)
    return v[min(len(v) - 1, int(len(v) * 0.99))]


def summary(rtts, lost):
    """median, p99, max (µs), n and lost of one series; None figures when
    nothing was answered."""
    if not rtts:
        return {"median": None, "p99": None, "max": None, "n": 0, "lost": lost}
    return {"median": statistics.median(rtts), "p99": p99(rtts), "max": max(rtts),
            "n": len(rtts), "lost": lost}


# The floor's server: a second host process, blocked in recvfrom between
# datagrams, as a guest's echo server is. It prints its port, then serves
# until killed.
ECHO_SERVER = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data, peer)
"""


class HostEchoServer:
    """A UDP echo server in its own process on 127.0.0.1 (context manager;
    .addr is its (host, port))."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", ECHO_SERVER],
                                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        if not line.strip().isdigit():
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("host echo server did not start")
        self.addr = ("127.0.0.1", int(line))
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


def host_floor(quiet_n, busy_n, gap_s=0.5, jitter_s=0.01):
    """Quiet and busy echo between this process and a HostEchoServer over
    loopback: {"quiet": summary, "busy": summary}."""
    with HostEchoServer() as srv:
        echo_series(srv.addr, 20, tag=b"warm")  # both processes' first-use costs
        q = summary(*echo_series(srv.addr, quiet_n, gap_s, jitter_s, tag=b"floor-quiet"))
        echo_warm_up(srv.addr)  # as every guest's busy figure
        b = summary(*echo_series(srv.addr, busy_n, tag=b"floor-busy"))
    return {"quiet": q, "busy": b}
