"""The Linux reference guest of `make bench-vs-linux` (tools/build-linux-guest)
boots through tools/qemu-run --initrd and serves what the benchmark measures:
the same index page as our kernel from both HTTP servers, HTTP/1.1
keep-alive on vsl_server, /proc files, TCP and UDP echo, and the
measurements of its quiet-link echo and its QEMU's idle CPU
(tools/irq_figures.py).

The guest is built from ~70 MB of Debian packages, so these tests run once
it exists (`make linux-guest`, `make test-vs-linux` or `make
bench-vs-linux`) and are skipped, with that reason, before. One boot takes
~4 s under TCG.

The last two run tools/bench-vs-linux itself, one round of its smallest
figures for linux and native: the tap section on virtio-net and igb
(~8 min of one worker on a loaded host: each guest's own iperf client
runs 10 s of guest time, minutes under -icount) and the user-net section
on igb (~3 min). They assert that every figure came, never how fast.
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import types
from importlib.machinery import SourceFileLoader

import pytest

from conftest import ROOT, free_port
from netns_tap import TapNet

sys.path.insert(0, os.path.join(ROOT, "tools"))
import irq_figures  # noqa: E402

GUEST = os.path.join(ROOT, "build", "linux-guest")
VMLINUX = os.path.join(GUEST, "vmlinux")
INITRD = os.path.join(GUEST, "initramfs.gz")

pytestmark = pytest.mark.skipif(
    not (os.path.exists(VMLINUX) and os.path.exists(INITRD)),
    reason="Linux guest not built (make linux-guest)")


def kernel_index_page():
    """The page our kernel serves at GET / (apps/www/), as the guest builder
    reads it."""
    path = os.path.join(ROOT, "tools", "build-linux-guest")
    builder = types.ModuleType("build_linux_guest")
    builder.__file__ = path
    SourceFileLoader("build_linux_guest", path).exec_module(builder)
    return builder.index_page()


@pytest.fixture
def linux(qemu):
    ports = {"epoll": free_port(), "busybox": free_port(), "echo": free_port(),
             "uecho": free_port()}
    vm = qemu.start(kernel=VMLINUX, initrd=INITRD, mem="512M", nic="virtio",
                    append="console=ttyS0 quiet panic=-1 vsl_nic=virtio",
                    hostfwd=["%d:8080" % ports["epoll"], "%d:80" % ports["busybox"],
                             "%d:7" % ports["echo"], "udp:%d:7" % ports["uecho"]])
    vm.wait_for(r"^vslinux: ready ip=10\.0\.2\.15/24 gw=10\.0\.2\.2 nic=virtio", timeout=90)
    vm.ports = ports
    return vm


def test_linux_guest_serves_our_page_keep_alive_and_echo(linux):
    page = kernel_index_page()
    # vsl_server: two requests on one connection (HTTP/1.1 keep-alive).
    conn = http.client.HTTPConnection("127.0.0.1", linux.ports["epoll"], timeout=10)
    for _ in range(2):
        conn.request("GET", "/")
        r = conn.getresponse()
        assert r.status == 200
        assert r.getheader("Connection") == "keep-alive"
        assert r.read() == page
    sock = conn.sock
    conn.request("GET", "/proc/uptime")
    r = conn.getresponse()
    up, idle = (float(x) for x in r.read().split())
    assert conn.sock is sock, "the connection was not kept alive"
    assert up > 0 and 0 <= idle <= up
    conn.close()
    # busybox httpd serves the same bytes.
    conn = http.client.HTTPConnection("127.0.0.1", linux.ports["busybox"], timeout=10)
    conn.request("GET", "/")
    r = conn.getresponse()
    assert r.status == 200 and r.read() == page
    conn.close()
    # TCP echo, then UDP echo.
    data = os.urandom(20000)
    with socket.create_connection(("127.0.0.1", linux.ports["echo"]), timeout=10) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        got = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    assert got == data
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
        u.settimeout(5)
        u.sendto(b"vs-linux udp", ("127.0.0.1", linux.ports["uecho"]))
        assert u.recv(64) == b"vs-linux udp"
    # The interrupt and idle figures bench-vs-linux takes of this guest: a
    # quiet-link echo (the guest idle before each datagram) and its QEMU's
    # idle CPU.
    rtts, lost = irq_figures.echo_series(("127.0.0.1", linux.ports["uecho"]), 3, gap_s=0.3,
                                         timeout=5, tag=b"vs-quiet")
    assert lost == 0 and len(rtts) == 3
    pid = irq_figures.qemu_pid(linux.proc.pid)
    assert pid is not None, "no qemu-system process below qemu-run"
    idle = irq_figures.idle_cpu(pid, 1.0)
    assert 0 <= idle["stat_pct"] < 100 and 0 < idle["sched_pct"] < 100


def test_linux_guest_http_refuses_malformed_request_and_keeps_serving(linux):
    with socket.create_connection(("127.0.0.1", linux.ports["epoll"]), timeout=10) as s:
        s.sendall(b"BREW /pot HTCPCP/1.0\r\n\r\n")
        assert s.recv(100) == b""  # dropped, not answered
    conn = http.client.HTTPConnection("127.0.0.1", linux.ports["epoll"], timeout=10)
    conn.request("GET", "/nowhere")
    r = conn.getresponse()
    assert r.status == 404
    r.read()
    conn.request("GET", "/")
    assert conn.getresponse().status == 200
    conn.close()


def test_linux_guest_starts_its_iperf_client_on_post_only(linux):
    """The guest->host figure asks both kernels alike: POST
    /iperf-client/PORT (a GET is refused, as by ours)."""
    port = free_port()  # nothing listens: the client ends at once
    conn = http.client.HTTPConnection("127.0.0.1", linux.ports["epoll"], timeout=10)
    conn.request("GET", "/iperf-client/%d" % port)
    r = conn.getresponse()
    assert r.status == 405
    r.read()
    conn.request("POST", "/iperf-client/%d" % port, body=b"")
    r = conn.getresponse()
    assert r.status == 200 and r.read() == b"started\n"
    conn.close()
    linux.wait_for(r"^iperf: done-client 10\.0\.2\.2:%d " % port, timeout=30)


def test_linux_guest_drives_the_e1000e_for_the_side_by_side_runs(qemu):
    """bench-vs-linux --nics e1000e: the guest loads Linux's e1000e (ptp
    and pps_core are built into Debian's kernel) on q35 and echoes."""
    echo = free_port()
    vm = qemu.start(kernel=VMLINUX, initrd=INITRD, mem="512M", nic="e1000e",
                    append="console=ttyS0 quiet panic=-1 vsl_nic=e1000e",
                    hostfwd=["%d:7" % echo])
    vm.wait_for(r"^vslinux: ready ip=10\.0\.2\.15/24 gw=10\.0\.2\.2 nic=e1000e", timeout=90)
    with socket.create_connection(("127.0.0.1", echo), timeout=10) as s:
        s.sendall(b"e1000e under Linux")
        s.shutdown(socket.SHUT_WR)
        assert s.recv(64) == b"e1000e under Linux"


