#!/usr/bin/python3
"""Hostile frames for the guest, crafted with scapy, sent raw on a tap.

Run inside the namespace that holds the tap (ip netns exec NS ...). Each
phase builds a set of distinct malformed or flooding frames once (scapy is
slow at building, not at handing bytes to a socket), then sends COUNT
frames cycling through them on an AF_PACKET socket, at most RATE frames
per second so that most of them reach the guest rather than the tap's
queue; a full tap queue (ENOBUFS) is waited out, 1 ms at a time. Prints
one JSON object: phase, frames sent, send errors (the queue stayed full
for 100 ms), seconds, frames the tap dropped (its queue full: the guest did not take
them in time), and the same per phase.

With --adaptive the rate follows what the guest takes in: the tap's drop
counter is read every 50 ms, the rate raised 10 % while nothing was
dropped and cut 30 % when something was (--rate is then the ceiling).
With --settle, after each phase's probe the guest's packet buffers and
lwIP pools (/stats.json) must come back to what they were before the
first phase (netns_tap.buffers_in_use); each phase records whether and
how fast they did.

Usage: hostile_frames.py --iface tap0 --guest-ip IP --guest-mac MAC
           --phase NAME[,NAME...] [--count N] [--rate PPS] [--adaptive]
           [--seed S] [--probe SECS] [--settle SECS]
Phases: ether arp ipv4 icmp tcp udp frags syn-flood udp-flood icmp-flood
        ipv6 frags6 (the last two need --guest-ip6, the guest's address on
        the tap's /64) nd6 (tests/qemu/hostile_nd6.py: needs --guest-ip6,
        --router6, the real router's link-local address, and --offlink6, an
        address the guest reaches through it) (or "all": each in turn),
        tcp-window. COUNT frames per phase. With --probe, the
guest is checked after each phase (netns_probe.probe) and the result is
in "probes".

tcp-window is not a set of frames but a conversation: COUNT real
connections to the echo port, one after the other, each taken step by
step through hostile segments inside its window (tests/qemu/tcp_in_window.py
says which and what each must do); its entry in "phases" carries every
connection's steps and whether each held ("ok").
"""
import argparse
import errno
import ipaddress
import json
import random
import socket
import struct
import sys
import time

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Ether, Raw, fragment,  # noqa: E402
                       get_if_hwaddr)
from scapy.config import conf
from scapy.layers.inet6 import (HBHOptUnknown, ICMPv6EchoRequest, ICMPv6MLQuery,  # noqa: E402
                                ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6ND_RA, ICMPv6ND_Redirect,
                                ICMPv6NDOptMTU, ICMPv6NDOptPrefixInfo, IPv6,
                                IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                                IPv6ExtHdrRouting, PadN, fragment6)

import netns_probe
import tcp_in_window
from hostile_nd6 import eui64_link_local, phase_nd6
from netns_tap import buffers_in_use
from raw_tcp import Link

conf.verb = 0

# Our own services (apps/apps.h): echo tcp+udp 7, HTTP 80, iperf 5001.
PORTS = [7, 80, 5001, 9, 1234]


class Ctx:
    def __init__(self, a):
        self.iface = a.iface
        self.gip, self.gmac = a.guest_ip, a.guest_mac
        self.hmac = get_if_hwaddr(a.iface)
        prefix = a.guest_ip.rsplit(".", 1)[0]
        self.hip = prefix + ".1"
        self.prefix = prefix
        self.rng = random.Random(a.seed)
        self.gip6 = a.guest_ip6
        if self.gip6:
            # the /64's first address ends in "::" (its low 64 bits are 0)
            self.prefix6 = str(ipaddress.IPv6Network(self.gip6 + "/64", strict=False)
                               .network_address)
            self.hip6 = self.prefix6 + "1"
        self.gll = eui64_link_local(a.guest_mac)
        self.rll, self.offlink6 = a.router6, a.offlink6

    def peer_ip(self):
        """A source in the guest's subnet that no one answers ARP for
        (the guest's replies wait for ARP, then are dropped), or the
        host (its kernel answers RST / port unreachable)."""
        if self.rng.random() < 0.5:
            return self.hip
        return "%s.%d" % (self.prefix, self.rng.randrange(3, 254))

    def rmac(self):
        return "02:%02x:%02x:%02x:%02x:%02x" % tuple(self.rng.randrange(256) for _ in range(5))

    def eth(self, src=None):
        return Ether(dst=self.gmac, src=src or self.hmac)

    def ip(self, **kw):
        kw.setdefault("src", self.peer_ip())
        kw.setdefault("dst", self.gip)
        return IP(**kw)


