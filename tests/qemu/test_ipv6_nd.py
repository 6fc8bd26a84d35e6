"""IPv6 survives hostile neighbour discovery.

The guest on a tap in a network namespace (tests/qemu/netns_tap.py), at
-m 32M as in the report this answers, with its address from SLAAC: the
namespace is its router (tests/qemu/netns_router.py advertises
2001:db8:76::/64 from the tap's link-local address and answers router
solicitations; Linux answers neighbour solicitations for it) and holds
2001:db8:77::1 on its loopback, which the guest reaches only through
that router. Then tests/qemu/hostile_nd6.py's frames (hostile_frames.py
phase nd6): every RFC 4861 validity check broken on RS, RA, NS, NA and
Redirect, prefixes RFC 4862 says to ignore, 64 routers and 200
neighbours that do not exist, NAs claiming the guest's addresses and
giving the host and the router MACs nobody has, the real router's
address saying it is no router, a Redirect of the off-link address to a
router that does not exist.

After the flood, within RECOVERY_S and without a reboot: ping6 to the
link-local and the SLAAC address, from the host on the link and from the
off-link address (through the router), HTTP, TCP and UDP echo over IPv6;
the guest's addresses are exactly its link-local and SLAAC ones (none
from the hostile prefixes, none marked duplicate); the invalid messages
were counted as dropped; and a new prefix the real router advertises
still becomes an address.
"""
import ipaddress
import json
import os
import re
import subprocess
import time

import pytest

from netns_tap import HERE, PYTHON, GuestError, TapNet

PREFIX, HOST6, OFFLINK6 = "2001:db8:76::", "2001:db8:76::1", "2001:db8:77::1"
NEW_PREFIX = "2001:db8:78::"
MEM = "32M"
FRAMES, RATE = 30000, 5000
# Neighbour unreachability detection of a lied-about MAC: reachable time
# 30 s, delay 5 s, 3 probes 1 s apart, then a new resolution; a lost
# router: a router solicitation every 4 s. 60 s bounds both with room for
# a loaded machine.
RECOVERY_S = 60


def slaac_address(prefix, mac):
    """prefix::/64 with the modified EUI-64 of mac (RFC 4862, 4291 app. A)."""
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 2
    iid = bytes(b[:3] + [0xff, 0xfe] + b[3:])
    return str(ipaddress.IPv6Address(ipaddress.IPv6Address(prefix).packed[:8] + iid))


def link_local(mac):
    return slaac_address("fe80::", mac)


def host_link_local(net, timeout=30):
    """The tap's link-local address once Linux's DAD is over (a tentative
    address answers no neighbour solicitation)."""
    end = time.monotonic() + timeout
    while True:
        out = net.run(["ip", "-6", "-o", "addr", "show", "dev", "tap0", "scope", "link",
                       "-tentative"], check=True).stdout.decode()
        m = re.search(r"inet6 (fe80::[0-9a-f:]+)/", out)
        if m:
            return m.group(1)
        if time.monotonic() > end:
            raise GuestError("tap0 has no usable link-local address: %s" % out)
        time.sleep(0.5)


def retry(what, guest, within, attempt):
    """attempt() until it returns None (ok) or within s have passed; the
    last error fails the test. Returns the seconds it took."""
    start = time.monotonic()
    while True:
        err = attempt()
        if err is None:
            return time.monotonic() - start
        if time.monotonic() - start > within:
            pytest.fail("%s: %s\n%s" % (what, err, guest.describe()), pytrace=False)
        time.sleep(1)


def ping6(net, dst, src=None):
    r = net.run(["ping", "-6", "-c", "3", "-W", "3", "-i", "0.3", dst]
                + (["-I", src] if src else []), timeout=30)
    if r.returncode == 0 and b" 0% packet loss" in r.stdout:
        return None
    return (r.stdout + r.stderr).decode()


def http6(net, addr, src=None):
    r = net.run(["curl", "-6", "-g", "-sS", "-m", "10", "http://[%s]/" % addr]
                + (["--interface", src] if src else []), timeout=30)
    return None if b"<html>" in r.stdout else r.stderr.decode()[-300:]


def tcp_echo6(net, addr, src=None):
    data = os.urandom(64 * 1024)
    r = net.run(["nc", "-6", "-N", "-w", "10", addr, "7"] + (["-s", src] if src else []),
                data=data, timeout=40)
    return None if r.stdout == data else "%d of %d bytes back" % (len(r.stdout), len(data))


def udp_echo6(net, addr):
    msg = b"nd6 " + os.urandom(8).hex().encode() + b"\n"
    r = net.run([PYTHON, os.path.join(HERE, "udp_echo_client.py"), addr, "7"], data=msg,
                timeout=30)
    return None if r.stdout == msg else repr(r.stdout[:80])


