"""A guest on a tap device inside a network namespace the caller owns.

The real NIC path (virtio-net or e1000 under QEMU, no user-net NAT in the
way): the host side of the tap is an ordinary Linux interface, so any
client (ping -f, iperf, wrk, scapy's raw frames) reaches the guest as it
would on a wire. Usable from pytest (the `tap_net` fixture of the tests
that import it) and from tools (tools/soak):

    with TapNet() as net:                  # namespace + tap0, removed after
        g = net.start_guest(workdir, nic="e1000", alloc="native")
        g.wait_ready()
        net.run(["ping", "-c", "3", g.ip])  # any command, inside the namespace
        g.stats()                           # /stats.json, parsed

Needs root, iproute2 and /dev/net/tun (TapNet.unavailable() says why not).
"""
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qemu_guest  # noqa: E402
from qemu_guest import KERNEL, random_mac  # noqa: E402,F401

PYTHON = "/usr/bin/python3"  # Debian's, where python3-scapy lives


class GuestError(qemu_guest.GuestFailed):
    """The guest did not answer, or answered wrong (message has the log)."""


class TapNet:
    """Namespace NAME with tap0 = HOST_IP/24 (MTU mtu), up. The guest is
    GUEST_IP on the same /24. queues > 1: tap0 is a multi_queue tap and
    each guest's NIC gets that many of its queues (qemu-run --queues)."""

    def __init__(self, subnet=None, mtu=1500, queues=1):
        third = random.randrange(16, 250) if subnet is None else subnet
        self.ns = "tapnet-%d-%d" % (os.getpid(), random.randrange(1 << 20))
        self.host_ip = "192.168.%d.1" % third
        self.guest_ip = "192.168.%d.2" % third
        self.mtu = mtu
        self.queues = queues
        self.guests = []

    @staticmethod
    def unavailable():
        """Why a TapNet cannot be made here, or None."""
        if os.geteuid() != 0:
            return "needs root to create a network namespace and a tap device"
        if not shutil.which("ip"):
            return "needs iproute2"
        if not os.path.exists("/dev/net/tun"):
            return "/dev/net/tun is missing"
        return None

    def run(self, argv, timeout=60, check=False, data=None):
        """Runs argv inside the namespace; returns CompletedProcess."""
        try:
            r = subprocess.run(["ip", "netns", "exec", self.ns] + list(argv), input=data,
                               capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise GuestError("timed out after %ss: %s" % (timeout, " ".join(argv)))
        if check and r.returncode != 0:
            raise GuestError("%s failed (%d): %s" % (" ".join(argv), r.returncode,
                                                       r.stderr.decode(errors="replace")))
        return r

    def __enter__(self):
        r = subprocess.run(["ip", "netns", "add", self.ns], capture_output=True)
        if r.returncode != 0:
            raise GuestError("ip netns add: %s" % r.stderr.decode().strip())
        try:
            self.run(["ip", "tuntap", "add", "dev", "tap0", "mode", "tap"]
                     + (["multi_queue"] if self.queues > 1 else []), check=True)
            self.run(["ip", "link", "set", "tap0", "mtu", str(self.mtu)], check=True)
            self.run(["ip", "addr", "add", self.host_ip + "/24", "dev", "tap0"], check=True)
            self.run(["ip", "link", "set", "tap0", "up"], check=True)
            self.run(["ip", "link", "set", "lo", "up"], check=True)
        except Exception:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for g in self.guests:
            g.stop()
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)

    def start_guest(self, workdir, nic="virtio", alloc="native", append="", mem=None,
                    smp=2, vnet_hdr=None, kernel=None, icount=False, qemu_args=()):
        """vnet_hdr "on"/"off" sets the tap's virtio-net headers (None:
        QEMU's default, on where the kernel's tap has them); kernel: another
        ELF than build/kernel.elf; icount: -icount shift=0; qemu_args: more
        QEMU arguments (e.g. a TCG plugin)."""
        g = TapGuest(self, workdir, nic, alloc, append, mem, smp, vnet_hdr, kernel, icount,
                     qemu_args)
        self.guests.append(g)
        return g


