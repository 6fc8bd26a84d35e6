"""tools/hostports.py, the host-forward ports the QEMU tests and the
benchmark tools pick: one process never gets a port twice, never one from
Linux's ephemeral range (where a client's connect() could take it before
QEMU binds it), and never one that is in use."""
import os
import socket
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
from hostports import PORT_FIRST, PORT_LAST, free_port, peek_next  # noqa: E402


def ephemeral_range():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo, hi = f.read().split()
    return int(lo), int(hi)


@pytest.mark.parametrize("kind", [socket.SOCK_STREAM, socket.SOCK_DGRAM])
def test_ports_are_distinct_bindable_and_outside_the_ephemeral_range(kind):
    # 3000 picks: bind(0) repeats a port within that many calls almost surely
    # (about 28,000 ephemeral ports: ~160 expected repeats).
    ports = [free_port(kind) for _ in range(3000)]
    assert len(set(ports)) == len(ports)
    lo, hi = ephemeral_range()
    assert all(PORT_FIRST <= p <= PORT_LAST for p in ports)
    assert not any(lo <= p <= hi for p in ports)
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", ports[-1]))


def test_a_port_in_use_is_skipped():
    # Hold the port the next call would try first: it must be passed over.
    nxt = peek_next()
    with socket.socket() as busy:
        try:
            busy.bind(("127.0.0.1", nxt))
        except OSError:
            pytest.skip("port %d is taken by another program" % nxt)
        got = free_port()
        assert got != nxt
        with socket.socket() as s:
            s.bind(("127.0.0.1", got))
