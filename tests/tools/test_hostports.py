"""tools/hostports.py, the host-forward ports the QEMU tests and the
benchmark tools pick: one process never gets a port twice, never one from
Linux's ephemeral range (where a client's connect() could take it before
QEMU binds it), and never one that is in use."""
import os
import socket
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
from hostports import PORT_FIRST, PORT_LAST, free_port, peek_next, worker_range  # noqa: E402


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


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_xdist_workers_walk_disjoint_slices_that_cover_the_range(count):
    slices = [worker_range(w, count, 20000, 32767) for w in range(count)]
    covered = [p for lo, hi in slices for p in range(lo, hi + 1)]
    assert sorted(covered) == list(range(20000, 32768))  # each port once
    assert all(hi - lo + 1 >= 12768 // count for lo, hi in slices)


def test_a_worker_picks_only_from_its_own_slice():
    env = dict(os.environ, PYTEST_XDIST_WORKER="gw1", PYTEST_XDIST_WORKER_COUNT="3")
    code = ("import socket, hostports as h; "
            "print(h.PORT_FIRST, h.PORT_LAST, *[h.free_port() for _ in range(50)])")
    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "tools")
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, text=True,
                         capture_output=True, cwd=tools).stdout.split()
    lo, hi, *ports = map(int, out)
    assert (lo, hi) == worker_range(1, 3)
    assert all(lo <= p <= hi for p in ports)
