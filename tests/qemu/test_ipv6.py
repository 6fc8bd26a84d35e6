"""IPv6: every service on the second family, through the real NIC path.

Which network: a tap inside a network namespace (tests/qemu/netns_tap.py),
the host side 2001:db8:76::1/64 and the guest given ip6=2001:db8:76::2/64
gw6=2001:db8:76::1 (or, for SLAAC, a router advertisement sent with
scapy). QEMU's user network is not used for the IPv6 services: its
hostfwd= forwards host ports only to the guest's IPv4 address (libslirp
4.7, QEMU 7.2 here), so no IPv6 client on the host can reach the guest
through it. User-net's own router advertisement (prefix fec0::/64) is
used, in the one test without a tap: the guest must build its SLAAC
address from it, and report bad ip6=/gw6= values.

Per NIC (virtio, e1000, e1000e, igb) and allocator mode: ping6 to the
link-local (EUI-64 from the MAC) and the global address, curl -6 to / and
/stats.json (its IPv6 counters and addresses), TCP and UDP echo over
nc -6 with a 1 MiB byte-identical TCP echo, iperf -V (iperf2) and the
guest's own iperf client towards the host, asked over IPv6. Then
malformed IPv6 headers, extension-header chains, lying ND/MLD messages
and fragments (tests/qemu/hostile_frames.py phases ipv6 and frags6),
after which the guest still answers ping6 and its packet buffers and
IPv6 pools are back to their baseline.
"""
import ipaddress
import json
import os
import re
import subprocess
import time

import pytest

import conftest
from netns_tap import HERE, PYTHON, GuestError, TapNet, resting_buffers, wait_buffers_back

HOST6, GUEST6 = "2001:db8:76::1", "2001:db8:76::2"
SLAAC_PREFIX = "2001:db8:99::"
CASES = [("virtio", "native"), ("virtio", "stock"), ("e1000", "native"),
         ("e1000", "stock"), ("e1000e", "native"), ("igb", "native")]


def eui64_link_local(mac):
    """fe80::/64 with the modified EUI-64 of mac (RFC 4291 appendix A)."""
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 2
    return "fe80::%x:%x:%x:%x" % (b[0] << 8 | b[1], b[2] << 8 | 0xff,
                                  0xfe << 8 | b[3], b[4] << 8 | b[5])


def fail(guest, what):
    pytest.fail("%s\n%s" % (what, guest.describe()), pytrace=False)


@pytest.fixture(scope="module", params=CASES, ids=["%s-%s" % c for c in CASES])
def guest6(request, tmp_path_factory):
    """One guest per NIC and mode on its own tap, static IPv6, shared by
    the service tests below (a boot under TCG is most of their time)."""
    reason = TapNet.unavailable()
    if reason:
        pytest.skip(reason)
    nic, alloc = request.param
    conftest.skip_unless_qemu_has(nic)
    with TapNet() as net:
        net.run(["ip", "addr", "add", HOST6 + "/64", "dev", "tap0", "nodad"], check=True)
        g = net.start_guest(str(tmp_path_factory.mktemp("ipv6")), nic=nic, alloc=alloc,
                            append="ip6=%s/64 gw6=%s http_control=1" % (GUEST6, HOST6))
        try:
            g.wait_ready()
            g.wait_for(r"^net: eth0 ip6 %s ready \(link-local\)" % eui64_link_local(g.mac), 30)
            g.wait_for(r"^net: eth0 ip6 %s ready \(static\)" % re.escape(GUEST6), 30)
        except GuestError as e:
            pytest.fail(str(e), pytrace=False)
        yield g


def ping6(guest, addr, count=3, within=0):
    """count echoes, none lost. within > 0: retried for that many seconds
    (after a flood, as netns_probe.py does for IPv4: the tap's queue and
    the neighbour cache, churned by spoofed sources, settle first)."""
    end = time.monotonic() + within
    while True:
        r = guest.net.run(["ping", "-6", "-c", str(count), "-W", "5", "-i", "0.3", addr],
                          timeout=40)
        if r.returncode == 0 and b" 0% packet loss" in r.stdout:
            return
        if time.monotonic() >= end:
            fail(guest, "ping6 %s: %s" % (addr, r.stdout.decode()))
        time.sleep(1)