def raw_ip_header(ctx, ver=4, ihl=5, tot_len=None, proto=17, payload=b"", csum=None,
                  flags_frag=0, ttl=64, options=b""):
    """An IPv4 header built by hand, for fields scapy would fix up."""
    src = socket.inet_aton(ctx.peer_ip())
    dst = socket.inet_aton(ctx.gip)
    body = options + payload
    tl = 20 + len(body) if tot_len is None else tot_len
    hdr = struct.pack("!BBHHHBBH4s4s", (ver << 4) | ihl, 0, tl & 0xffff,
                      ctx.rng.randrange(65536), flags_frag, ttl, proto, 0, src, dst)
    if csum is None:
        csum = checksum(hdr + options[:max(0, ihl * 4 - 20)])
    hdr = hdr[:10] + struct.pack("!H", csum) + hdr[12:]
    return hdr + body


def checksum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def eth_bytes(ctx, payload, ethertype=0x0800, src=None):
    return bytes(Ether(dst=ctx.gmac, src=src or ctx.hmac, type=ethertype)) + payload


def phase_ether(ctx):
    r = ctx.rng
    out = []
    # Runts: a header and a torn body, below Ethernet's 60-byte minimum
    # (AF_PACKET refuses anything shorter than the 14-byte header).
    for n in (14, 15, 20, 33, 59):
        out.append(eth_bytes(ctx, bytes(r.randrange(256) for _ in range(n - 14))))
    for et in (0x0000, 0x05dc, 0x86dd, 0x8100, 0x88a8, 0x8847, 0xffff, 0x0806, 0x0800):
        out.append(eth_bytes(ctx, bytes(r.randrange(256) for _ in range(r.randrange(0, 80))),
                             et))
    # VLAN tag, double tag, LLC/SNAP: frames lwIP does not carry.
    out.append(eth_bytes(ctx, b"\x00\x05\x08\x00" + raw_ip_header(ctx, payload=b"x" * 8),
                         0x8100))
    out.append(eth_bytes(ctx, b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + b"y" * 40, 0x0030))
    # Broadcast / multicast / someone else's unicast destination.
    for dst in ("ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01", "33:33:00:00:00:01",
                "02:00:00:00:00:01"):
        out.append(bytes(Ether(dst=dst, src=ctx.rmac()) / IP(src=ctx.peer_ip(), dst=ctx.gip)
                         / UDP(dport=7) / Raw(b"m" * 20)))
    # Oversize: beyond 1514 bytes (the tap's MTU is raised to carry them).
    for n in (1515, 1518, 1522, 1600, 2048, 4000, 9000):
        out.append(eth_bytes(ctx, raw_ip_header(ctx, payload=b"O" * (n - 34), tot_len=n - 14)))
    return out


def phase_arp(ctx):
    r = ctx.rng
    out = []
    for _ in range(40):  # requests from many hosts: the ARP table churns
        mac = ctx.rmac()
        out.append(bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=mac) /
                         ARP(op=1, hwsrc=mac, psrc="%s.%d" % (ctx.prefix, r.randrange(3, 254)),
                             pdst=ctx.gip)))
    for _ in range(20):  # unsolicited replies, some claiming the guest's address
        mac = ctx.rmac()
        psrc = ctx.gip if r.random() < 0.3 else "%s.%d" % (ctx.prefix, r.randrange(3, 254))
        out.append(bytes(Ether(dst=ctx.gmac, src=mac) /
                         ARP(op=2, hwsrc=mac, psrc=psrc, hwdst=ctx.gmac, pdst=ctx.gip)))
    base = bytes(ARP(op=1, hwsrc=ctx.hmac, psrc=ctx.hip, pdst=ctx.gip))
    for n in (0, 4, 8, 20, 27):  # truncated
        out.append(eth_bytes(ctx, base[:n], 0x0806))
    for hw, pt, hl, pl, op in ((6, 0x800, 6, 4, 1), (1, 0x86dd, 6, 4, 1), (1, 0x800, 0, 4, 1),
                               (1, 0x800, 6, 16, 1), (1, 0x800, 255, 255, 2),
                               (1, 0x800, 6, 4, 0), (1, 0x800, 6, 4, 0xffff)):
        out.append(eth_bytes(ctx, struct.pack("!HHBBH", hw, pt, hl, pl, op) + base[8:], 0x0806))
    # Source addresses that must not be learnt: broadcast, multicast, zero.
    for psrc, hwsrc in (("255.255.255.255", ctx.rmac()), ("224.0.0.1", ctx.rmac()),
                        ("0.0.0.0", ctx.rmac()), (ctx.prefix + ".255", "ff:ff:ff:ff:ff:ff")):
        out.append(bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=ctx.rmac()) /
                         ARP(op=1, hwsrc=hwsrc, psrc=psrc, pdst=ctx.gip)))
    return out


