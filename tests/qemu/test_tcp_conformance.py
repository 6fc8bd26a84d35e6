"""TCP conformance: the fast path keeps TCP's rules.

One guest per receive-coalescing mode (net_gro=on|off) and allocator mode
(net_alloc=native|stock), virtio-net on a tap in a namespace, and one on
igb, with an
IPv4 and an IPv6 address, HTTP control on and its gateway at the
script's address (for the SYN_SENT cases, where its iperf client opens
the connection). tests/qemu/tcp_conformance.py runs every case
against it, over both families, from the namespace: a short script of
segments sent and expected (tests/qemu/tcp_script.py) per behaviour, the
handshake and its options, data and ACKs inside and outside the window,
RFC 5961's challenge ACKs and blind data, windows closing and reopening,
retransmission timing, fast retransmit, out-of-order data, FIN and RST in
every state, TIME_WAIT. docs/tcp-conformance.md lists the cases and where
lwIP departs from the RFCs.

Serial (conftest.py): the retransmission and window-probe cases check
the spacing of the guest's timers (loosely: ordering and doubling), and
fast retransmit must come before the retransmission timer could.
"""
import json
import os
import re

import pytest

import tcp_conformance
from netns_tap import HERE, PYTHON, GuestError, TapNet

ROOT = os.path.dirname(os.path.dirname(HERE))
DOC = os.path.join(ROOT, "docs", "tcp-conformance.md")
SCRIPT = os.path.join(HERE, "tcp_conformance.py")
HOST6, GUEST6 = "2001:db8:7c::1", "2001:db8:7c::2"
# Both NICs cut segments (virtio-net's HOST_TSO over the tap's virtio-net
# headers, igb's TSO in QEMU's model): lwIP builds large segments
# (net/tcp_seg_max.c), split to the window, resent after a loss -- under
# every case's eye.
CONFIGS = [("on", "native", "virtio"), ("on", "stock", "virtio"),
           ("off", "native", "virtio"), ("off", "stock", "virtio"),
           ("on", "native", "igb")]


def failure_report(results):
    out = []
    for r in results:
        if not r["ok"]:
            out.append("%s over %s: %s\n    %s" % (r["case"], r["family"], r["why"],
                                                  "\n    ".join(r["trace"])))
    return "\n".join(out)


@pytest.mark.parametrize("gro,alloc,nic", CONFIGS,
                         ids=["gro_%s-%s" % c[:2] + ("" if c[2] == "virtio" else "-" + c[2])
                              for c in CONFIGS])
def test_tcp_conformance(tmp_path, gro, alloc, nic):
    reason = TapNet.unavailable()
    if reason:
        pytest.skip(reason)
    with TapNet() as net:
        net.run(["ip", "addr", "add", HOST6 + "/64", "dev", "tap0", "nodad"], check=True)
        # The guest's iperf client connects to its gateway: the script's
        # own address (tcp_conformance.py: PEER), for the SYN_SENT cases.
        peer4 = net.guest_ip.rsplit(".", 1)[0] + ".%d" % tcp_conformance.PEER
        g = net.start_guest(str(tmp_path), nic=nic, alloc=alloc,
                            append="net_gro=%s ip6=%s/64 http_control=1 gw=%s" % (
                                gro, GUEST6, peer4))
        try:
            g.wait_ready()
            g.wait_for(r"^net: eth0 ip6 %s ready \(static\)" % re.escape(GUEST6), 30)
            before = g.stats()["nic"]["eth0"]
        except GuestError as e:
            pytest.fail(str(e), pytrace=False)
        only = os.environ.get("TCP_CONFORMANCE_CASES")  # names, comma-separated
        r = net.run([PYTHON, SCRIPT, "--iface", "tap0", "--guest-ip", g.ip,
                     "--guest-mac", g.mac, "--guest-ip6", GUEST6]
                    + (["--case", only] if only else []), timeout=600)
        try:
            run = json.loads(r.stdout)
        except ValueError:
            pytest.fail("tcp_conformance.py gave no answer: %r\n%s" % (
                r.stderr.decode()[-3000:], g.describe()), pytrace=False)
        after = g.stats()["nic"]["eth0"]
        log = g.log()
    results = run["results"]
    assert run["ok"], "%d of %d cases failed:\n%s\n%s" % (
        sum(1 for x in results if not x["ok"]), len(results), failure_report(results), log[-3000:])
    assert "panic" not in log and "exception:" not in log, log[-3000:]
    # The coalescing ran where it was on (in a whole run), and only there.
    joined = after["rx_gro_packets"] - before["rx_gro_packets"]
    assert (joined > 0) == (gro == "on") or (only and gro == "on"), \
        "net_gro=%s, %d joined packets" % (gro, joined)
    # The cases whose connection has the MSS the MTU gives ran over
    # segments lwIP built large (net/tcp_seg_max.c: igb's TSO, virtio-net's
    # HOST_TSO over the tap's virtio-net headers): echoes of several MSS,
    # their retransmissions, the splits at small windows.
    large = after["tx_large_segs"] - before["tx_large_segs"]
    assert large > 0 or only, "%s: no large segments" % nic
    deviations = sorted({x["case"] for x in results if x["deviation"]})
    again = [x["case"] for x in results if x["tries"] > 1]
    print("tcp conformance gro=%s %s %s: %d cases in %.0f s, %d joined packets, "
          "%d large segments; "
          "tried again (the script was late): %s; expected deviations: %s" % (
              gro, alloc, nic, len(results), run["secs"], joined, large, ", ".join(again) or "none",
              ", ".join(deviations)))


def test_every_case_is_in_the_doc():
    """docs/tcp-conformance.md names every case (in its table) and every
    case that asserts a deviation from the RFCs (in its deviations)."""
    doc = open(DOC).read()
    table, _, deviations = doc.partition("## Where lwIP departs from the RFCs")
    missing = [c.name for c in tcp_conformance.CASES if "`%s`" % c.name not in table]
    assert not missing, "cases missing from %s's table: %s" % (DOC, missing)
    undocumented = [c.name for c in tcp_conformance.CASES
                    if c.deviation and "`%s`" % c.name not in deviations]
    assert not undocumented, "deviations missing from %s: %s" % (DOC, undocumented)
    named = set(re.findall(r"`([a-z0-9-]+)`", table))
    stale = sorted(n for n in named - {c.name for c in tcp_conformance.CASES}
                   if re.match(r"^[a-z0-9]+(-[a-z0-9]+){2,}$", n))
    assert not stale, "%s names cases that do not exist: %s" % (DOC, stale)
