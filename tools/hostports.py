"""Host ports for QEMU's user-net forwards (hostfwd=), for the QEMU tests
and the benchmark tools.

Ports come from below Linux's ephemeral range (32768-60999 by default),
walked from a random start, and no port is handed out twice in one process.
bind(0) is not used: it may return the same port on two calls in a row (a
CI run got 49921 for both the HTTP and the iperf forward of one guest, and
QEMU refused to start), and a port from the ephemeral range can be taken by
a client's connect() between the pick and QEMU's bind.

Under pytest-xdist (`make test` runs the QEMU tests in several worker
processes) each worker walks its own slice of the range, so two workers
never pick the same port in the moment between the pick and QEMU's bind:
"no port twice" holds across the whole run, not only within a process."""
import os
import random
import socket

PORT_FIRST, PORT_LAST = 20000, 32767


def worker_range(worker, count, first=PORT_FIRST, last=PORT_LAST):
    """The slice [lo, hi] of first..last that worker number worker (0-based)
    of count walks; the slices are disjoint and cover the range."""
    if count <= 1:
        return first, last
    size = (last - first + 1) // count
    lo = first + worker * size
    hi = last if worker == count - 1 else lo + size - 1
    return lo, hi


def _this_worker():
    """(worker, count) of this pytest-xdist worker ("gw2" of 4: (2, 4)), or
    (0, 1) outside xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if name.startswith("gw") and name[2:].isdigit() and count.isdigit():
        return int(name[2:]), int(count)
    return 0, 1


PORT_FIRST, PORT_LAST = worker_range(*_this_worker())
_given = set()
_next = [random.randint(PORT_FIRST, PORT_LAST)]


def peek_next():
    """The port the next free_port() call tries first."""
    return _next[0]


def free_port(kind=socket.SOCK_STREAM):
    """A port on 127.0.0.1 (TCP, or UDP with kind=socket.SOCK_DGRAM) that was
    free a moment ago and that no earlier call in this process returned."""
    for _ in range(PORT_LAST - PORT_FIRST + 1):
        port = _next[0]
        _next[0] = PORT_FIRST if port == PORT_LAST else port + 1
        if port in _given:
            continue
        with socket.socket(socket.AF_INET, kind) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise RuntimeError("hostports: no free port left in %d-%d" % (PORT_FIRST, PORT_LAST))


def free_udp_port():
    return free_port(socket.SOCK_DGRAM)
