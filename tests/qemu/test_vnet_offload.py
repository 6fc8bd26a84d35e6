"""virtio-net offloads (checksum both ways, coalesced TCP receive over
mergeable RX buffers, merged TCP segments on transmit) on a tap with
virtio-net headers, each switched on and off at boot, and a tap and
user-net without them.

Each configuration must serve real clients in the namespace (ping, HTTP,
a byte-identical 1 MiB TCP echo, UDP echo, iperf2 both ways), the
counters in /stats.json must show each offload used exactly when it is
on, and the packet buffers must be back at their idle values afterwards.
"""
import json
import os
import re
import subprocess
import time

import pytest

from netns_tap import TapNet, resting_buffers, wait_buffers_back

OFFLOAD_LINE = (r"^virtio-net: eth0 offloads csum=(\S+) guest_csum=(\S+) "
                r"guest_tso4=(\S+) guest_tso6=(\S+) mrg_rxbuf=(\S+) "
                r"host_tso4=(\S+) host_tso6=(\S+)")

# name: (boot switches, vnet_hdr, allocator, expected csum/guest_csum,
#        guest_tso4, mrg_rxbuf, host_tso4 words); the IPv6 twins
#        (guest_tso6, host_tso6) say what guest_tso4 and host_tso4 say
#        unless TWINS6 says otherwise.
CONFIGS = {
    "all-on-native": ("", "on", "native", "on", "on", "on", "on"),
    "all-on-stock": ("", "on", "stock", "on", "on", "on", "on"),
    "csum-off": ("virtio_csum=0", "on", "native", "off(switch)",
                 "off(needs-csum+mrg)", "on", "off(needs-csum)"),
    "tso-off": ("virtio_tso=0", "on", "native", "on", "off(switch)", "on", "on"),
    "mrg-off": ("virtio_mrg=0", "on", "native", "on", "off(needs-csum+mrg)",
                "off(switch)", "on"),
    "host-tso-off": ("virtio_host_tso=0", "on", "native", "on", "on", "on",
                     "off(switch)"),
    "all-off": ("virtio_csum=0 virtio_tso=0 virtio_tso6=0 virtio_mrg=0 "
                "virtio_host_tso=0 virtio_host_tso6=0", "on",
                "native", "off(switch)", "off(switch)", "off(switch)", "off(switch)"),
    # QEMU offers MRG_RXBUF whatever the backend, the rest only with
    # vnet headers.
    "no-vnet-hdr": ("", "off", "native", "off(not-offered)",
                    "off(not-offered)", "on", "off(not-offered)"),
}
# Each family's switch alone: the other family keeps its offload.
TWINS6 = {"tso-off": ("on", "on"), "host-tso-off": ("on", "on")}


def offload_words(log):
    """The boot line's words: csum, guest_csum, guest_tso4, guest_tso6,
    mrg_rxbuf, host_tso4, host_tso6 (None without the line)."""
    m = re.search(OFFLOAD_LINE, log, re.M)
    return m.groups() if m else None


@pytest.fixture
def tap_net():
    why = TapNet.unavailable()
    if why:
        pytest.skip(why)
    with TapNet() as net:
        yield net


def iperf_to_guest(net, g, secs=3, ip6=None):
    """iperf2's client in the namespace against the guest's server, to
    its IPv4 address or to ip6. Returns Mbit/s."""
    family = ["-V", "-c", ip6] if ip6 else ["-c", g.ip]
    r = net.run(["iperf"] + family + ["-p", "5001", "-t", str(secs), "-y", "C"],
                timeout=secs + 60)
    lines = [l for l in r.stdout.decode().splitlines() if l.count(",") >= 8]
    assert r.returncode == 0 and lines, (r.stderr.decode(), g.describe())
    return int(lines[-1].split(",")[-1]) / 1e6


def start_guest_client(net, g, port, ip6=None):
    """POST /iperf-client/PORT: over IPv4 the guest's client targets its
    gateway, asked over IPv6 (to the guest's ip6) its asker."""
    if not ip6:
        assert g.post("/iperf-client/%d" % port).strip() == b"started", g.describe()
        return
    r = net.run(["curl", "-sS", "-6", "-X", "POST", "-m", "20",
                 "http://[%s]/iperf-client/%d" % (ip6, port)], timeout=40)
    assert r.stdout.strip() == b"started", (r.stdout, r.stderr, g.describe())


