"""Out-of-order TCP data cannot take the guest off the network.

A segment that arrives past a hole in a connection's sequence space waits
on the connection's out-of-order queue, in the receive buffer it came in,
until the hole is filled; the guest has PBUF_POOL_SIZE (512) such buffers
in either allocator mode. tests/qemu/tcp_ooseq_attack.py opens real
connections to the echo port from the tap's namespace and, every 0.5 s,
sends each of them a burst of one-byte segments two bytes past the next
byte the guest expects, a hole it never fills. While it runs, ping, HTTP,
TCP and UDP echo must keep answering (tests/qemu/netns_probe.py, round
after round, each round within PROBE_WITHIN s), and /stats.json must show
out-of-order data dropped (net/tcp_ooseq.c, docs/net-memory.md):

- one connection, 600 segments a burst: its queue keeps at most the bound
  (tcp_ooseq.max_pbufs) and lwIP trims the rest (tcp_ooseq.trims), so the
  receive buffers never all get held (net_mem.rx_limit_hits in native
  mode, lwip.memp.PBUF_POOL.limit_hits in stock mode, unchanged) and
  nothing is reclaimed. Without the bound, native mode held all 512
  buffers and stopped answering 2 s into the attack;
- 24 connections, 40 segments each: each within its bound, together more
  than the 512 buffers; when they run out, out-of-order queues are
  dropped (tcp_ooseq.reclaims), the connection heard from least recently
  first, and every frame still gets a buffer. Without the reclaim the
  guest stopped answering, in stock mode too.

Before the attack a quiet connection queues QUIET segments past its own
hole and then sends nothing; after the second burst it fills the hole and
sees how far the guest acknowledges. Its queue must still be there after
one connection's attack (nothing reclaimed) and gone after the 24
connections' (the oldest queue went first).
"""
import json
import os
import select
import subprocess
import time

import pytest

from netns_tap import PYTHON, GuestError, TapNet

HERE = os.path.dirname(os.path.abspath(__file__))
ATTACK_SECS = 20
PROBE_WITHIN = 10  # s each service gets to answer in one round
QUIET = 8  # segments past a hole a quiet connection queues before the attack


@pytest.fixture
def tap_net():
    reason = TapNet.unavailable()
    if reason:
        pytest.skip(reason)
    with TapNet() as net:
        yield net