def phase_ipv4(ctx):
    r = ctx.rng
    out = []
    udp = bytes(UDP(sport=4000, dport=7, len=16)) + b"12345678"
    for ver in (0, 5, 6, 15):
        out.append(eth_bytes(ctx, raw_ip_header(ctx, ver=ver, payload=udp)))
    for ihl in (0, 1, 4, 6, 15):  # shorter than 20 bytes, or past the data
        out.append(eth_bytes(ctx, raw_ip_header(ctx, ihl=ihl, payload=udp)))
    for tl in (0, 1, 19, 20, 27, 60, 1500, 65535):  # total length lies
        out.append(eth_bytes(ctx, raw_ip_header(ctx, tot_len=tl, payload=udp)))
    for cs in (0, 0xffff, 0x1234):
        out.append(eth_bytes(ctx, raw_ip_header(ctx, payload=udp, csum=cs)))
    for opts in (b"\x07\x27\x04" + b"\0" * 37,  # record route, full length
                 b"\x83\x03\x04\x00",  # loose source route, short
                 b"\x44\xff\x05\x00" + b"\0" * 4,  # timestamp, length past the header
                 b"\x94\x04\x00\x00",  # router alert
                 b"\x01\x01\x01\x00",  # NOPs
                 b"\xff\x00\x00\x00",  # unknown type, length 0
                 b"\x07\x00\x00\x00"):  # record route, length 0
        ihl = 5 + len(opts) // 4
        out.append(eth_bytes(ctx, raw_ip_header(ctx, ihl=ihl, options=opts, payload=udp)))
    for src in ("0.0.0.0", "255.255.255.255", "224.0.0.5", ctx.gip, "127.0.0.1"):
        out.append(bytes(ctx.eth() / IP(src=src, dst=ctx.gip) / UDP(dport=7) / Raw(b"s" * 8)))
    for dst in ("10.99.0.1", ctx.prefix + ".255", "255.255.255.255", "224.0.0.1"):
        out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=dst) / UDP(dport=7) / Raw(b"d" * 8)))
    for proto in (0, 2, 41, 50, 132, 255):  # protocols lwIP does not serve
        out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=proto, payload=b"p" * 24)))
    out.append(bytes(ctx.eth() / ctx.ip(ttl=0) / ICMP() / Raw(b"ttl0")))
    for _ in range(10):  # random bytes after a valid-looking first byte
        out.append(eth_bytes(ctx, b"\x45" + bytes(r.randrange(256) for _ in range(r.randrange(1, 120)))))
    return out


def phase_icmp(ctx):
    r = ctx.rng
    out = []
    ping = bytes(ICMP(type=8, id=7, seq=1) / Raw(b"p" * 32))
    for n in (0, 1, 4, 7):  # truncated ICMP header
        out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=1, payload=ping[:n])))
    bad = bytearray(ping)
    bad[2] ^= 0x55
    out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=1, payload=bytes(bad))))
    for t, c in ((0, 0), (3, 0), (3, 3), (3, 4), (4, 0), (5, 1), (11, 0), (12, 0), (13, 0),
                 (17, 0), (255, 255)):
        # errors quoting a garbage or truncated datagram
        quoted = bytes(r.randrange(256) for _ in range(r.choice((0, 8, 20, 28, 60))))
        out.append(bytes(ctx.eth() / ctx.ip() / ICMP(type=t, code=c) / Raw(quoted)))
    for n in (0, 100, 1400, 1472):  # echo requests the guest answers
        out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip) / ICMP(type=8, id=r.randrange(65536))
                         / Raw(b"e" * n)))
    # echo to broadcast
    out.append(bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=ctx.hmac) /
                     IP(src=ctx.hip, dst=ctx.prefix + ".255") / ICMP() / Raw(b"b" * 16)))
    return out