def iperf_from_guest(net, g, tmp_path, port=5201, ip6=None):
    """lwiperf's 10 s client against iperf -s in the namespace (asked
    over IPv6 when ip6, the guest's address, is given). Returns the
    guest's Mbit/s, the bytes it says it sent and the bytes the host's
    server says it received (its CSV report, line-buffered)."""
    report = tmp_path / "iperf-server.csv"
    with open(report, "w") as out:
        server = subprocess.Popen(["ip", "netns", "exec", net.ns, "stdbuf", "-oL", "iperf",
                                   "-s", "-p", str(port), "-y", "C"] + (["-V"] if ip6 else []),
                                  stdout=out, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
    try:
        time.sleep(1)
        start_guest_client(net, g, port, ip6)
        m = g.wait_for(r"^iperf: done-client \S+:%d bytes=(\d+) ms=\d+ kbps=(\d+)" % port, 40)
        received = None
        end = time.monotonic() + 10
        while received is None and time.monotonic() < end:
            lines = [l for l in report.read_text().splitlines() if l.count(",") >= 8]
            received = int(lines[-1].split(",")[7]) if lines else None
            time.sleep(0.2)
        return int(m.group(2)) / 1000, int(m.group(1)), received
    finally:
        os.killpg(server.pid, 9)
        server.wait()


def nic_counters(g, stats=None):
    nic = (stats or g.stats())["nic"]["eth0"]
    return nic, {k: nic[k] for k in ("rx_csum_valid", "rx_csum_partial", "rx_gso_frames",
                                     "rx_mrg_chains", "rx_bad_hdr", "tx_csum_offloaded",
                                     "tx_gso_frames", "tx_gso_segs", "tx_large_segs",
                                     "rx_gro_packets",
                                     "rx_gro_segs")}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_offload_config_serves_and_counts(tap_net, tmp_path, name):
    switches, vnet_hdr, alloc, csum, tso, mrg, host_tso = CONFIGS[name]
    g = tap_net.start_guest(str(tmp_path), nic="virtio", alloc=alloc,
                            append=switches + " http_control=1",
                            vnet_hdr=vnet_hdr, smp=1)
    g.wait_ready(90)
    tso6, host_tso6 = TWINS6.get(name, (tso, host_tso))
    assert offload_words(g.log()) == (csum, csum, tso, tso6, mrg, host_tso,
                                      host_tso6), g.describe()
    baseline = resting_buffers(g)

    g.check_answers(name)
    g.tcp_echo(os.urandom(1 << 20))  # byte-identical: guest TX intact
    assert iperf_to_guest(tap_net, g) > 0
    gso_before = g.stats()["nic"]["eth0"]["tx_gso_frames"]
    mbit, sent, received = iperf_from_guest(tap_net, g, tmp_path)
    assert mbit > 0
    # The host's TCP took what the guest sent (merged chains cut up or
    # delivered whole): its count is the guest's, less what was in
    # flight when the guest stopped counting.
    assert received is not None and 0.9 * sent <= received <= sent + 65536, (sent, received)
    g.udp_echo(b"after iperf " + name.encode() + b"\n")

    nic, c = nic_counters(g)
    expect_offloads = ([] if csum != "on" else ["tx_csum", "rx_csum"]) + (
        ["rx_big"] if "on" in (tso, tso6) else [])
    assert nic["offloads"] == expect_offloads, c
    assert c["rx_bad_hdr"] == 0, c
    if csum == "on":
        # The host's stack leaves sums to the device: frames come
        # NEEDS_CSUM; nearly every frame we send is TCP or UDP.
        assert c["rx_csum_partial"] + c["rx_csum_valid"] > 0, c
        assert c["tx_csum_offloaded"] > nic["tx_packets"] * 0.9, (c, nic["tx_packets"])
    else:
        assert c["rx_csum_partial"] == c["rx_csum_valid"] == c["tx_csum_offloaded"] == 0, c
    if tso == "on":
        # A 1 MiB echo and iperf into the guest coalesce on the host.
        assert c["rx_gso_frames"] > 0 and c["rx_mrg_chains"] > 0, c
    else:
        assert c["rx_gso_frames"] == 0 and c["rx_mrg_chains"] == 0, c
        # MSS frames from the host: the glue joins them (net/rx_gro.c),
        # with csum on on the device's word for the TCP sum.
        assert c["rx_gro_packets"] > 0 and c["rx_gro_segs"] >= 2 * c["rx_gro_packets"], c
    if host_tso == "on":
        # iperf from the guest: segments of several MSS lwIP built for
        # the device to cut (net/tcp_seg_max.c); each of the stack's
        # frames is one the device cut, or one it sent as it was.
        assert c["tx_gso_frames"] > gso_before and c["tx_gso_segs"] >= 2 * c["tx_gso_frames"], c
        assert 0 < c["tx_large_segs"] <= c["tx_gso_frames"] <= nic["tx_packets"], (
            c, nic["tx_packets"])
    else:
        assert c["tx_gso_frames"] == c["tx_gso_segs"] == 0, c
    now = wait_buffers_back(g, baseline)
    assert now == baseline, (now, baseline, g.describe())


def test_bad_offload_switch_is_reported_and_default_used(tap_net, tmp_path):
    g = tap_net.start_guest(str(tmp_path), nic="virtio", append="virtio_csum=2",
                            vnet_hdr="on", smp=1)
    g.wait_ready(90)
    log = g.log()
    assert re.search(r"^cmdline: bad value '2' for virtio_csum \(expected .+\), "
                     r"using default '1'$", log, re.M), g.describe()
    assert offload_words(log)[0] == "on", g.describe()
    g.tcp_echo(os.urandom(64 * 1024))


def test_user_net_offers_no_offloads_and_still_works(qemu):
    from test_net import NetVM

    vm = NetVM(qemu, "native")
    words = offload_words(vm.vm.log())
    assert words, vm.vm.describe()
    assert words[:4] + words[5:] == ("off(not-offered)",) * 6, vm.vm.describe()
    data = os.urandom(256 * 1024)
    assert vm.tcp_echo(data) == data
    assert b"<html>" in vm.curl("/")
    assert vm.udp_echo(b"user-net\n") == b"user-net\n"
    nic = vm.stats()["nic"]["eth0"]
    assert nic["offloads"] == [], nic
    assert nic["tx_csum_offloaded"] == nic["rx_csum_partial"] == nic["rx_gso_frames"] == 0, nic
    assert nic["tx_gso_frames"] == nic["tx_gso_segs"] == 0, nic


HOST6, GUEST6 = "2001:db8:76::1", "2001:db8:76::2"
# name: (boot switches, expected guest_tso6 and host_tso6 words)
CONFIGS6 = {
    "ip6-all-on": ("", "on", "on"),
    "ip6-tso6-off": ("virtio_tso6=0", "off(switch)", "on"),
    "ip6-host-tso6-off": ("virtio_host_tso6=0", "on", "off(switch)"),
}


def delta(before, after):
    return {k: after[k] - before[k] for k in after}


def counters6(net, g):
    """nic_counters from /stats.json fetched over IPv6: the previous
    fetch's answer is sent after its counters were read, so fetched over
    IPv4 it would count as IPv4 segments merged in the IPv6 test."""
    r = net.run(["curl", "-sS", "-6", "-m", "20", "http://[%s]/stats.json" % GUEST6],
                timeout=40)
    assert r.returncode == 0, (r.stderr, g.describe())
    return nic_counters(g, json.loads(r.stdout))[1]


@pytest.mark.parametrize("name", list(CONFIGS6))
def test_ipv6_offloads_serve_and_count(tap_net, tmp_path, name):
    """IPv6 on a vnet_hdr tap: GUEST_TSO6 and HOST_TSO6 negotiated unless
    switched off (IPv4's stay on), a byte-identical 1 MiB echo, iperf
    both ways over IPv6 (the guest's own client towards the host), and
    the counters of coalesced receive and merged transmit moving over
    the IPv6 streams exactly when their offload is on."""
    switches, tso6, host_tso6 = CONFIGS6[name]
    tap_net.run(["ip", "addr", "add", HOST6 + "/64", "dev", "tap0", "nodad"], check=True)
    g = tap_net.start_guest(str(tmp_path), nic="virtio",
                            append="%s ip6=%s/64 gw6=%s http_control=1"
                            % (switches, GUEST6, HOST6), vnet_hdr="on", smp=1)
    g.wait_ready(90)
    g.wait_for(r"^net: eth0 ip6 %s ready \(static\)" % re.escape(GUEST6), 30)
    words = offload_words(g.log())
    assert words and (words[3], words[6]) == (tso6, host_tso6), g.describe()
    assert words[:3] + words[4:6] == ("on",) * 5, g.describe()
    baseline = resting_buffers(g)

    data = os.urandom(1 << 20)  # the guest's merged chains, cut by the host
    r = tap_net.run(["nc", "-6", "-N", "-w", "20", GUEST6, "7"], data=data, timeout=120)
    assert r.stdout == data, (len(r.stdout), g.describe())
    c0 = counters6(tap_net, g)
    assert iperf_to_guest(tap_net, g, ip6=GUEST6) > 0
    rx = delta(c0, counters6(tap_net, g))
    if tso6 == "on":
        # The host's stream comes coalesced, over mergeable buffers.
        assert rx["rx_gso_frames"] > 0 and rx["rx_mrg_chains"] > 0, rx
    else:
        # MSS frames: the glue joins them instead (net/rx_gro.c).
        assert rx["rx_gso_frames"] == 0, rx
        assert rx["rx_gro_packets"] > 0 and rx["rx_gro_segs"] >= 2 * rx["rx_gro_packets"], rx
    assert rx["rx_csum_partial"] + rx["rx_csum_valid"] > 0, rx

    c1 = counters6(tap_net, g)
    mbit, sent, received = iperf_from_guest(tap_net, g, tmp_path, ip6=GUEST6)
    assert mbit > 0
    assert received is not None and 0.9 * sent <= received <= sent + 65536, (sent, received)
    tx = delta(c1, counters6(tap_net, g))
    if host_tso6 == "on":
        # Beyond what one /stats.json answer could carry (it is merged
        # too): iperf's stream went out in merged chains.
        assert tx["tx_gso_segs"] * 1400 > sent / 2, (tx, sent)
        assert tx["tx_gso_frames"] > 0 and tx["tx_gso_segs"] >= 2 * tx["tx_gso_frames"], tx
    else:
        assert tx["tx_gso_frames"] == tx["tx_gso_segs"] == 0, tx
    assert tx["tx_csum_offloaded"] > 0, tx
    nic, c = nic_counters(g)
    assert c["rx_bad_hdr"] == 0, c
    now = wait_buffers_back(g, baseline)
    assert now == baseline, (now, baseline, g.describe())