def test_bench_runs_the_cold_and_host_loaded_rows_on_both_kernels(tmp_path):
    """tools/bench-vs-linux's cold row (the first echoes after boot) and
    host-loaded row (a busy process per host core), briefly: one round,
    e1000, Linux against native, every other figure left out. Each
    kernel's rows hold real round trips (timing is never judged here)."""
    out = tmp_path / "vs"
    others = ("tcp_echo,udp_rtt,iperf_h2g,quiet_udp,idle_cpu,iperf_g2h,http_ka,http_close,"
              "http_ka_busybox,http_close_busybox,noirq,host_floor,icount")
    r = subprocess.run([os.path.join(ROOT, "tools", "bench-vs-linux"), "--rounds", "1",
                        "--sections", "user", "--nics", "e1000", "--kernels", "linux,native",
                        "--ipv6", "no",
                        "--cold", "200", "--loaded", "200", "--skip", others,
                        "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    doc = json.loads(out.with_suffix(".json").read_text())
    for kernel in ("linux", "native"):
        one = doc["rounds"]["e1000"][kernel][0]
        assert "notes" not in one, one
        for row in ("cold", "loaded"):
            assert one[row + "_lost"] < 100, (kernel, one)
            assert 0 < one[row + "_rtt_median_us"] <= one[row + "_rtt_p99_us"] < 1e6, one
        assert one["loaded_load_cpu_s"] > 0, one
    md = out.with_suffix(".md").read_text()
    assert "| UDP echo RTT p99, host loaded | µs |" in md and "Host-loaded rows: " in md


def test_linux_guest_drives_the_igb_with_its_modules(qemu):
    """bench-vs-linux --nics igb: the guest loads dca, i2c-algo-bit and
    igb (tools/build-linux-guest) on q35, says which offloads it switched
    on, and echoes."""
    echo = free_port()
    vm = qemu.start(kernel=VMLINUX, initrd=INITRD, mem="512M", nic="igb",
                    append="console=ttyS0 quiet panic=-1 vsl_nic=igb",
                    hostfwd=["%d:7" % echo])
    vm.wait_for(r"^vslinux: ready ip=10\.0\.2\.15/24 gw=10\.0\.2\.2 nic=igb", timeout=90)
    assert "insmod" not in vm.log(), vm.log()  # every module loaded
    m = vm.wait_for(r"^vslinux: features eth0 (.*)$", timeout=5)
    assert {"rx-checksum", "tx-tcp-segmentation"} <= set(m.group(1).split())
    with socket.create_connection(("127.0.0.1", echo), timeout=10) as s:
        s.sendall(b"igb under Linux")
        s.shutdown(socket.SHUT_WR)
        assert s.recv(64) == b"igb under Linux"


def run_bench(tmp_path, *args):
    """tools/bench-vs-linux, one round of the smallest figures, linux and
    native only; returns its JSON report. 16 MiB under -icount: Linux's
    busy time counts in 10 ms, and with GUEST_TSO4 it received 2 MiB in
    less than that."""
    out = tmp_path / "report"
    r = subprocess.run([os.path.join(ROOT, "tools", "bench-vs-linux"), "--rounds", "1",
                        "--kernels", "linux,native", "--seconds", "1",
                        "--icount-bytes", str(16 << 20), "--out", str(out),
                        "--log-dir", str(tmp_path / "logs")] + list(args),
                       capture_output=True, text=True, timeout=1500)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    with open(str(out) + ".json") as f:
        return json.load(f)


# Every figure of the tap section, each a rate, a time or a count > 0.
TAP_FIGURES = ("iperf_h2g4_mbps", "iperf_h2g6_mbps", "iperf_g2h4_mbps", "iperf_g2h6_mbps",
               "http_ka_rps", "http_close_rps", "udp4_rtt_median_us", "udp4_rtt_p99_us",
               "udp6_rtt_median_us", "udp6_rtt_p99_us", "loaded4_rtt_p99_us",
               "loaded4_load_cpu_s", "instr_per_rx_segment",
               "instr_per_tx_segment", "boot_s")


@pytest.mark.skipif(TapNet.unavailable() is not None, reason=str(TapNet.unavailable()))
def test_bench_tap_section_measures_every_figure_and_names_the_offloads(tmp_path):
    """The tap section, briefly, on virtio-net (vnet headers: both guests
    negotiate checksum offload and TSO) and igb: every figure measured
    for both guests, and the offloads each one switched on named."""
    rep = run_bench(tmp_path, "--sections", "tap", "--nics", "virtio,igb")
    runs = rep["tap"]["rounds"]
    for nic in ("virtio", "igb"):
        for k in ("linux", "native"):
            one = runs[nic][k][0]
            assert not one.get("notes"), (nic, k, one)
            for key in TAP_FIGURES:
                assert one.get(key, 0) > 0, (nic, k, key, one)
    virtio = runs["virtio"]
    for k in ("linux", "native"):
        assert {"csum", "guest_tso4", "host_tso4"} <= set(virtio[k][0]["offloads"]["virtio"])
    assert "tx-tcp-segmentation" in virtio["linux"][0]["offloads"]["features"]
    assert {"tx_csum", "rx_csum", "tso"} <= set(runs["igb"]["native"][0]["offloads"]["features"])
    assert "rx-checksum" in runs["igb"]["linux"][0]["offloads"]["features"]
    labels = [r["label"] for r in rep["tap"]["summary"]["igb"]]
    assert "guest instructions per sent TCP segment (-icount)" in labels


def test_bench_igb_section_on_user_networking(tmp_path):
    """The user-net section on igb: the same figures as e1000/e1000e (the
    slow interrupt and idle ones left out here), for both guests."""
    rep = run_bench(tmp_path, "--sections", "user", "--nics", "igb", "--ipv6", "no",
                    "--skip", "quiet_udp,idle_cpu,noirq,host_floor,http_ka_busybox,"
                    "http_close_busybox,cold_udp,loaded_udp")
    for k in ("linux", "native"):
        one = rep["rounds"]["igb"][k][0]
        assert not one.get("notes"), (k, one)
        for key in ("iperf_h2g_mbps", "iperf_g2h_mbps", "http_ka_rps", "http_close_rps",
                    "udp_rtt_median_us", "instr_per_rx_segment"):
            assert one.get(key, 0) > 0, (k, key, one)
        assert one["tcp_echo_256k_ok"] == 1
