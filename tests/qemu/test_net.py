"""Networking end to end: virtio-net, e1000, e1000e and igb + lwIP reached from the host
with real clients (curl, nc, iperf2, ping).

Every test boots its own QEMU (through the shared runner, conftest.py) with
its own MAC address and its own free host ports, so tests can run side by
side. Readiness comes from the guest's serial line

    net: eth0 up ip=10.0.2.15/24 mac=... nic=virtio
    net: listening tcp/7 udp/7 tcp/80 tcp/5001 icmp net_alloc=...

never from a port being open: QEMU's user-net forward accepts connections
before the guest listens. The integration tests run once per NIC
(virtio, e1000, e1000e, igb) and allocator mode (net_alloc=stock|native): the same test
functions, parametrised.
"""
import json
import os
import random
import re
import shutil
import socket
import subprocess
import time
import uuid

import pytest

from conftest import free_port, free_udp_port, skip_unless_qemu_has
from udp_echo_client import udp_echo

NET_TIMEOUT = 60  # boot + DHCP under TCG on a loaded machine
CLIENT_TIMEOUT = 60
ALLOC_MODES = ["stock", "native"]


def random_mac():
    """A locally administered unicast MAC no other test is using."""
    return "52:54:00:%02x:%02x:%02x" % tuple(random.randrange(256) for _ in range(3))


def serial_stats(con, first, fail):
    """/stats.json's document over the serial shell's `stats` on console
    con (first: bring up the prompt first). A kernel message may come out
    between the command and its JSON line (the IPv6 address's state,
    say): the document is the line with "{". fail(msg) on anything else."""
    if first:
        con.send(b"\r")
        con.expect(rb"shell> ", NET_TIMEOUT)
    text = con.command("stats", 60)
    line = next((ln for ln in text.splitlines() if ln.startswith("{")), "")
    try:
        return json.loads(line)
    except ValueError as e:
        fail("shell stats is not JSON (%s): %r" % (e, text[:400]))


