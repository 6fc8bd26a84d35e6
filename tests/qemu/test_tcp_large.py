"""Large TCP segments: on a NIC that cuts TCP segments itself (virtio-net
with HOST_TSO4/6 on a tap with virtio-net headers, igb's TSO), lwIP
builds segments of up to tcp_seg_mss= MSS (15 by default) and the device
cuts them at the MTU (net/tcp_seg_max.c, net/lwip-patches/0014).

Each NIC with large segments on and off (tcp_seg_mss=1: lwIP's MSS-sized
segments, which the driver merges): iperf from the guest to the
namespace over IPv4 and IPv6 (data by reference: the split without a
copy), a 1 MiB TCP echo (copied data) over both, every byte back in
order. On, the counters must show segments longer than the MSS left the
stack and the device cut each into many; off, none did. IPv6 and IPv4
each take their own path through IP (no fragmentation of a large
segment). Splits at the window, retransmissions of large segments and
every other TCP rule with them: the TCP conformance suite on igb
(tests/qemu/test_tcp_conformance.py).
"""
import os
import re

import pytest

from conftest import qemu_version
from netns_tap import GuestError, resting_buffers, wait_buffers_back
from test_vnet_offload import iperf_from_guest, tap_net  # noqa: F401 (a fixture)

HOST6, GUEST6 = "2001:db8:7e::1", "2001:db8:7e::2"
NICS = ["virtio", "igb"]


def tx_counters(g):
    nic = g.stats()["nic"]["eth0"]
    return {k: nic[k] for k in ("tx_packets", "tx_large_segs", "tx_gso_frames",
                                "tx_gso_segs")}


def delta(after, before):
    return {k: after[k] - before[k] for k in after}


@pytest.mark.parametrize("seg_mss", [15, 1], ids=["large", "mss-sized"])
@pytest.mark.parametrize("nic", NICS)
def test_large_segments_leave_whole_and_arrive_intact(tap_net, tmp_path, nic, seg_mss):
    if nic == "igb" and qemu_version() < (8, 0):
        pytest.skip("needs QEMU 8 or later (the igb model)")
    tap_net.run(["ip", "addr", "add", HOST6 + "/64", "dev", "tap0", "nodad"], check=True)
    g = tap_net.start_guest(str(tmp_path), nic=nic, vnet_hdr="on", smp=1,
                            append="http_control=1 ip6=%s/64 gw6=%s tcp_seg_mss=%d"
                            % (GUEST6, HOST6, seg_mss))
    try:
        g.wait_ready(90)
        g.wait_for(r"^net: eth0 ip6 %s ready \(static\)" % re.escape(GUEST6), 30)
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    baseline = resting_buffers(g)

    results = {}
    for family, ip6, port in (("ipv4", None, 5201), ("ipv6", GUEST6, 5202)):
        before = tx_counters(g)
        mbit, sent, received = iperf_from_guest(tap_net, g, tmp_path, port=port, ip6=ip6)
        d = delta(tx_counters(g), before)
        assert received is not None and 0.9 * sent <= received <= sent + 65536, (
            family, sent, received, g.describe())
        results[family] = (mbit, d)
        # Nearly all the client sent, the device cut (beyond what one
        # /stats.json answer could carry).
        assert d["tx_gso_segs"] * 1460 > 0.9 * sent, (family, d, sent)
        if seg_mss > 1:
            # ... from segments lwIP built long (a few MSS-sized ones,
            # left over from window splits, are merged), each cut into
            # several.
            assert d["tx_large_segs"] >= 0.9 * d["tx_gso_frames"], (family, d)
            assert d["tx_gso_segs"] >= 4 * d["tx_gso_frames"] > 0, (family, d)
        else:
            # ... from lwIP's MSS-sized segments, which the driver merged
            assert d["tx_large_segs"] == 0 and d["tx_gso_frames"] > 0, (family, d)

    data = os.urandom(1 << 20)
    g.tcp_echo(data)  # the guest's echo copies what it sends
    r = tap_net.run(["nc", "-6", "-N", "-w", "20", GUEST6, "7"], data=data, timeout=120)
    assert r.stdout == data, (len(r.stdout), g.describe())

    now = wait_buffers_back(g, baseline)
    assert now == baseline, (now, baseline, g.describe())
    print("%s tcp_seg_mss=%d: %s" % (nic, seg_mss, {
        f: "%.0f Mbit/s, %s" % (m, d) for f, (m, d) in results.items()}))
