"""tools/vs_linux_tap.py (bench-vs-linux's tap section) on inputs written
by hand: the offloads each guest negotiated, read from boot logs and
/stats.json; the clients' outputs parsed; the tap section of the report
with its goals on virtio-net and igb only."""
import os
import sys
import types

from tool_loader import ROOT, load_tool

sys.path.insert(0, os.path.join(ROOT, "tools"))
import vs_linux_tap as tap  # noqa: E402

# Lines as the Linux guest printed them on virtio-net with vnet headers.
LINUX_LOG = """vslinux: features eth0 tx-scatter-gather tx-checksum-ip-generic highdma \
tx-generic-segmentation rx-gro tx-tcp-segmentation tx-tcp6-segmentation rx-checksum rx-gro-hw
vslinux: virtio-features 1110010111011111111101010000110010000000100000000000000000000000
vslinux: ready ip=192.168.7.2/24 gw= nic=virtio tcp/5001 tcp/80 tcp/8080 tcp/7 udp/7
"""
OURS_LOG = """virtio-net: eth0 offloads csum=on guest_csum=on guest_tso4=on \
guest_tso6=off(switch) mrg_rxbuf=on host_tso4=on host_tso6=off(not-offered)
"""


def test_linux_offloads_name_the_active_features_and_the_negotiated_virtio_bits():
    o = tap.linux_offloads(LINUX_LOG)
    assert o["features"] == ["rx-checksum", "tx-checksum-ip-generic", "tx-scatter-gather",
                             "tx-tcp-segmentation", "tx-tcp6-segmentation", "rx-gro",
                             "rx-gro-hw"]
    # bits 0, 1, 7, 8, 11, 12 and 15 of the string above
    assert o["virtio"] == ["csum", "guest_csum", "guest_tso4", "guest_tso6", "host_tso4",
                           "host_tso6", "mrg_rxbuf"]
    assert tap.virtio_bits("0" * 64) == []


def test_linux_offloads_without_the_lines_are_unknown():
    o = tap.linux_offloads("vslinux: features eth0 unknown\n")
    assert o == {"features": None, "virtio": None}
    assert tap.offload_text(o) == "?"


def test_ours_offloads_come_from_stats_the_virtio_line_and_igb_tso():
    stats = {"nic": {"eth0": {"offloads": ["tx_csum", "rx_csum", "rx_big"]}}}
    o = tap.ours_offloads(OURS_LOG, stats, "virtio")
    assert o == {"features": ["tx_csum", "rx_csum", "rx_big"],
                 "virtio": ["csum", "guest_csum", "guest_tso4", "mrg_rxbuf", "host_tso4"]}
    assert tap.offload_text(o) == ("tx_csum, rx_csum, rx_big (virtio: csum, guest_csum, "
                                   "guest_tso4, mrg_rxbuf, host_tso4)")
    igb = {"nic": {"eth0": {"offloads": ["tx_csum", "rx_csum"]}}}
    assert tap.ours_offloads("", igb, "igb")["features"] == ["tx_csum", "rx_csum", "tso"]
    off = "igb: eth0: TSO off: its tables would take more than 1/64 of the free memory\n"
    assert tap.ours_offloads(off, igb, "igb")["features"] == ["tx_csum", "rx_csum"]
    e1000 = {"nic": {"eth0": {"offloads": []}}}
    assert tap.offload_text(tap.ours_offloads("", e1000, "e1000")) == "none"


def test_client_outputs_are_parsed():
    csv = ("20261206113000,192.168.7.1,40000,192.168.7.2,5001,1,0.0-4.0,"
           "500000000,1000000000\n")
    assert tap.iperf_csv(csv) == (500000000, 1000000000)
    assert tap.iperf_csv("connect failed\n") == (0, 0)
    wrk = ("Running 4s test @ http://192.168.7.2:80/\n  40000 requests in 4.00s, 9 MB read\n"
           "  Socket errors: connect 0, read 1, write 0, timeout 2\n"
           "  Non-2xx or 3xx responses: 3\nRequests/sec:  10000.50\n")
    assert tap.wrk_figures(wrk) == (10000.5, 40000, 6)


def test_tap_section_has_offloads_figures_and_goals_on_virtio_and_igb_only(tmp_path):
    tool = load_tool("bench-vs-linux")
    linux = {"iperf_h2g4_mbps": 1000.0, "instr_per_rx_segment": 3000.0,
             "offloads": tap.linux_offloads(LINUX_LOG)}
    native = {"iperf_h2g4_mbps": 2000.0, "instr_per_rx_segment": 1000.0,
              "offloads": {"features": ["tx_csum"], "virtio": ["csum"]},
              "notes": ["iperf_g2h6_mbps failed: no report"]}
    tap_runs = {nic: {"linux": [dict(linux)], "native": [dict(native)]}
                for nic in ("virtio", "e1000")}
    table = tool.summarise(tap_runs, ["linux", "native"], set(), tap.TAP_ROWS, tap.GOAL_NICS)
    rows = {nic: {r["label"]: r for r in table[nic]} for nic in table}
    assert rows["virtio"]["iperf host->guest, IPv4"]["goal_met"] is True  # 2x >= 1.5x
    assert rows["virtio"]["guest instructions per received TCP segment (-icount)"][
        "goal_met"] is True  # 0.33x <= 0.5x
    assert rows["e1000"]["iperf host->guest, IPv4"]["goal"] is None
    assert rows["virtio"]["iperf host->guest, IPv6"]["spread"]["native"] is None  # failed
    a = types.SimpleNamespace(kernels=["linux", "native"], nics=["virtio", "e1000"], rounds=1,
                              seconds=4, icount_bytes=1 << 20, quiet=20, quiet_gap=0.5,
                              idle=10, idle_settle=2, cold=1000, loaded=1000,
                              skip=set())
    v = {"version": "1"}
    meta = {"commit": "abc", "date": "today", "duration_s": 60, "qemu": "10",
            "linux": {"kernel": {"package": "linux", "version": "6.1"}, "busybox-static": v,
                      "iperf": v}, "load_start": "1 1 1", "load_end": "1 1 1"}
    out = str(tmp_path / "r")
    tool.write_report(out, {}, {}, a, meta, None, (), (tap_runs, table))
    md = open(out + ".md").read()
    assert "\n## tap: virtio\n" in md and "\n## tap: e1000\n" in md
    assert "| native | tx_csum (virtio: csum) |" in md
    assert ("| iperf host->guest, IPv4 | Mbit/s | 1000 | 2000 | - | 2 | - | - | "
            ">= 1.5x Linux: met | - |") in md
    assert "- tap virtio native round 1: iperf_g2h6_mbps failed: no report" in md
