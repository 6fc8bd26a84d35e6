"""What one HTTP request costs the guest, native against stock allocation,
counted, never timed: a 2x gap between the modes fails.

Each mode boots under QEMU -icount shift=0, where one guest instruction
is one nanosecond of guest time, so /stats.json's poll.busy_ns (time in
poll rounds that did work: driver, lwIP, the server, the allocators) is a
count of guest instructions. The test makes a fixed number of requests,
with a new connection each (HTTP/1.0) and on one keep-alive connection,
and reads per request:

  - guest instructions in busy poll rounds;
  - allocator operations: lwIP heap allocations (mem_malloc: lwIP's heap
    or kmalloc), pool allocations (memp_malloc: lwIP's static pools or
    our qmempools; stock's received-frame copies are PBUF_POOL pool
    allocations) and native's zero-copy RX pbuf structs (rx_wrap).

The instruction counts vary by about 15% from run to run (how the host
delivers frames decides how many poll rounds a request takes, and each
round has a fixed cost); the allocation counts not at all. Measured when
this was written (work per request, native/stock): new connection 0.89,
keep-alive 0.89 (tools/insn-profile); on e1000, in this test's own
figures on 2026-12-02, new connection 17,337 against 18,382 instructions
(0.94) and keep-alive 5,540 against 5,772 (0.96), 12 and 3 allocations in
both modes. A factor of 2 is far outside the
noise: it is a regression in one mode's path (as the native-mode stall
was, or an allocation per frame too many).
"""
import json
import socket

import pytest

from test_net import NetVM

REQUESTS = 200
WARMUP = 20
GAP = 2.0


def get_new_connection(port):
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                return data
            data += b


class KeepAlive:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.buf = b""

    def get(self):
        self.s.sendall(b"GET / HTTP/1.1\r\nHost: guest\r\n\r\n")
        while b"\r\n\r\n" not in self.buf:
            b = self.s.recv(65536)
            assert b, "the server closed a keep-alive connection"
            self.buf += b
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        n = int([l.split(b": ")[1] for l in head.split(b"\r\n")
                 if l.lower().startswith(b"content-length:")][0])
        while len(rest) < n:
            rest += self.s.recv(65536)
        self.buf = rest[n:]
        return head + b"\r\n\r\n" + rest[:n]


def counters(st):
    nm = st["net_mem"]
    return {"instructions": st["poll"]["busy_ns"],
            "allocations": nm["heap_alloc"] + nm["memp_alloc"] + nm["rx_wrap"]}


def per_request(vm, run):
    """Counter deltas per request over REQUESTS calls of run(), less what
    reading /stats.json itself costs (measured as two reads in a row)."""
    a, b = counters(vm.stats()), counters(vm.stats())
    stats_cost = {k: b[k] - a[k] for k in a}
    before = counters(vm.stats())
    for _ in range(REQUESTS):
        answer = run()
        assert b" 200 OK\r\n" in answer and answer.endswith(b"</html>\n"), answer[-80:]
    after = counters(vm.stats())
    return {k: (after[k] - before[k] - stats_cost[k]) / REQUESTS for k in before}


def measure(qemu, mode, nic):
    vm = NetVM(qemu, mode, nic=nic, extra=("-icount", "shift=0"))
    vm.stats()
    for _ in range(WARMUP):
        get_new_connection(vm.http)
    new = per_request(vm, lambda: get_new_connection(vm.http))
    ka = KeepAlive(vm.http)
    ka.get()
    kept = per_request(vm, ka.get)
    ka.s.close()
    return {"new connection": new, "keep-alive": kept}


@pytest.fixture(scope="module")
def figures():
    return {}


NICS = ["virtio", "e1000"]


@pytest.mark.parametrize("nic", NICS)
@pytest.mark.parametrize("mode", ["stock", "native"])
def test_measure_each_mode(qemu, figures, mode, nic):
    figures[nic, mode] = measure(qemu, mode, nic)
    print(nic, mode, json.dumps(figures[nic, mode]))
    for kind, f in figures[nic, mode].items():
        # Sanity: a request did real work and allocated something.
        assert f["instructions"] > 1000 and f["allocations"] >= 1, (nic, mode, kind, f)


@pytest.mark.parametrize("nic", NICS)
@pytest.mark.parametrize("kind", ["new connection", "keep-alive"])
@pytest.mark.parametrize("what", ["instructions", "allocations"])
def test_native_costs_less_than_twice_stock_per_request(figures, nic, kind, what):
    if (nic, "stock") not in figures or (nic, "native") not in figures:
        pytest.fail("the measurements did not run (test_measure_each_mode)")
    native = figures[nic, "native"][kind][what]
    stock = figures[nic, "stock"][kind][what]
    print("%s, %s, %s per request: native %.1f, stock %.1f (native/stock %.2f)"
          % (nic, kind, what, native, stock, native / stock))
    assert native < GAP * stock, (nic, kind, what, figures)


# Echoes per measurement. What one /stats.json read costs (its TCP
# segments, and in stock mode a pool pbuf per ACK the host sends) moves by
# up to ten operations between reads, with the host's ACK timing: over 200
# echoes that once read stock e1000 as 0.95 per echo. Over 1000 it is 0.01.
ECHOES = 1000


def echo_allocations(vm):
    """Allocator operations per UDP echo (heap and pool allocations in
    either mode), less what reading /stats.json costs."""
    def count():
        nm = vm.stats()["net_mem"]
        return nm["heap_alloc"] + nm["memp_alloc"]

    a, b = count(), count()
    stats_cost = b - a
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(10)
        s.sendto(b"warm", ("127.0.0.1", vm.uecho))
        s.recvfrom(2048)
        before = count()
        for i in range(ECHOES):
            msg = b"echo %d " % i + b"x" * 100
            s.sendto(msg, ("127.0.0.1", vm.uecho))
            assert s.recvfrom(2048)[0] == msg
    return (count() - before - stats_cost) / ECHOES


@pytest.mark.parametrize("nic", ["virtio", "e1000"])
def test_a_native_udp_echo_allocates_nothing(qemu, nic):
    """The native RX pbuf keeps its struct in the frame's headroom and is
    a PBUF_RAM custom pbuf, so the echo reply grows its headers in the
    received frame: no allocation per echo. As a PBUF_REF pbuf (headers
    cannot grow) each reply allocated a header pbuf from the heap: 1.0 per
    echo. Stock mode copies each frame into a PBUF_POOL pbuf: 1.0."""
    per_echo = {}
    for mode in ("native", "stock"):
        vm = NetVM(qemu, mode, nic=nic)
        per_echo[mode] = echo_allocations(vm)
        vm.vm.kill()
    print(nic, per_echo)
    assert per_echo["native"] < 0.05, per_echo
    assert 0.95 < per_echo["stock"] < 1.5, per_echo