def phase_tcp(ctx):
    r = ctx.rng
    out = []
    for port in PORTS:
        for flags in ("S", "SA", "A", "R", "RA", "F", "FA", "P", "U", "", "SF", "SR",
                      "FPU", "SFRPAUEC"):
            out.append(bytes(ctx.eth() / ctx.ip() /
                             TCP(sport=r.randrange(1024, 65536), dport=port, flags=flags,
                                 seq=r.randrange(1 << 32), ack=r.randrange(1 << 32))
                             / Raw(b"t" * r.choice((0, 0, 10, 500)))))
    seg = bytes(TCP(sport=5555, dport=80, flags="S", seq=1))
    for n in (0, 1, 12, 19):  # truncated header
        out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=6, payload=seg[:n])))
    for off in (0, 1, 4, 6, 15):  # data offset below 5 or past the segment
        b = bytearray(seg)
        b[12] = off << 4
        out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=6, payload=bytes(b))))
    # bad checksum on an otherwise fine SYN
    s = bytes(ctx.eth() / ctx.ip() / TCP(sport=5556, dport=80, flags="S"))
    out.append(s[:-4] + bytes([s[-4] ^ 0xff]) + s[-3:])  # TCP checksum: 4 from the end
    for opts in ([("MSS", 0)], [("MSS", 1)], [("WScale", 255)], [("WScale", 14)],
                 [("SAckOK", b"")], [("SAck", (1, 2, 3, 4, 5, 6, 7, 8))],
                 [("Timestamp", (0xffffffff, 0))], [("NOP", None)] * 20):
        out.append(bytes(ctx.eth() / ctx.ip() /
                         TCP(sport=r.randrange(1024, 65536), dport=80, flags="S", options=opts)))
    # option lengths that lie: 0, 1, past the header
    for raw in (b"\x02\x00\x05\xb4", b"\x02\x01\x05\xb4", b"\x02\xff\x05\xb4",
                b"\x03\x00\x00\x00", b"\x08\x28\x00\x00", b"\x05\x01\x00\x00",
                b"\xfe\x03\x00\x00"):
        t = bytearray(bytes(TCP(sport=r.randrange(1024, 65536), dport=80, flags="S")))
        t[12] = 6 << 4
        t += raw
        out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=6, payload=bytes(t))))
    # SYN with data; urgent pointer past the data
    out.append(bytes(ctx.eth() / ctx.ip() / TCP(dport=7, flags="S") / Raw(b"D" * 200)))
    out.append(bytes(ctx.eth() / ctx.ip() / TCP(dport=7, flags="AU", urgptr=65535) / Raw(b"u")))
    return out


def phase_udp(ctx):
    r = ctx.rng
    out = []
    for port in PORTS:
        for ulen in (0, 1, 7, 8, 9, 100, 65535):  # the UDP length lies
            u = struct.pack("!HHHH", r.randrange(1024, 65536), port, ulen, 0) + b"u" * 20
            out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=17, payload=u)))
    for n in (0, 4, 7):  # truncated header
        out.append(eth_bytes(ctx, raw_ip_header(ctx, proto=17, payload=b"\x10\x00\x00\x07"[:n])))
    g = bytearray(bytes(IP(src=ctx.hip, dst=ctx.gip) / UDP(sport=4001, dport=7) / Raw(b"c" * 30)))
    g[26] ^= 0x5a  # UDP checksum wrong
    out.append(eth_bytes(ctx, bytes(g)))
    for n in (0, 1, 512, 1472):  # echoed (to the host) or answered unreachable
        out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip) /
                         UDP(sport=r.randrange(1024, 65536), dport=r.choice((7, 9, 4444)))
                         / Raw(b"U" * n)))
    # DHCP-looking traffic to the guest's client port
    out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip) / UDP(sport=67, dport=68) /
                     Raw(bytes(r.randrange(256) for _ in range(300)))))
    return out


def phase_frags(ctx):
    r = ctx.rng
    out = []
    for _ in range(30):
        ident = r.randrange(65536)
        src = ctx.peer_ip()
        big = IP(src=src, dst=ctx.gip, id=ident) / UDP(sport=4100, dport=7) / Raw(b"F" * 3000)
        frs = fragment(big, fragsize=1000)
        kind = r.randrange(5)
        if kind == 0:  # never completes: the last fragment never comes
            frs = frs[:-1]
        elif kind == 1:  # the first never comes
            frs = frs[1:]
        elif kind == 2:  # overlapping: a second fragment covering others
            ov = IP(src=src, dst=ctx.gip, id=ident, flags="MF", frag=50) / Raw(b"V" * 1200)
            frs = frs[:1] + [ov] + frs[1:]
        elif kind == 3:  # duplicates, out of order
            frs = list(reversed(frs)) + frs[:1]
        else:  # complete and well-formed (echoed back, fragmented)
            pass
        out += [bytes(ctx.eth() / f) for f in frs]
    # tiny fragments (8 bytes each), offset past 64 KiB, MF on offset 0 alone
    ident = r.randrange(65536)
    for i in range(12):
        out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip, id=ident, flags="MF", frag=i,
                                        proto=17) / Raw(b"12345678")))
    out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip, id=ident + 1, frag=8191,
                                    proto=17) / Raw(b"z" * 100)))
    out.append(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip, id=ident + 2, flags="MF",
                                    proto=1) / Raw(b"q" * 7)))
    return out


def syn_flood(ctx, source):
    """500 distinct SYNs to ports 7, 80 and 5001, each from source()."""
    r = ctx.rng
    return [bytes(ctx.eth() / IP(src=source(), dst=ctx.gip) /
                  TCP(sport=r.randrange(1024, 65536), dport=r.choice((7, 80, 5001)), flags="S",
                      seq=r.randrange(1 << 32)))
            for _ in range(500)]


def phase_syn_flood(ctx):
    return syn_flood(ctx, ctx.peer_ip)