class TapGuest(qemu_guest.Guest):
    """The kernel booted in QEMU on the namespace's tap0."""

    log_tail = 60000

    def __init__(self, net, workdir, nic, alloc, append, mem, smp, vnet_hdr=None,
                 kernel=None, icount=False, qemu_args=()):
        self.net, self.nic, self.alloc = net, nic, alloc
        self.mac = random_mac()
        cmdline = "nic=%s net_alloc=%s ip=%s/24 gw=%s %s" % (
            nic, alloc, net.guest_ip, net.host_ip, append)
        super().__init__(os.path.join(workdir, "tap%d.serial.log" % len(net.guests)),
                         ip=net.guest_ip, netns=net.ns, kernel=kernel or KERNEL, smp=smp,
                         nic=nic, net="tap:tap0", mac=self.mac, append=cmdline.strip(),
                         mem=mem, vnet_hdr=vnet_hdr, icount=icount, services={"http": "80"},
                         queues=net.queues if net.queues > 1 else None, qemu_args=qemu_args)

    def fail(self, msg):
        raise GuestError("%s\n%s" % (msg, self.describe()))

    def wait_ready(self, timeout=60):
        self.wait_for(r"^net: eth0 up ip=%s/24 mac=%s" % (re.escape(self.ip), self.mac),
                      timeout)
        self.wait_for(r"^net: listening ", timeout)

    # ---- clients, run inside the namespace ----

    def http(self, path="/", timeout=20):
        """The body of GET path, fetched with curl inside the namespace."""
        return self.get(path, timeout=timeout)

    def ping(self, count=3):
        r = self.net.run(["ping", "-c", str(count), "-W", "5", "-i", "0.2", self.ip],
                         timeout=40)
        if r.returncode != 0:
            raise GuestError("ping failed: %s\n%s" % (r.stdout.decode(), self.describe()))

    def tcp_echo(self, data):
        r = self.net.run(["nc", "-N", "-w", "20", self.ip, "7"], data=data, timeout=60)
        if r.stdout != data:
            raise GuestError("tcp echo: %d of %d bytes back\n%s"
                             % (len(r.stdout), len(data), self.describe()))

    def udp_echo(self, data):
        for _ in range(3):  # UDP may drop under load: retry
            r = self.net.run([PYTHON, os.path.join(HERE, "udp_echo_client.py"), self.ip, "7"],
                             data=data, timeout=30)
            if r.stdout == data:
                return
        raise GuestError("udp echo: %r for %r\n%s" % (r.stdout[:80], data[:80],
                                                       self.describe()))

    def probe(self, within=30, stats=True):
        """tests/qemu/netns_probe.py in the namespace: ping, HTTP, TCP and
        UDP echo each retried up to `within` s. Returns its JSON object
        (ok, secs, errors, stats)."""
        r = self.net.run([PYTHON, os.path.join(HERE, "netns_probe.py"), self.ip,
                          "--within", str(within)] + (["--stats"] if stats else []),
                         timeout=within + 60)
        try:
            return json.loads(r.stdout)
        except ValueError:
            raise GuestError("probe gave no answer: %r %r\n%s" % (
                r.stdout[-300:], r.stderr[-1000:], self.describe()))

    # Every phase of hostile_frames.py, in the order tools/soak runs them.
    ALL_PHASES = ["ether", "arp", "ipv4", "icmp", "tcp", "udp", "frags", "syn-flood",
                  "syn-flood-unanswered",
                  "udp-flood", "icmp-flood", "csum"]

    def send_hostile(self, phases, count, rate, seed=1, probe=0, ip6=None, adaptive=False,
                     settle=0, timeout=None, router6=None, offlink6=None):
        """tests/qemu/hostile_frames.py in the namespace: count frames of
        each phase (a list), the guest probed after each if probe > 0 (s);
        ip6: the guest's address on the tap's /64 (phases ipv6, frags6,
        nd6); router6, offlink6: the real router's link-local address and
        an address reached through it (phase nd6);
        adaptive: pace to what the guest takes in, rate at most; settle > 0:
        after each phase wait up to that long for the buffers to be back at
        the baseline read before the first phase. timeout: the whole run's
        bound (default: from count, rate, probe and settle).
        Returns its JSON object (sent, errors, tap_dropped, distinct, secs,
        probes, phases)."""
        if timeout is None:
            timeout = len(phases) * (count / rate * 3 + probe + settle + 30) + 60
        r = self.net.run([PYTHON, os.path.join(HERE, "hostile_frames.py"), "--iface", "tap0",
                          "--guest-ip", self.ip, "--guest-mac", self.mac,
                          "--phase", ",".join(phases), "--count", str(count),
                          "--rate", str(rate), "--seed", str(seed), "--probe", str(probe),
                          "--settle", str(settle)]
                         + (["--guest-ip6", ip6] if ip6 else [])
                         + (["--router6", router6] if router6 else [])
                         + (["--offlink6", offlink6] if offlink6 else [])
                         + (["--adaptive"] if adaptive else []),
                         timeout=timeout)
        try:
            return json.loads(r.stdout)
        except ValueError:
            raise GuestError("hostile_frames %s failed: %s" % (",".join(phases), r.stderr.decode()[-2000:]))

    def check_answers(self, tag=""):
        """Ping, HTTP, TCP and UDP echo all answer correctly."""
        self.ping()
        if b"<html>" not in self.http("/"):
            raise GuestError("HTTP / has no page\n" + self.describe())
        self.tcp_echo(os.urandom(32 * 1024))
        self.udp_echo(("udp %s %s\n" % (tag, os.urandom(4).hex())).encode())