def start_attack(g, connections, segments, secs=ATTACK_SECS):
    """tcp_ooseq_attack.py in the namespace, with a quiet connection that
    queues QUIET segments first; returns (process, its first line: the
    connections it opened)."""
    p = subprocess.Popen(["ip", "netns", "exec", g.net.ns, PYTHON,
                          os.path.join(HERE, "tcp_ooseq_attack.py"), "--iface", "tap0",
                          "--guest-ip", g.ip, "--guest-mac", g.mac,
                          "--connections", str(connections), "--segments", str(segments),
                          "--secs", str(secs), "--quiet", str(QUIET)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not select.select([p.stdout], [], [], 60)[0]:
        p.kill()
        pytest.fail("the attack opened no connection within 60 s\n" + g.describe(),
                    pytrace=False)
    line = p.stdout.readline()
    try:
        return p, json.loads(line)
    except ValueError:
        p.kill()
        pytest.fail("the attack failed: %r %r" % (line, p.stderr.read()[-2000:]),
                    pytrace=False)


def finish_attack(p):
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    lines = out.decode().strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        pytest.fail("the attack ended without its summary: %r %r" % (out[-500:], err[-2000:]),
                    pytrace=False)


def probe_rounds(g, p):
    """netns_probe rounds while the attack runs, at least two."""
    rounds = []
    start = time.monotonic()
    while p.poll() is None or len(rounds) < 2:
        r = g.probe(PROBE_WITHIN, stats=False)
        r["at"] = round(time.monotonic() - start, 1)
        rounds.append(r)
    return rounds


def answered(rounds):
    """Per service, how many rounds it answered, and the first error."""
    out = {}
    for name in ("ping", "http", "tcp_echo", "udp_echo"):
        ok = sum(1 for r in rounds if name not in r["errors"])
        errs = [r["errors"][name] for r in rounds if name in r["errors"]]
        out[name] = "%d of %d%s" % (ok, len(rounds), " (%s)" % errs[0] if errs else "")
    out["rounds"] = ["%s s: %s" % (r["at"], "ok" if r["ok"] else "no " + ",".join(r["errors"]))
                     for r in rounds]
    return out


def rx_limit_hits(st, alloc):
    """Times a received frame found every receive buffer held."""
    if alloc == "native":
        return st["net_mem"]["rx_limit_hits"]
    return st["lwip"]["memp"]["PBUF_POOL"]["limit_hits"]


def attack_and_probe(tap_net, tmp_path, nic, alloc, connections, segments):
    g = tap_net.start_guest(str(tmp_path), nic=nic, alloc=alloc)
    try:
        g.wait_ready()
        before = g.probe(30, stats=True)
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    assert before["ok"], "no answer before the attack: %s\n%s" % (before, g.describe())
    p, opened = start_attack(g, connections, segments)
    assert opened["established"] == connections + 1, (opened, g.describe())
    rounds = probe_rounds(g, p)
    summary = finish_attack(p)
    if not all(r["ok"] for r in rounds) or not g.alive():
        pytest.fail("the guest stopped answering during the attack (%d connection(s), "
                    "%d segments past a hole every 0.5 s): %s; attack %s\n%s"
                    % (connections, segments, answered(rounds), summary, g.describe()),
                    pytrace=False)
    after = g.stats()
    log = g.log()
    assert "panic" not in log and "exception:" not in log, g.describe()
    assert "tcp_ooseq" in after, "/stats.json has no tcp_ooseq section: %s" % sorted(after)
    print("ooseq %s/%s, %d connection(s): %d probe rounds answered, attack %s, tcp_ooseq %s"
          % (nic, alloc, connections, len(rounds), summary, after["tcp_ooseq"]))
    return before["stats"], after, summary


@pytest.mark.parametrize("alloc", ["stock", "native"])
@pytest.mark.parametrize("nic", ["virtio", "e1000"])
def test_one_connection_past_a_hole_is_trimmed_and_the_guest_answers(tap_net, tmp_path,
                                                                      nic, alloc):
    before, after, attack = attack_and_probe(tap_net, tmp_path, nic, alloc, 1, 600)
    ooseq = after["tcp_ooseq"]
    assert ooseq["trims"] > before["tcp_ooseq"]["trims"], ooseq
    # The attack's queue held buffers, never more than the bound.
    assert 0 < ooseq["largest_queue_pbufs"] <= ooseq["max_pbufs"], ooseq
    # Nothing was reclaimed: the quiet connection's queue is still there.
    assert ooseq["reclaims"] == before["tcp_ooseq"]["reclaims"], ooseq
    assert attack["quiet_kept"] is True, attack
    assert rx_limit_hits(after, alloc) == rx_limit_hits(before, alloc), \
        "the receive buffers ran out: %s" % after["net_mem"]


@pytest.mark.parametrize("nic,alloc", [("virtio", "native"), ("e1000", "stock")])
def test_many_connections_past_a_hole_are_reclaimed_and_the_guest_answers(tap_net, tmp_path,
                                                                          nic, alloc):
    before, after, attack = attack_and_probe(tap_net, tmp_path, nic, alloc, 24, 40)
    ooseq = after["tcp_ooseq"]
    assert ooseq["reclaims"] > before["tcp_ooseq"]["reclaims"], ooseq
    assert ooseq["reclaimed_pbufs"] > before["tcp_ooseq"]["reclaimed_pbufs"], ooseq
    assert ooseq["largest_queue_pbufs"] <= ooseq["max_pbufs"], ooseq
    # The connection heard from least recently lost its queue first.
    assert attack["quiet_kept"] is False, attack