def phase_syn_flood_unanswered(ctx):
    """SYNs only from sources no one answers ARP for: each would keep a
    pcb in SYN_RCVD for ~20 s if nothing evicted it."""
    return syn_flood(ctx, lambda: "%s.%d" % (ctx.prefix, ctx.rng.randrange(3, 254)))


def phase_udp_flood(ctx):
    r = ctx.rng
    return [bytes(ctx.eth() / ctx.ip() / UDP(sport=r.randrange(1024, 65536), dport=7) /
                  Raw(b"f" * r.choice((1, 64, 512, 1400))))
            for _ in range(300)]


def phase_csum(ctx):
    """Three frames, each with exactly one sum wrong and otherwise fine,
    from the host (which would get the answer): a UDP echo request, a
    SYN to HTTP, and a UDP echo request whose IPv4 header sum is wrong.
    The guest must drop each and count it (its own check, then lwIP's)."""
    out = []
    u = bytearray(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip) /
                        UDP(sport=4002, dport=7) / Raw(b"bad udp sum")))
    u[14 + 20 + 6] ^= 0x21  # the UDP checksum
    out.append(bytes(u))
    t = bytearray(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip) /
                        TCP(sport=5557, dport=80, flags="S", seq=1)))
    t[14 + 20 + 16] ^= 0x10  # the TCP checksum
    out.append(bytes(t))
    h = bytearray(bytes(ctx.eth() / IP(src=ctx.hip, dst=ctx.gip) /
                        UDP(sport=4003, dport=7) / Raw(b"bad ip sum")))
    h[14 + 10] ^= 0x01  # the IPv4 header checksum
    out.append(bytes(h))
    return out


def phase_icmp_flood(ctx):
    r = ctx.rng
    return [bytes(ctx.eth() / ctx.ip() / ICMP(type=8, id=r.randrange(65536), seq=i) /
                  Raw(b"i" * r.choice((8, 56, 1000))))
            for i in range(300)]


def peer_ip6(ctx):
    """The host's address on the /64, or one no one answers ND for (the
    guest's reply waits in lwIP's ND queue, then is dropped)."""
    if ctx.rng.random() < 0.5:
        return ctx.hip6
    return "%s%x" % (ctx.prefix6, ctx.rng.randrange(2, 0xffff))


def eth6(ctx, payload):
    return bytes(Ether(dst=ctx.gmac, src=ctx.hmac, type=0x86DD) / payload)


def ip6(ctx, **kw):
    kw.setdefault("src", peer_ip6(ctx))
    kw.setdefault("dst", ctx.gip6)
    return IPv6(**kw)