def check_ipv6_services(g, addr, within):
    """Every IPv6 service answers, on the link and through the router."""
    net = g.net
    checks = [
        ("ping6 link-local", lambda: ping6(net, link_local(g.mac) + "%tap0")),
        ("ping6 " + addr, lambda: ping6(net, addr)),
        ("ping6 from off-link " + OFFLINK6, lambda: ping6(net, addr, OFFLINK6)),
        ("HTTP over IPv6", lambda: http6(net, addr)),
        ("HTTP over IPv6 from off-link", lambda: http6(net, addr, OFFLINK6)),
        ("TCP echo over IPv6 from off-link", lambda: tcp_echo6(net, addr, OFFLINK6)),
        ("UDP echo over IPv6", lambda: udp_echo6(net, addr)),
    ]
    end = time.monotonic() + within
    return {what: round(retry(what, g, max(1, end - time.monotonic()), f), 1)
            for what, f in checks}


def addresses(g):
    st = g.stats()
    return {a["addr"]: (a["origin"], a["state"]) for a in st["ip6"]["netifs"]["eth0"]}, st


@pytest.mark.parametrize("nic", ["virtio", "e1000"])
def test_hostile_neighbour_discovery_leaves_ipv6_answering(tmp_path, nic):
    reason = TapNet.unavailable()
    if reason:
        pytest.skip(reason)
    with TapNet() as net:
        for a in (HOST6, NEW_PREFIX + "1"):
            net.run(["ip", "addr", "add", a + "/64", "dev", "tap0", "nodad"], check=True)
        net.run(["ip", "addr", "add", OFFLINK6 + "/128", "dev", "lo"], check=True)
        g = net.start_guest(str(tmp_path), nic=nic, mem=MEM)
        router = None
        try:
            g.wait_ready()
            g.wait_for(r"^net: eth0 ip6 %s ready \(link-local\)" % link_local(g.mac), 30)
            rll = host_link_local(net)
            router = subprocess.Popen(
                ["ip", "netns", "exec", net.ns, PYTHON, os.path.join(HERE, "netns_router.py"),
                 "--iface", "tap0", "--prefix", PREFIX, "--source", rll, "--secs", "900"],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            addr = slaac_address(PREFIX, g.mac)
            g.wait_for(r"^net: eth0 ip6 %s ready \(SLAAC\)" % re.escape(addr), 60)
            before = check_ipv6_services(g, addr, 30)
            st0 = g.stats()["lwip"]["nd6"]

            r = g.send_hostile(["nd6"], FRAMES, RATE, seed=37, probe=45, ip6=addr,
                               router6=rll, offlink6=OFFLINK6)
            p = r["probes"].get("nd6")
            if not p or not p["ok"]:
                pytest.fail("no IPv4 answer after the flood: %s\n%s" % (p, g.describe()),
                            pytrace=False)
            after = check_ipv6_services(g, addr, RECOVERY_S)

            have, st = addresses(g)
            want = {link_local(g.mac): ("link-local", "preferred"),
                    addr: ("SLAAC", "preferred")}
            assert have == want, "addresses %s\n%s" % (have, g.describe())
            nd6 = st["lwip"]["nd6"]
            assert nd6["drop"] - st0["drop"] > 0, (st0, nd6)
            # Every rule the flood breaks was caught, and counted by name
            # (too_long is left: fragments are frags6's business).
            refused, events = st["ip6"]["nd6_refused"], st["ip6"]["nd6_events"]
            for rule in ("hop_limit", "code", "too_short", "option", "source", "target",
                         "destination"):
                assert refused[rule] > 0, (rule, refused)
            # NAs claiming our addresses ignored, the fake routers' prefixes
            # not taken, the real router's bad prefixes ignored, the fake
            # neighbours (and the redirect's router) given up.
            for event in ("claim_ignored", "prefix_untrusted", "prefix_ignored",
                          "neighbor_unreachable"):
                assert events[event] > 0, (event, events)

            subprocess.run(["ip", "netns", "exec", net.ns, PYTHON,
                            os.path.join(HERE, "netns_router.py"), "--iface", "tap0",
                            "--prefix", PREFIX, "--prefix", NEW_PREFIX, "--source", rll,
                            "--once"], check=True, timeout=60)
            new = slaac_address(NEW_PREFIX, g.mac)
            g.wait_for(r"^net: eth0 ip6 %s ready \(SLAAC\)" % re.escape(new), 30)
            assert retry("ping6 " + new, g, 30, lambda: ping6(net, new)) >= 0
        except GuestError as e:
            pytest.fail(str(e), pytrace=False)
        finally:
            if router is not None:
                router.terminate()
                router.wait(10)
        log = g.log()
        assert "panic" not in log and "exception:" not in log, g.describe()
        print("nd6 %s: sent %d frames; answered before %s, after %s; nd6 %s; refused %s; "
              "events %s" % (nic, r["sent"], before, after, json.dumps(nd6),
                             json.dumps(refused), json.dumps(events)))
