"""Host ports for QEMU's user-net forwards (hostfwd=), for the QEMU tests
and the benchmark tools.

Ports come from below Linux's ephemeral range (32768-60999 by default),
walked from a random start, and no port is handed out twice in one process.
bind(0) is not used: it may return the same port on two calls in a row (a
CI run got 49921 for both the HTTP and the iperf forward of one guest, and
QEMU refused to start), and a port from the ephemeral range can be taken by
a client's connect() between the pick and QEMU's bind."""
import random
import socket

PORT_FIRST, PORT_LAST = 20000, 32767
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