def phase_ipv6(ctx):
    """Malformed IPv6 headers, extension-header chains lwIP must walk or
    refuse, and neighbour discovery / MLD messages that lie. Router
    advertisements here carry on-link-only prefixes (A=0) or come from a
    global source (ignored), so the guest gains no address or group."""
    r = ctx.rng
    out = []
    echo = ICMPv6EchoRequest(id=0x66, seq=1, data=b"x" * 32)
    good = bytes(ip6(ctx, src=ctx.hip6) / echo)
    for cut in (1, 20, 39, 40, 47):  # torn header / payload
        out.append(eth6(ctx, Raw(good[:cut])))
    for plen in (0, 7, 39, 1000, 65535):  # payload length lying
        h = bytearray(good)
        struct.pack_into("!H", h, 4, plen)
        out.append(eth6(ctx, Raw(bytes(h))))
    h = bytearray(good)
    h[0] = 0x45  # version 4 in an IPv6 frame
    out.append(eth6(ctx, Raw(bytes(h))))
    out.append(eth6(ctx, ip6(ctx, nh=253) / Raw(b"unknown next header")))
    out.append(eth6(ctx, ip6(ctx, nh=59) / Raw(b"no next header, bytes after")))
    # hop-by-hop: unknown options of each action (skip, discard, discard+ICMP)
    for otype in (0x1e, 0x5e, 0x9e, 0xde):
        out.append(eth6(ctx, ip6(ctx) / IPv6ExtHdrHopByHop(
            options=[HBHOptUnknown(otype=otype, optdata=b"abcd")]) / echo))
    # hop-by-hop after another header (only allowed first), option length
    # past the header, padding of every size
    out.append(eth6(ctx, ip6(ctx) / IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop() / echo))
    out.append(eth6(ctx, ip6(ctx) / IPv6ExtHdrHopByHop(
        options=[HBHOptUnknown(otype=0x1e, optlen=200, optdata=b"ab")]) / echo))
    out.append(eth6(ctx, ip6(ctx) / IPv6ExtHdrDestOpt(
        options=[PadN(optdata=b"\0" * r.randrange(0, 40))]) / echo))
    out.append(eth6(ctx, ip6(ctx) / IPv6ExtHdrDestOpt(len=255) / echo))  # longer than the frame
    # routing headers: type 0 (deprecated, RFC 5095) and 2, segments left
    for rtype, segleft in ((0, 1), (0, 0), (2, 1), (4, 3), (255, 1)):
        out.append(eth6(ctx, ip6(ctx) / IPv6ExtHdrRouting(
            type=rtype, segleft=segleft, addresses=[ctx.hip6]) / echo))
    # a chain of 60 destination-options headers
    chain = ip6(ctx)
    for _ in range(60):
        chain = chain / IPv6ExtHdrDestOpt()
    out.append(eth6(ctx, chain / echo))
    # ICMPv6 with a bad checksum; an echo to all-nodes; a UDP zero checksum
    out.append(eth6(ctx, ip6(ctx) / ICMPv6EchoRequest(cksum=0x1234, data=b"bad")))
    out.append(bytes(Ether(dst="33:33:00:00:00:01", src=ctx.hmac) /
                     IPv6(src=ctx.hip6, dst="ff02::1") / echo))
    out.append(eth6(ctx, ip6(ctx) / UDP(sport=4000, dport=7, chksum=0) / Raw(b"zero csum")))
    out.append(eth6(ctx, ip6(ctx) / UDP(sport=4000, dport=7, len=200) / Raw(b"len lies")))
    out.append(eth6(ctx, ip6(ctx) / TCP(sport=r.randrange(1024, 65535), dport=7, flags="S")))
    # neighbour discovery that lies: hop limit not 255, NA for our own
    # address, an NS for someone else, a redirect, zero-length options
    lladdr = "fe80::1"
    out.append(eth6(ctx, IPv6(src=lladdr, dst=ctx.gip6, hlim=64) / ICMPv6ND_NS(tgt=ctx.gip6)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst=ctx.gip6) / ICMPv6ND_NA(tgt=ctx.gip6, R=0, S=0, O=1)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst=ctx.gip6) / ICMPv6ND_NS(tgt=ctx.hip6)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst=ctx.gip6) /
                    ICMPv6ND_Redirect(tgt="fe80::99", dst=ctx.hip6)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst=ctx.gip6) / ICMPv6ND_NS(tgt=ctx.gip6) /
                    Raw(b"\x01\x00" + b"\0" * 6)))  # option length 0
    ra = ICMPv6ND_RA(routerlifetime=0)
    out.append(eth6(ctx, IPv6(src=lladdr, dst="ff02::1") / ra /
                    ICMPv6NDOptPrefixInfo(prefix="2001:db8:bad::", prefixlen=64, A=0, L=1)))
    out.append(eth6(ctx, IPv6(src=ctx.hip6, dst="ff02::1") / ra /  # not link-local: ignored
                    ICMPv6NDOptPrefixInfo(prefix="2001:db8:bad:1::", prefixlen=64, A=1)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst="ff02::1") / ra / ICMPv6NDOptMTU(mtu=600)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst="ff02::1") / ra / Raw(b"\x03\x00" + b"\0" * 30)))
    out.append(eth6(ctx, IPv6(src=lladdr, dst="ff02::1", hlim=1) / ICMPv6MLQuery()))
    return out


def phase_frags6(ctx):
    """IPv6 fragments: never completing, first missing, overlapping (RFC
    5722: the whole datagram is dropped), duplicated, complete; tiny,
    atomic, past 64 KiB, and a non-final fragment not a multiple of 8."""
    r = ctx.rng
    out = []
    for _ in range(30):
        ident = r.randrange(1 << 32)
        big = (ip6(ctx) / IPv6ExtHdrFragment(id=ident) /
               UDP(sport=4100, dport=7) / Raw(b"F" * 3000))
        frs = fragment6(big, 1000)
        kind = r.randrange(5)
        if kind == 0:
            frs = frs[:-1]
        elif kind == 1:
            frs = frs[1:]
        elif kind == 2:
            ov = (IPv6(src=big.src, dst=ctx.gip6) /
                  IPv6ExtHdrFragment(id=ident, offset=50, m=1, nh=17) / Raw(b"V" * 1200))
            frs = frs[:1] + [ov] + frs[1:]
        elif kind == 3:
            frs = list(reversed(frs)) + frs[:1]
        out += [eth6(ctx, f) for f in frs]
    ident = r.randrange(1 << 32)
    for i in range(12):
        out.append(eth6(ctx, IPv6(src=ctx.hip6, dst=ctx.gip6) /
                        IPv6ExtHdrFragment(id=ident, offset=i, m=1, nh=17) / Raw(b"12345678")))
    out.append(eth6(ctx, IPv6(src=ctx.hip6, dst=ctx.gip6) /  # atomic fragment
                    IPv6ExtHdrFragment(id=ident + 1, offset=0, m=0) /
                    ICMPv6EchoRequest(id=7, seq=7, data=b"atomic")))
    out.append(eth6(ctx, IPv6(src=ctx.hip6, dst=ctx.gip6) /
                    IPv6ExtHdrFragment(id=ident + 2, offset=8191, m=0, nh=17) / Raw(b"z" * 100)))
    out.append(eth6(ctx, IPv6(src=ctx.hip6, dst=ctx.gip6) /
                    IPv6ExtHdrFragment(id=ident + 3, offset=0, m=1, nh=17) / Raw(b"q" * 13)))
    return out


