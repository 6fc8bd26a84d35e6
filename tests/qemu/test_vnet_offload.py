"""virtio-net offloads (checksum both ways, coalesced TCP receive over
mergeable RX buffers, merged TCP segments on transmit) on a tap with
virtio-net headers, each switched on and off at boot, and a tap and
user-net without them.

Each configuration must serve real clients in the namespace (ping, HTTP,
a byte-identical 1 MiB TCP echo, UDP echo, iperf2 both ways), the
counters in /stats.json must show each offload used exactly when it is
on, and the packet buffers must be back at their idle values afterwards.
"""
import os
import re
import subprocess
import time

import pytest

from netns_tap import TapNet, buffers_in_use, wait_buffers_back

OFFLOAD_LINE = (r"^virtio-net: eth0 offloads csum=(\S+) guest_csum=(\S+) "
                r"guest_tso4=(\S+) mrg_rxbuf=(\S+) host_tso4=(\S+)")

# name: (boot switches, vnet_hdr, allocator, expected csum/guest_csum,
#        guest_tso4, mrg_rxbuf, host_tso4 words)
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
    "all-off": ("virtio_csum=0 virtio_tso=0 virtio_mrg=0 virtio_host_tso=0", "on",
                "native", "off(switch)", "off(switch)", "off(switch)", "off(switch)"),
    # QEMU offers MRG_RXBUF whatever the backend, the rest only with
    # vnet headers.
    "no-vnet-hdr": ("", "off", "native", "off(not-offered)",
                    "off(not-offered)", "on", "off(not-offered)"),
}


@pytest.fixture
def tap_net():
    why = TapNet.unavailable()
    if why:
        pytest.skip(why)
    with TapNet() as net:
        yield net


def iperf_to_guest(net, g, secs=3):
    r = net.run(["iperf", "-c", g.ip, "-p", "5001", "-t", str(secs), "-y", "C"],
                timeout=secs + 60)
    lines = [l for l in r.stdout.decode().splitlines() if l.count(",") >= 8]
    assert r.returncode == 0 and lines, (r.stderr.decode(), g.describe())
    return int(lines[-1].split(",")[-1]) / 1e6


def iperf_from_guest(net, g, tmp_path, port=5201):
    """lwiperf's 10 s client against iperf -s in the namespace. Returns
    the guest's Mbit/s, the bytes it says it sent and the bytes the
    host's server says it received (its CSV report, line-buffered)."""
    report = tmp_path / "iperf-server.csv"
    with open(report, "w") as out:
        server = subprocess.Popen(["ip", "netns", "exec", net.ns, "stdbuf", "-oL", "iperf",
                                   "-s", "-p", str(port), "-y", "C"],
                                  stdout=out, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
    try:
        time.sleep(1)
        assert g.post("/iperf-client/%d" % port).strip() == b"started", g.describe()
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


def nic_counters(g):
    nic = g.stats()["nic"]["eth0"]
    return nic, {k: nic[k] for k in ("rx_csum_valid", "rx_csum_partial", "rx_gso_frames",
                                     "rx_mrg_chains", "rx_bad_hdr", "tx_csum_offloaded",
                                     "tx_gso_frames", "tx_gso_segs", "rx_gro_packets",
                                     "rx_gro_segs")}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_offload_config_serves_and_counts(tap_net, tmp_path, name):
    switches, vnet_hdr, alloc, csum, tso, mrg, host_tso = CONFIGS[name]
    g = tap_net.start_guest(str(tmp_path), nic="virtio", alloc=alloc,
                            append=switches + " http_control=1",
                            vnet_hdr=vnet_hdr, smp=1)
    g.wait_ready(90)
    m = re.search(OFFLOAD_LINE, g.log(), re.M)
    assert m, g.describe()
    assert m.groups() == (csum, csum, tso, mrg, host_tso), g.describe()
    baseline = buffers_in_use(g.stats())

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
        ["rx_big"] if tso == "on" else [])
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
        # iperf from the guest is a stream of MSS segments: merged.
        assert c["tx_gso_frames"] > gso_before and c["tx_gso_segs"] >= 2 * c["tx_gso_frames"], c
        assert c["tx_gso_segs"] <= nic["tx_packets"], (c, nic["tx_packets"])
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
    assert re.search(OFFLOAD_LINE, log, re.M).group(1) == "on", g.describe()
    g.tcp_echo(os.urandom(64 * 1024))


def test_user_net_offers_no_offloads_and_still_works(qemu):
    from test_net import NetVM

    vm = NetVM(qemu, "native")
    m = re.search(OFFLOAD_LINE, vm.vm.log(), re.M)
    assert m, vm.vm.describe()
    assert m.groups()[:3] == ("off(not-offered)",) * 3, vm.vm.describe()
    assert m.group(5) == "off(not-offered)", vm.vm.describe()
    data = os.urandom(256 * 1024)
    assert vm.tcp_echo(data) == data
    assert b"<html>" in vm.curl("/")
    assert vm.udp_echo(b"user-net\n") == b"user-net\n"
    nic = vm.stats()["nic"]["eth0"]
    assert nic["offloads"] == [], nic
    assert nic["tx_csum_offloaded"] == nic["rx_csum_partial"] == nic["rx_gso_frames"] == 0, nic
    assert nic["tx_gso_frames"] == nic["tx_gso_segs"] == 0, nic