def buffers_in_use(st):
    """Packet-buffer counters that return to their idle values once the
    traffic is over (TCP pcbs are left out: TIME_WAIT keeps them 2 min)."""
    memp = st["lwip"]["memp"]
    nic = st["nic"]["eth0"]
    return {
        "rx_pbufs_in_use": st["net_mem"]["rx_pbufs_in_use"],
        "PBUF_POOL": memp["PBUF_POOL"]["used"],
        "PBUF": memp["PBUF"]["used"],
        "TCP_SEG": memp["TCP_SEG"]["used"],
        "REASSDATA": memp["REASSDATA"]["used"],
        "ARP_QUEUE": memp.get("ARP_QUEUE", {}).get("used", 0),
        # IPv6: datagrams in reassembly, packets waiting for neighbour
        # discovery, fragments being sent.
        "IP6_REASSDATA": memp.get("IP6_REASSDATA", {}).get("used", 0),
        "ND6_QUEUE": memp.get("ND6_QUEUE", {}).get("used", 0),
        "FRAG_PBUF": memp.get("FRAG_PBUF", {}).get("used", 0),
        "tx_inflight": nic["tx_inflight"],
        "rx_bufs_posted": nic["rx_bufs_posted"],
    }


def resting_buffers(guest, timeout=10):
    """buffers_in_use once no frame is in flight: the baseline that
    wait_buffers_back compares with. Every queue reaps its completions
    before it sleeps, so at rest tx_inflight is 0 -- but a snapshot taken
    while another vCPU has just sent a frame (a timer's ND or MLD message,
    its vCPU thread not yet run again by a loaded host) counts that frame,
    and no later snapshot would match it."""
    end = time.monotonic() + timeout
    while True:
        now = buffers_in_use(guest.stats())
        if now["tx_inflight"] == 0 or time.monotonic() > end:
            return now
        time.sleep(0.2)


def wait_buffers_back(guest, baseline, timeout=30):
    """Polls /stats.json until buffers_in_use equals baseline (IP
    reassembly keeps an incomplete datagram up to 15 s, an unanswered ARP
    request holds its queued packet 5 s). Returns the last value."""
    end = time.monotonic() + timeout
    while True:
        now = buffers_in_use(guest.stats())
        if now == baseline or time.monotonic() > end:
            return now
        time.sleep(1)


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