def phase_tcp_window(ctx, connections):
    """tcp_in_window.run on `connections` connections from an address of
    the subnet no one else uses (.78), each from its own port. Returns
    {"ok", "sent", "connections": [each run's result]}."""
    link = Link(ctx.iface, ctx.gip, ctx.gmac)
    runs = [tcp_in_window.run(link, ctx.prefix + ".78", ctx.rng.randrange(20000, 60000))
            for _ in range(connections)]
    return {"ok": all(r["ok"] for r in runs), "sent": sum(r["sent"] for r in runs),
            "connections": runs}


# Phases that hold a conversation instead of sending a set of frames.
CONVERSATIONS = {"tcp-window": phase_tcp_window}

PHASES = {
    "ether": phase_ether, "arp": phase_arp, "ipv4": phase_ipv4, "icmp": phase_icmp,
    "tcp": phase_tcp, "udp": phase_udp, "frags": phase_frags,
    "syn-flood": phase_syn_flood, "syn-flood-unanswered": phase_syn_flood_unanswered,
    "udp-flood": phase_udp_flood, "csum": phase_csum,
    "icmp-flood": phase_icmp_flood, "ipv6": phase_ipv6, "frags6": phase_frags6,
    "nd6": phase_nd6,
}
IP6_PHASES = ("ipv6", "frags6", "nd6")


def tap_dropped(iface):
    """Frames the tap dropped on their way to QEMU (its queue was full:
    the guest did not take them in time)."""
    try:
        with open("/sys/class/net/%s/statistics/tx_dropped" % iface) as f:
            return int(f.read())
    except OSError:
        return 0


class Pace:
    """Frames per second: fixed at `rate`, or (adaptive) the most the
    guest takes in, found from the tap's drop counter every 50 ms: up 10 %
    while nothing is dropped, down 30 % when frames were (additive probing
    would take minutes to find the guest's rate under TCG; this finds it
    in a second and follows the load of the machine). `rate` is then the
    ceiling."""

    def __init__(self, iface, rate, adaptive):
        self.iface, self.ceiling, self.adaptive = iface, rate, adaptive
        self.rate = rate if not adaptive else min(rate, 5000.0)
        self.last_check = time.monotonic()
        self.last_drops = tap_dropped(iface)

    def update(self, now):
        if not self.adaptive or now - self.last_check < 0.05:
            return
        drops = tap_dropped(self.iface)
        if drops > self.last_drops:
            self.rate = max(200.0, self.rate * 0.7)
        else:
            self.rate = min(self.ceiling, self.rate * 1.1)
        self.last_drops, self.last_check = drops, now