class NetVM:
    """A booted guest with user networking and forwarded host ports."""

    def __init__(self, qemu, alloc, nic="virtio", append="", machine=None, smp=2, **start):
        """start: more Qemu.start() arguments (numa=, mem=, ...)."""
        skip_unless_qemu_has(nic)
        self.alloc = alloc
        self.nic = nic
        self.shell_ready = False  # Enter pressed, prompt seen (shell_stats)
        if nic in ("e1000", "e1000e", "igb"):
            append = ("nic=%s %s" % (nic, append)).strip()
        self.mac = random_mac()
        self.http, self.echo, self.iperf = free_port(), free_port(), free_port()
        self.uecho = free_udp_port()
        fwd = ["%d:80" % self.http, "%d:7" % self.echo, "%d:5001" % self.iperf,
               "udp:%d:7" % self.uecho]
        self.vm = qemu.start(append=("net_alloc=%s %s" % (alloc, append)).strip(),
                             smp=smp, nic=nic, hostfwd=fwd, mac=self.mac, machine=machine,
                             **start)
        m = self.vm.wait_for(r"^net: eth0 up ip=(\S+) mac=(\S+) nic=(\S+)", NET_TIMEOUT)
        self.ip, self.guest_mac, self.kind = m.group(1), m.group(2), m.group(3)
        self.vm.wait_for(r"^net: listening .*", NET_TIMEOUT)

    def fail(self, msg):
        pytest.fail("%s\n%s" % (msg, self.vm.describe()), pytrace=False)

    def run(self, argv, data=None, timeout=CLIENT_TIMEOUT):
        try:
            r = subprocess.run(argv, input=data, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.fail("client timed out after %ss: %s" % (timeout, " ".join(argv)))
        return r

    def curl(self, path):
        r = self.run(["curl", "-sS", "-f", "-m", "20",
                      "http://127.0.0.1:%d%s" % (self.http, path)])
        if r.returncode != 0:
            self.fail("curl %s failed (%d): %s" % (path, r.returncode, r.stderr.decode()))
        return r.stdout

    def post(self, path):
        """The body of POST path: an action (the guest needs
        http_control=1)."""
        r = self.run(["curl", "-sS", "-f", "-m", "20", "-X", "POST",
                      "http://127.0.0.1:%d%s" % (self.http, path)])
        if r.returncode != 0:
            self.fail("curl -X POST %s failed (%d): %s" % (path, r.returncode, r.stderr.decode()))
        return r.stdout

    def stats(self):
        body = self.curl("/stats.json")
        try:
            return json.loads(body)
        except ValueError as e:
            self.fail("/stats.json is not JSON (%s): %r" % (e, body[:400]))

    def shell_stats(self):
        """The same document read over the serial shell's `stats` (start
        with serial_socket=True): no connection, no lwIP work in the guest,
        so reading costs the network counters nothing."""
        doc = serial_stats(self.vm.serial(), not self.shell_ready, self.fail)
        self.shell_ready = True
        return doc

    def tcp_echo(self, data):
        return self.run(["nc", "-N", "-w", "20", "127.0.0.1", str(self.echo)], data).stdout

    def udp_echo(self, data):
        return udp_echo("127.0.0.1", self.uecho, data)


# e1000e (the 82574L) and igb (the 82576) are PCIe parts: tools/qemu-run
# boots them on q35.
NICS = ["virtio", "e1000", "e1000e", "igb"]


@pytest.fixture(params=[(a, n) for n in NICS for a in ALLOC_MODES],
                ids=lambda p: "%s-%s" % (p[1], p[0]))
def netvm(request, qemu):
    alloc, nic = request.param
    return NetVM(qemu, alloc, nic=nic)


def test_dhcp_gives_user_net_address_and_report_line(netvm):
    assert netvm.ip == "10.0.2.15/24", netvm.vm.describe()
    assert netvm.guest_mac == netvm.mac, netvm.vm.describe()
    assert netvm.kind == netvm.nic, netvm.vm.describe()


def test_boot_report_lists_pci_devices_and_nic(netvm):
    log = netvm.vm.log()
    assert re.search(r"^pci: \d+ functions via (ecam|legacy)$", log, re.M), netvm.vm.describe()
    pci_id = {"virtio": "1af4:10(00|41)", "e1000": "8086:100e",
              "e1000e": "8086:10d3", "igb": "8086:10c9"}[netvm.nic]
    driver = {"virtio": "virtio-net", "e1000": "e1000", "e1000e": "e1000e",
              "igb": "igb"}[netvm.nic]
    assert re.search(r"^pci: 00:\w\w\.\d %s class 0200" % pci_id, log, re.M), netvm.vm.describe()
    assert re.search(r"^%s: eth0 .*mac=%s" % (driver, netvm.mac), log, re.M), netvm.vm.describe()


def test_boot_uses_the_requested_allocator_mode(netvm):
    line = netvm.vm.wait_for(r"^net: listening .*").group(0)
    assert line.endswith("net_alloc=%s" % netvm.alloc), netvm.vm.describe()


def test_http_index_page(netvm):
    body = netvm.curl("/").decode()
    assert "<html>" in body and "/stats.json" in body, body


def test_http_unknown_path_is_404(netvm):
    r = netvm.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "20",
                   "http://127.0.0.1:%d/no-such-page" % netvm.http])
    assert r.stdout.decode() == "404", netvm.vm.describe()


def test_stats_json_has_every_section(netvm):
    st = netvm.stats()
    for key in ("buddyinfo", "zoneinfo", "numastat", "slabinfo", "mm_debug",
                "qmempool", "page_frag", "nic", "net_mem", "tcp_ooseq", "lwip"):
        assert st.get(key) is not None, "section %s missing or null: %s" % (key, list(st))
    # A clean run reports no allocator misuse of any kind.
    assert set(st["mm_debug"]) >= {"double_free", "invalid_free", "not_allocated",
                                   "write_after_free", "red_zone", "debug_on"}
    assert all(v == 0 for k, v in st["mm_debug"].items() if k != "debug_on"), st["mm_debug"]
    assert st["nic"]["eth0"]["kind"] == netvm.nic
    assert st["net_mem"]["mode"] == netvm.alloc
    # The kept /stats.json buffer takes no larger block than the document
    # does: slack past the power of two cost the 8 MiB guest its only
    # free block of that order (503).
    body = netvm.curl("/stats.json")
    doc, buf = len(body), json.loads(body)["http"]["stats_buf_bytes"]
    block = 4096
    while block < doc + 1024:  # the server asks for the size it measured + 512
        block *= 2
    assert doc <= buf <= block, "document %d bytes, buffer %d" % (doc, buf)