def test_boot_report_names_the_ipv6_addresses(guest6):
    m = guest6.wait_for(r"^net: eth0 ip6=(.*)$", 5)
    addrs = [a.rstrip("?") for a in m.group(1).split()]
    assert addrs == [eui64_link_local(guest6.mac), GUEST6], m.group(0)


def test_ping6_link_local_and_global(guest6):
    ping6(guest6, eui64_link_local(guest6.mac) + "%tap0")
    ping6(guest6, GUEST6)


def test_http_over_ipv6_with_its_counters(guest6):
    for path in ("/", "/stats.json"):
        r = guest6.net.run(["curl", "-6", "-g", "-sS", "-f", "-m", "20",
                            "http://[%s]%s" % (GUEST6, path)], timeout=40)
        if r.returncode != 0:
            fail(guest6, "curl -6 %s: %s" % (path, r.stderr.decode()))
    assert b"<html>" in guest6.net.run(["curl", "-6", "-g", "-sS", "-m", "20",
                                        "http://[%s]/" % GUEST6], timeout=40).stdout
    st = json.loads(r.stdout)
    lw = st["lwip"]
    # This very request came in over IPv6 (TCP), after ND and an echo.
    assert lw["ip6"]["recv"] > 0 and lw["ip6"]["xmit"] > 0, lw["ip6"]
    assert lw["nd6"]["recv"] > 0 and lw["icmp6"]["recv"] > 0, (lw["nd6"], lw["icmp6"])
    assert lw["mld6"]["tx_report"] > 0, lw["mld6"]  # joined its solicited-node groups
    for k in ("ip6_frag", "ip_frag"):
        assert set(lw[k]) >= {"xmit", "recv", "drop", "err"}, lw[k]
    addrs = {a["addr"]: a for a in st["ip6"]["netifs"]["eth0"]}
    assert addrs[GUEST6]["state"] == "preferred" and addrs[GUEST6]["origin"] == "static"
    assert addrs[eui64_link_local(guest6.mac)]["origin"] == "link-local"
    assert st["ip6"]["gw6"] == HOST6 and st["ip6"]["cmdline_errors"] == 0
    for pool in ("IP6_REASSDATA", "ND6_QUEUE", "MLD6_GROUP", "FRAG_PBUF"):
        assert lw["memp"][pool]["limit"] > 0, (pool, lw["memp"][pool])


def gro_counts(guest):
    nic = guest.stats()["nic"]["eth0"]
    return nic["rx_gro_packets"], nic["rx_gro_segs"]


def csum_valid(guest):
    return guest.stats()["nic"]["eth0"]["rx_csum_valid"]


def test_tcp_and_udp_echo_over_ipv6_1mib_byte_identical(guest6):
    data = os.urandom(1 << 20)
    packets0, segs0 = gro_counts(guest6)
    valid0 = csum_valid(guest6)
    r = guest6.net.run(["nc", "-6", "-N", "-w", "20", GUEST6, "7"], data=data, timeout=120)
    if r.stdout != data:
        fail(guest6, "tcp echo over IPv6: %d of %d bytes back, identical=%s"
             % (len(r.stdout), len(data), r.stdout == data[:len(r.stdout)]))
    if guest6.nic != "virtio":
        # The Intel NICs coalesce nothing themselves: the host's MSS
        # segments of the IPv6 stream reach the glue, which joins them
        # (net/rx_gro.c), as it does IPv4's.
        packets, segs = gro_counts(guest6)
        assert packets > packets0 and segs - segs0 >= 2 * (packets - packets0), (
            packets0, segs0, packets, segs)
    if guest6.nic == "e1000e":
        # The 82574L checks IPv6 TCP sums too (RXCSUM.TUOFL): 1 MiB in
        # MSS frames, vouched for.
        assert csum_valid(guest6) - valid0 > 700, (valid0, csum_valid(guest6))
    msg = b"udp over ipv6 " + os.urandom(8).hex().encode() + b"\n"
    for _ in range(3):  # UDP may drop under load
        r = guest6.net.run([PYTHON, os.path.join(HERE, "udp_echo_client.py"), GUEST6, "7"],
                           data=msg, timeout=30)
        if r.stdout == msg:
            break
    else:
        fail(guest6, "udp echo over IPv6: %r" % r.stdout[:80])