def send(iface, frames, count, rate, adaptive=False):
    """Sends count frames, cycling through frames; returns (sent, errors,
    seconds, frames the tap dropped)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    drops0 = tap_dropped(iface)
    pace = Pace(iface, rate, adaptive)
    sent = errors = 0
    start = time.monotonic()
    due = 0.0  # seconds after start the next burst is due
    burst = 32
    i = 0
    while sent + errors < count:
        for _ in range(min(burst, count - sent - errors)):
            for _try in range(100):
                try:
                    s.send(frames[i % len(frames)])
                    sent += 1
                    break
                except OSError as e:
                    if e.errno != errno.ENOBUFS:
                        raise  # a frame the socket refuses: a bug here
                    time.sleep(0.001)  # the tap's queue is full: wait
            else:
                errors += 1  # QEMU did not read the tap for 100 ms
            i += 1
        now = time.monotonic()
        pace.update(now)
        due += burst / pace.rate
        ahead = due - (now - start)
        if ahead > 0:
            time.sleep(ahead)
        elif ahead < -0.1:
            due = now - start  # behind (the machine is busy): no catching up
    s.close()
    time.sleep(0.2)  # what is still queued in the tap is taken or dropped
    return sent, errors, time.monotonic() - start, tap_dropped(iface) - drops0


def converse(phase, ctx, count):
    """A conversation phase, timed and with the tap's drops, as send()
    reports a phase of frames."""
    drops0 = tap_dropped(ctx.iface)
    start = time.monotonic()
    ph = phase(ctx, count)
    ph.update(secs=round(time.monotonic() - start, 2), distinct=0,
              tap_dropped=tap_dropped(ctx.iface) - drops0)
    return ph


def buffers_now(ip):
    """The guest's in-use packet buffers and pools (netns_tap.buffers_in_use
    of its /stats.json), or None if it did not answer."""
    try:
        return buffers_in_use(json.loads(netns_probe.http(ip, "/stats.json")))
    except (OSError, ValueError, KeyError):
        return None


def settle(ip, baseline, within):
    """Waits until the guest's buffers equal baseline; returns (back,
    seconds, {counter: [now, baseline]} of those that differ)."""
    start = time.monotonic()
    while True:
        now = buffers_now(ip)
        if now == baseline:
            return True, round(time.monotonic() - start, 1), {}
        if time.monotonic() - start > within:
            left = {k: [now[k], baseline[k]] for k in baseline
                    if now[k] != baseline[k]} if now else {"stats": "no answer"}
            return False, round(time.monotonic() - start, 1), left
        time.sleep(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", default="tap0")
    ap.add_argument("--guest-ip", required=True)
    ap.add_argument("--guest-mac", required=True)
    ap.add_argument("--guest-ip6", help="the guest's address on the tap's /64 "
                    "(ipv6, frags6): PREFIX::N")
    ap.add_argument("--router6", help="nd6: the real router's link-local address")
    ap.add_argument("--offlink6", help="nd6: an address the guest reaches through "
                    "the router")
    ap.add_argument("--phase", required=True,
                    help="comma-separated phases, or all: "
                    + " ".join(sorted(list(PHASES) + list(CONVERSATIONS))))
    ap.add_argument("--probe", type=float, default=0,
                    help="after each phase, check the guest answers (netns_probe.py), "
                    "retrying up to this many seconds")
    ap.add_argument("--settle", type=float, default=0,
                    help="after each phase's probe, wait up to this many seconds for the "
                    "guest's packet buffers and lwIP pools to be back at the baseline read "
                    "before the first phase (needs --probe)")
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--rate", type=float, default=5000.0)
    ap.add_argument("--adaptive", action="store_true",
                    help="pace to what the guest takes in (the tap's drop counter), "
                    "--rate at most")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    ctx = Ctx(a)
    known = sorted(list(PHASES) + list(CONVERSATIONS))
    # "all" is every set of frames; a conversation is asked for by name
    # (its COUNT is connections, not frames).
    names = sorted(PHASES) if a.phase == "all" else a.phase.split(",")
    if not (a.guest_ip6 and a.router6 and a.offlink6):
        if a.phase == "all":
            names = [n for n in names if n != "nd6"]
        elif "nd6" in names:
            ap.error("phase nd6 needs --guest-ip6, --router6 and --offlink6")
    if not a.guest_ip6:
        if a.phase == "all":
            names = [n for n in names if n not in IP6_PHASES]
        elif set(names) & set(IP6_PHASES):
            ap.error("phases %s need --guest-ip6" % " ".join(IP6_PHASES))
    for name in names:
        if name not in known:
            ap.error("unknown phase %r" % name)
    if a.settle and not a.probe:
        ap.error("--settle needs --probe")
    total = {"phase": a.phase, "sent": 0, "errors": 0, "tap_dropped": 0, "distinct": 0,
             "secs": 0.0, "probes": {}, "phases": {}}
    baseline = None
    if a.settle:
        first = netns_probe.probe(a.guest_ip, a.probe, stats=True)
        if not first["ok"]:
            total["probes"]["before"] = first
            json.dump(total, sys.stdout)
            print()
            return
        baseline = buffers_in_use(first["stats"])
    for name in names:
        if name in CONVERSATIONS:
            ph = converse(CONVERSATIONS[name], ctx, a.count)
        else:
            frames = PHASES[name](ctx)
            sent, errors, secs, dropped = send(a.iface, frames, a.count, a.rate, a.adaptive)
            total["errors"] += errors
            ph = {"sent": sent, "tap_dropped": dropped, "secs": round(secs, 2),
                  "distinct": len(frames)}
        total["sent"] += ph["sent"]
        total["tap_dropped"] += ph["tap_dropped"]
        total["distinct"] += ph["distinct"]
        total["secs"] += ph["secs"]
        total["phases"][name] = ph
        if a.probe:
            total["probes"][name] = netns_probe.probe(a.guest_ip, a.probe)
            ph["answered"] = total["probes"][name]["ok"]
            ph["answer_secs"] = total["probes"][name]["secs"]
            if not total["probes"][name]["ok"]:
                break  # the guest is mute: stop and report
        if baseline is not None:
            ph["buffers_back"], ph["settle_secs"], ph["left"] = settle(
                a.guest_ip, baseline, a.settle)
    total["secs"] = round(total["secs"], 2)
    json.dump(total, sys.stdout)
    print()


if __name__ == "__main__":
    main()