@pytest.mark.parametrize("alloc", ALLOC_MODES)
def test_stats_json_stays_valid_under_mm_debug(qemu, alloc):
    """With mm_debug=1 freed memory is poisoned: a response body freed
    before TCP sent it shows up as a corrupt document or a dead guest."""
    vm = NetVM(qemu, alloc, append="mm_debug=1")
    for _ in range(3):
        st = vm.stats()
        assert st["net_mem"]["mode"] == alloc
    assert b"<html>" in vm.curl("/")
    # Real traffic with every debug check on (poison checked when pages
    # are reused, red zones on every kmalloc size): nothing reported.
    st = vm.stats()
    assert st["mm_debug"]["debug_on"] is True
    assert all(v == 0 for k, v in st["mm_debug"].items() if k != "debug_on"), \
        st["mm_debug"]


def test_stats_json_counters_move_with_traffic(netvm):
    before = netvm.stats()
    netvm.tcp_echo(os.urandom(64 * 1024))
    after = netvm.stats()
    for key in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes"):
        assert after["nic"]["eth0"][key] > before["nic"]["eth0"][key], key
    assert after["lwip"]["tcp"]["recv"] > before["lwip"]["tcp"]["recv"]


def test_tcp_echo_round_trip(netvm):
    assert netvm.tcp_echo(b"hello, lwIP\n") == b"hello, lwIP\n"


def test_tcp_echo_1mib_is_byte_identical(netvm):
    data = os.urandom(1 << 20)
    out = netvm.tcp_echo(data)
    assert len(out) == len(data), "echoed %d of %d bytes" % (len(out), len(data))
    assert out == data


def gro_counts(vm):
    nic = vm.stats()["nic"]["eth0"]
    return nic["rx_gro_packets"], nic["rx_gro_segs"]


def rx_counts(vm):
    """(frames the NIC took in, IPv4 packets lwIP took in, joined packets,
    frames joined into them)."""
    st = vm.stats()
    nic = st["nic"]["eth0"]
    return (nic["rx_packets"], st["lwip"]["ip"]["recv"], nic["rx_gro_packets"],
            nic["rx_gro_segs"])


# Frames of a 1 MiB echo that are neither IPv4 nor joined: ARP and IPv6
# from QEMU's user network, if any comes during the second it takes.
OTHER_FRAMES = 16


def test_a_bulk_receive_is_coalesced_and_echoed_byte_identical(netvm):
    """1 MiB from the host: its segments arrive in bursts of the window,
    and consecutive ones of a burst go into lwIP joined (net/rx_gro.c).
    Joined means lwIP takes fewer packets than the NIC took frames: a
    packet of k frames is one IPv4 packet to lwIP, so every frame that
    went in inside another's packet (segs - packets of them) is one that
    lwIP's IP input never counted. With the joins counted but the frames
    handed in one by one, lwIP's count would be the NIC's."""
    f0, ip0, p0, s0 = rx_counts(netvm)
    data = os.urandom(1 << 20)
    assert netvm.tcp_echo(data) == data
    f1, ip1, p1, s1 = rx_counts(netvm)
    frames, ip_in, joined = f1 - f0, ip1 - ip0, (s1 - s0) - (p1 - p0)
    assert p1 > p0, netvm.vm.describe()
    # Every frame reached lwIP alone or inside a joined packet; what is
    # left over is the few frames that are not IPv4 (ARP, IPv6 router
    # advertisements: 0 in the runs measured).
    other = frames - ip_in - joined
    assert 0 <= other <= OTHER_FRAMES, \
        "lwIP took %d IPv4 packets from %d frames, %d of them joined into others" \
        % (ip_in, frames, joined)
    print("%s/%s: %d frames, %d packets joined from %d segments, lwIP took %d IPv4 packets"
          % (netvm.nic, netvm.alloc, frames, p1 - p0, s1 - s0, ip_in))