def test_iperf_over_ipv6(guest6):
    r = guest6.net.run(["iperf", "-V", "-c", GUEST6, "-t", "3", "-y", "C"], timeout=60)
    if r.returncode != 0:
        fail(guest6, "iperf -V: %s %s" % (r.stdout.decode(), r.stderr.decode()))
    guest6.wait_for(r"^iperf: done \[%s\]:\d+ bytes=[1-9]\d* ms=\d+ kbps=[1-9]\d*"
                    % re.escape(HOST6), 20)


def test_guest_iperf_client_to_the_ipv6_host(guest6, tmp_path):
    """POST /iperf-client/PORT asked over IPv6: the guest's lwiperf
    client connects back to the asker's IPv6 address (over IPv4 it would
    take the gateway), runs its 10 s and reports the peer in brackets;
    the host's server got what the guest says it sent."""
    port = 5201
    report = tmp_path / "iperf6-server.csv"
    with open(report, "w") as out:
        server = subprocess.Popen(["ip", "netns", "exec", guest6.net.ns, "stdbuf", "-oL",
                                   "iperf", "-s", "-V", "-p", str(port), "-y", "C"],
                                  stdout=out, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
    try:
        time.sleep(1)
        r = guest6.net.run(["curl", "-sS", "-6", "-X", "POST", "-m", "20",
                            "http://[%s]/iperf-client/%d" % (GUEST6, port)], timeout=40)
        if r.stdout.strip() != b"started":
            fail(guest6, "POST over IPv6: %r %r" % (r.stdout, r.stderr))
        guest6.wait_for(r"^http: control: iperf client to \[%s\]:%d for 10 s \(asked by %s\)"
                        % (re.escape(HOST6), port, re.escape(HOST6)), 10)
        m = guest6.wait_for(r"^iperf: done-client \[%s\]:%d bytes=([1-9]\d*) ms=\d+ kbps=[1-9]"
                            % (re.escape(HOST6), port), 40)
        sent, received, end = int(m.group(1)), None, time.monotonic() + 10
        while received is None and time.monotonic() < end:
            lines = [l for l in report.read_text().splitlines() if l.count(",") >= 8]
            received = int(lines[-1].split(",")[7]) if lines else None
            time.sleep(0.2)
        assert received is not None and 0.9 * sent <= received <= sent + 65536, (sent, received)
    finally:
        os.killpg(server.pid, 9)
        server.wait()


def test_hostile_ipv6_leaves_ping6_answering_and_buffers_back(guest6):
    """Runs last on each guest (the services above must not see its
    after-effects): malformed IPv6, extension headers, ND/MLD lies and
    fragments, 2000 frames of each kind."""
    if guest6.nic == "e1000e":
        pytest.skip("virtio and e1000 cover the stack; e1000e shares e1000's rings")
    baseline = resting_buffers(guest6)
    st0 = guest6.stats()["lwip"]
    r = guest6.send_hostile(["ipv6", "frags6"], 2000, 5000, seed=6, probe=45, ip6=GUEST6)
    for phase in ("ipv6", "frags6"):
        p = r["probes"].get(phase)
        if not p or not p["ok"]:
            fail(guest6, "guest does not answer IPv4 after %s: %s" % (phase, p))
    ping6(guest6, GUEST6, within=45)
    ping6(guest6, eui64_link_local(guest6.mac) + "%tap0", within=45)
    # Incomplete datagrams wait 15 s in reassembly, ND queues 3 s.
    now = wait_buffers_back(guest6, baseline, timeout=45)
    assert now == baseline, "buffers %s, baseline %s\n%s" % (now, baseline, guest6.describe())
    st = guest6.stats()["lwip"]
    # The fragments were seen, and the ones that could not complete dropped.
    assert st["ip6_frag"]["recv"] > st0["ip6_frag"]["recv"], st["ip6_frag"]
    assert (st["ip6_frag"]["drop"] + st["ip6_frag"]["err"] >
            st0["ip6_frag"]["drop"] + st0["ip6_frag"]["err"]), st["ip6_frag"]
    assert st["ip6"]["drop"] > st0["ip6"]["drop"], st["ip6"]
    # More incomplete datagrams than MEMP_NUM_REASSDATA at once: the pool's
    # bound was met (in native mode too: net_mem.c refuses past it) and
    # lwIP recycled its oldest datagram instead of growing.
    reass = st["memp"]["IP6_REASSDATA"]
    assert reass["limit_hits"] > 0 and reass["max"] <= reass["limit"], reass
    log = guest6.log()
    assert "panic" not in log and "exception:" not in log, guest6.describe()


# ---- SLAAC from a router advertisement, on a tap ----

RA_SENDER = r"""
import sys
from scapy.all import Ether, sendp, get_if_hwaddr
from scapy.layers.inet6 import (IPv6, ICMPv6ND_RA, ICMPv6NDOptPrefixInfo,
                                ICMPv6NDOptSrcLLAddr)
mac = get_if_hwaddr("tap0")
ra = (Ether(src=mac, dst="33:33:00:00:00:01") /
      IPv6(src=sys.argv[1], dst="ff02::1") / ICMPv6ND_RA(routerlifetime=1800) /
      ICMPv6NDOptSrcLLAddr(lladdr=mac) /
      ICMPv6NDOptPrefixInfo(prefix=sys.argv[2], prefixlen=64, L=1, A=1,
                            validlifetime=3600, preferredlifetime=1800))
sendp(ra, iface="tap0", count=3, inter=0.5, verbose=0)
"""


def host_link_local(net):
    r = net.run(["ip", "-6", "-o", "addr", "show", "dev", "tap0", "scope", "link"], check=True)
    return re.search(r"inet6 (fe80::[0-9a-f:]+)/", r.stdout.decode()).group(1)


@pytest.mark.parametrize("nic", ["virtio", "e1000"])
def test_slaac_address_from_router_advertisement(tmp_path, nic):
    reason = TapNet.unavailable()
    if reason:
        pytest.skip(reason)
    with TapNet() as net:
        net.run(["ip", "addr", "add", SLAAC_PREFIX + "1/64", "dev", "tap0", "nodad"],
                check=True)
        g = net.start_guest(str(tmp_path), nic=nic)
        try:
            g.wait_ready()
            ll = eui64_link_local(g.mac)
            g.wait_for(r"^net: eth0 ip6 %s ready \(link-local\)" % ll, 30)
            net.run([PYTHON, "-c", RA_SENDER, host_link_local(net), SLAAC_PREFIX],
                    check=True, timeout=60)
            # RFC 5952 text, as the guest prints it (one zero group is not "::")
            slaac = str(ipaddress.IPv6Address(SLAAC_PREFIX + ll[len("fe80::"):]))
            g.wait_for(r"^net: eth0 ip6 %s ready \(SLAAC\)" % re.escape(slaac), 30)
        except GuestError as e:
            pytest.fail(str(e), pytrace=False)
        ping6(g, slaac)


# ---- QEMU user-net: its router advertisement, and bad ip6= values ----

def test_user_net_slaac_and_bad_ip6_values_keep_the_defaults(qemu):
    """ip6= with a /48 and a gw6= that is no address: each refused with
    one line, counted, and the default (SLAAC) used: user-net advertises
    fec0::/64, so the guest gets fec0:: + its EUI-64."""
    port = conftest.free_port()
    vm = qemu.start(append="ip6=2001:db8::5/48 gw6=2001:db8::zz", smp=1, nic="virtio",
                    hostfwd=["%d:80" % port], mac="52:54:00:12:34:56")
    vm.wait_for(r"^cmdline: bad value '2001:db8::5/48' for ip6 \(expected .*\), "
                r"using default 'auto'$")
    vm.wait_for(r"^cmdline: bad value '2001:db8::zz' for gw6 ")
    vm.wait_for(r"^net: eth0 ip6 fe80::5054:ff:fe12:3456 ready \(link-local\)$", 60)
    vm.wait_for(r"^net: eth0 ip6 fec0::5054:ff:fe12:3456 ready \(SLAAC\)$", 60)
    vm.wait_for(r"^net: listening ", 60)
    r = subprocess.run(["curl", "-sS", "-m", "20", "http://127.0.0.1:%d/stats.json" % port],
                       capture_output=True, timeout=40)
    st = json.loads(r.stdout)
    assert st["ip6"]["cmdline_errors"] == 2, st["ip6"]
    assert st["ip6"]["gw6"] == ""
    origins = {a["addr"]: a["origin"] for a in st["ip6"]["netifs"]["eth0"]}
    assert origins == {"fe80::5054:ff:fe12:3456": "link-local",
                       "fec0::5054:ff:fe12:3456": "SLAAC"}, origins