def test_a_coalesced_stream_draws_one_ack_per_packet_and_no_resends(netvm):
    """8 MiB from the host's iperf: lwIP acknowledges each joined packet
    once (fewer ACKs than half the frames, lwIP's every-second-segment
    rate without joining), and the sender resends nothing, since nothing
    was lost on the way. An ACK per joined segment for in-order packets
    (a sequence number compared in the wrong byte order) made QEMU's
    user-network TCP count duplicate ACKs and resend about a fifth of
    the stream: 28,600 frames for 23,000 segments, 28,600 ACKs."""
    def counts():
        st = netvm.stats()
        return st["nic"]["eth0"]["rx_packets"], st["lwip"]["tcp"]["xmit"]
    f0, a0 = counts()
    r = netvm.run(["iperf", "-c", "127.0.0.1", "-p", str(netvm.iperf), "-n", "8M",
                   "-y", "C"], timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    f1, a1 = counts()
    frames, acks = f1 - f0, a1 - a0
    segments = (8 << 20) // 1460
    print("%s/%s: %d frames for %d segments, %d segments sent"
          % (netvm.nic, netvm.alloc, frames, segments, acks))
    # The handshake, the end and the stats requests' own few frames aside.
    assert frames <= segments * 1.02 + 32, \
        "%d frames for %d segments: the sender resent" % (frames, segments)
    assert acks * 2 < frames, "%d ACKs for %d frames" % (acks, frames)


def test_net_gro_off_joins_nothing_and_echoes_byte_identical(qemu):
    vm = NetVM(qemu, "native", append="net_gro=off")
    data = os.urandom(1 << 20)
    assert vm.tcp_echo(data) == data
    assert gro_counts(vm) == (0, 0)


def http_get_close(port, local_port=None, timeout=20):
    """GET / over HTTP/1.0 on a new connection (the guest closes first and
    keeps the pair in TIME_WAIT), from local_port if given; returns the
    answer."""
    with socket.socket() as s:
        if local_port:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", local_port))
        s.settimeout(timeout)
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                return data
            data += b


def test_a_client_reusing_its_port_is_served_while_the_old_pair_is_in_time_wait(qemu):
    """A client that opens the pair again (same source port, as NAT and
    busy clients do) while the guest still holds the last connection in
    TIME_WAIT: its SYN lies above the old sequence space and reopens the
    pair. Before lwIP patch 0013 the guest answered it with an ACK of the
    old connection and the client timed out (QEMU's user network passes
    the host client's port through, which once made one request in
    thousands of a CI run time out)."""
    vm = NetVM(qemu, "native")
    with socket.socket() as probe:  # a port nothing else holds now
        probe.bind(("127.0.0.1", 0))
        local_port = probe.getsockname()[1]
    for round_ in range(3):
        answer = http_get_close(vm.http, local_port, timeout=15)
        assert b" 200 OK\r\n" in answer, (round_, answer[:200])


def test_udp_echo_round_trip(netvm):
    msg = ("datagram %s\n" % uuid.uuid4()).encode()
    assert netvm.udp_echo(msg) == msg


def test_iperf2_tcp_5s_reports_nonzero_rate(netvm):
    r = netvm.run(["iperf", "-c", "127.0.0.1", "-p", str(netvm.iperf), "-t", "5",
                   "-y", "C"], timeout=40)
    assert r.returncode == 0, r.stderr.decode()
    fields = r.stdout.decode().strip().splitlines()[-1].split(",")
    assert int(fields[-1]) > 0, r.stdout
    assert int(fields[-2]) > 0, r.stdout
    # lwiperf's own report line: the guest saw the same test end.
    netvm.vm.wait_for(r"^iperf: done \S+ bytes=[1-9]\d* ms=\d+ kbps=[1-9]\d*", 20)


def in_use(st):
    """Packet-buffer counters that must return to their idle values."""
    memp = st["lwip"]["memp"]
    nic = st["nic"]["eth0"]
    return {
        "rx_pbufs_in_use": st["net_mem"]["rx_pbufs_in_use"],
        "PBUF_POOL": memp["PBUF_POOL"]["used"],
        "PBUF": memp["PBUF"]["used"],
        "TCP_SEG": memp["TCP_SEG"]["used"],
        "tx_inflight": nic["tx_inflight"],
        "rx_bufs_posted": nic["rx_bufs_posted"],
    }


def test_no_packet_buffer_leak_after_traffic(netvm):
    netvm.stats()  # warm up: ARP for the host, first-connection state
    baseline = in_use(netvm.stats())
    data = os.urandom(256 * 1024)
    assert netvm.tcp_echo(data) == data
    for i in range(20):
        netvm.udp_echo(b"x" * (100 + i))
    # Give TCP's last ACKs and TX completions a moment to land.
    deadline = time.monotonic() + 10
    while True:
        now = in_use(netvm.stats())
        if now == baseline or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert now == baseline, "after traffic %s, baseline %s" % (now, baseline)


@pytest.mark.parametrize("alloc", ALLOC_MODES)
def test_legacy_virtio_transport_boots_and_answers(qemu, alloc):
    vm = NetVM(qemu, alloc, nic="virtio-legacy")
    assert vm.kind == "virtio-legacy", vm.vm.describe()
    assert vm.tcp_echo(b"legacy\n") == b"legacy\n"
    assert b"<html>" in vm.curl("/")


def test_modern_only_virtio_device_boots_and_answers(qemu):
    vm = NetVM(qemu, "native", nic="virtio-modern")
    assert vm.kind == "virtio", vm.vm.describe()
    assert vm.tcp_echo(b"modern\n") == b"modern\n"


def test_q35_enumerates_pci_through_ecam_and_answers(qemu):
    vm = NetVM(qemu, "native", machine="q35")
    assert re.search(r"^pci: \d+ functions via ecam$", vm.vm.log(), re.M), vm.vm.describe()
    assert vm.tcp_echo(b"q35\n") == b"q35\n"


def bad_value_line(log, key, value, default):
    """cmdline.c's report of one refused value (not the boot report's echo
    of the whole command line, which names every value too)."""
    return re.search(r"^cmdline: bad value '%s' for %s \(expected .+\), using default '%s'$"
                     % (re.escape(value), key, re.escape(default)), log, re.M)


def test_bad_network_values_are_reported_and_defaults_used(qemu):
    vm = NetVM(qemu, "native", append="ip=300.1.2.3/99 app=echo,bogus")
    log = vm.vm.log()
    assert bad_value_line(log, "ip", "300.1.2.3/99", "dhcp"), vm.vm.describe()
    assert bad_value_line(log, "app", "echo,bogus", "echo,http,iperf"), vm.vm.describe()
    assert vm.ip == "10.0.2.15/24"  # the default, DHCP
    # The default app list, not "echo" alone: every service listens.
    assert re.search(r"^net: listening tcp/7 udp/7 tcp/80 tcp/5001 ", log, re.M), vm.vm.describe()
    assert b"<html>" in vm.curl("/")


def test_ip_with_prefix_0_is_a_bad_value_not_silently_dhcp(qemu):
    vm = NetVM(qemu, "native", append="ip=10.0.2.77/0")
    log = vm.vm.log()
    assert bad_value_line(log, "ip", "10.0.2.77/0", "dhcp"), vm.vm.describe()
    assert vm.ip == "10.0.2.15/24"  # the default, DHCP
    assert vm.tcp_echo(b"prefix\n") == b"prefix\n"


# ---- ping over tap, inside a network namespace the test owns ----

def tap_unavailable():
    if os.geteuid() != 0:
        return "needs root to create a network namespace and a tap device"
    if not shutil.which("ip") or not shutil.which("ping"):
        return "needs iproute2 and iputils-ping"
    if not os.path.exists("/dev/net/tun"):
        return "/dev/net/tun is missing"
    return None


@pytest.fixture
def netns():
    reason = tap_unavailable()
    if reason:
        pytest.skip(reason)
    name = "nettest-%d-%d" % (os.getpid(), random.randrange(1 << 20))
    sh = lambda *a: subprocess.run(["ip", "netns", "exec", name] + list(a),
                                   check=True, capture_output=True, timeout=10)
    r = subprocess.run(["ip", "netns", "add", name], capture_output=True)
    if r.returncode != 0:
        pytest.skip("cannot create a network namespace: %s" % r.stderr.decode().strip())
    try:
        try:
            sh("ip", "tuntap", "add", "dev", "tap0", "mode", "tap")
        except subprocess.CalledProcessError as e:
            pytest.skip("cannot create a tap device: %s" % e.stderr.decode().strip())
        sh("ip", "addr", "add", "192.168.76.1/24", "dev", "tap0")
        sh("ip", "link", "set", "tap0", "up")
        sh("ip", "link", "set", "lo", "up")
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


@pytest.mark.parametrize("nic", NICS)
@pytest.mark.parametrize("alloc", ALLOC_MODES)
def test_ping_over_tap_in_netns(qemu, netns, alloc, nic):
    skip_unless_qemu_has(nic)
    mac = random_mac()
    vm = qemu.start(netns=netns, smp=2, nic=nic, net="tap:tap0", mac=mac,
                    append="nic=%s net_alloc=%s ip=192.168.76.2/24 gw=192.168.76.1" % (nic, alloc))
    vm.wait_for(r"^net: eth0 up ip=192\.168\.76\.2/24 mac=%s nic=%s" % (mac, nic), NET_TIMEOUT)
    r = subprocess.run(["ip", "netns", "exec", netns, "ping", "-c", "3", "-W", "5",
                        "-i", "0.3", "192.168.76.2"], capture_output=True, timeout=40)
    assert r.returncode == 0, "%s\n%s" % (r.stdout.decode(), vm.describe())
    assert b" 0% packet loss" in r.stdout, r.stdout.decode()


@pytest.mark.parametrize("alloc", ALLOC_MODES)
def test_tcp_echo_1mib_over_tap_is_byte_identical(qemu, netns, alloc):
    """Over a tap the host keeps the echo's receive window full, so the
    echo app always has data waiting while it sends (user-net's slower
    pace hid this): the bytes must still all come back, in order."""
    mac = random_mac()
    vm = qemu.start(netns=netns, smp=1, nic="virtio", net="tap:tap0", mac=mac,
                    append="net_alloc=%s ip=192.168.76.2/24 gw=192.168.76.1" % alloc)
    vm.wait_for(r"^net: listening .*net_alloc=%s" % alloc, NET_TIMEOUT)
    data = os.urandom(1 << 20)
    r = subprocess.run(["ip", "netns", "exec", netns, "nc", "-N", "-w", "20", "192.168.76.2",
                        "7"], input=data, capture_output=True, timeout=CLIENT_TIMEOUT)
    assert len(r.stdout) == len(data), "echoed %d of %d bytes\n%s" % (
        len(r.stdout), len(data), vm.describe())
    assert r.stdout == data


def test_virtio_and_e1000_in_one_vm_both_answer(qemu):
    """nic=all: each NIC gets its own netif; each answers on its own
    user network (10.0.2.0/24 behind virtio, 10.0.3.0/24 behind e1000)."""
    mac0, mac1 = random_mac(), random_mac()
    p0, p1 = free_port(), free_port()
    vm = qemu.start(append="nic=all", smp=2, nic="virtio", hostfwd=["%d:7" % p0], mac=mac0,
                    extra=["-netdev", "user,id=n1,net=10.0.3.0/24,hostfwd=tcp:127.0.0.1:%d-:7" % p1,
                           "-device", "e1000,netdev=n1,mac=%s" % mac1])
    vm.wait_for(r"^net: eth0 up ip=10\.0\.2\.15/24 mac=%s nic=virtio" % mac0, NET_TIMEOUT)
    vm.wait_for(r"^net: eth1 up ip=10\.0\.3\.15/24 mac=%s nic=e1000" % mac1, NET_TIMEOUT)
    vm.wait_for(r"^net: listening ", NET_TIMEOUT)
    for port, msg in ((p0, b"via virtio\n"), (p1, b"via e1000\n")):
        r = subprocess.run(["nc", "-N", "-w", "20", "127.0.0.1", str(port)], input=msg,
                           capture_output=True, timeout=CLIENT_TIMEOUT)
        assert r.stdout == msg, "%r\n%s" % (r.stdout, vm.describe())
