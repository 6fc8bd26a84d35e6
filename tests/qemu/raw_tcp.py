"""A TCP peer made of raw frames, for tests that put segments where a
host's own TCP never would: past a hole in an open connection's sequence
space, inside its window with a wrong checksum or wrong flags. Run inside
the namespace that holds the tap (tests/qemu/netns_tap.py).

The peer speaks from an address in the tap's subnet that the host does
not own, with the tap's own MAC. The guest learns that pair from an ARP
request (IPv4) or a neighbour solicitation (IPv6) the peer sends
(announce()), so its replies come back to the tap, where this process
reads them on an AF_PACKET socket; the host's kernel, which does not own
the address, drops them instead of answering with a reset as it would
for its own address. When the guest asks for the address again later
(its ARP entry or neighbour entry ages), a Neighbour thread answers.
IPv6 needs the guest's IPv6 address on the Link and an IPv6 src_ip.

    link = Link("tap0", guest_ip, guest_mac)
    c = RawTcp(link, "192.168.N.77", 40000, 7)
    c.open()                                  # SYN, SYN-ACK, ACK
    c.send(c.segment(b"hello"))               # at the next sequence number
    got = c.collect(1.0)                      # the guest's segments, parsed

Sequence numbers here are absolute 32-bit values; c.snd_nxt is the next
byte this peer sends, c.rcv_nxt the next byte it expects from the guest,
c.wnd the window the guest last advertised.
"""
import errno
import random
import select
import socket
import struct
import threading
import time
from collections import namedtuple

from scapy.all import ARP, IP, TCP, Ether, Raw, get_if_hwaddr
from scapy.config import conf
from scapy.layers.inet6 import (ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr,
                                ICMPv6NDOptSrcLLAddr, IPv6, in6_getnsma, in6_getnsmac)

conf.verb = 0

ETH_P_IP = 0x0800
ETH_P_ARP = 0x0806
ETH_P_IPV6 = 0x86dd
# Offset of the TCP checksum in a frame with a 20-byte IPv4 header, and
# with a 40-byte IPv6 header.
TCP_SUM_AT = 14 + 20 + 16
TCP6_SUM_AT = 14 + 40 + 16
# The guest's virtio-net driver merges consecutive segments of a flow into
# one GSO frame that the device cuts up (drivers/virtio_net_gso.c). On the
# tap that frame is still whole, as the host's kernel received it: its
# virtio-net header (flags, gso_type, hdr_len, gso_size, csum_start,
# csum_offset; host byte order) says how to cut it as a wire would see it.
SOL_PACKET = 263
# The kernel's receive time of each frame (struct timespec, CLOCK_REALTIME),
# so that a frame's time is when it came, not when a busy script read it.
SO_TIMESTAMPNS = 35
PACKET_VNET_HDR = 15
VNET_HDR_LEN = 10
VIRTIO_NET_HDR_GSO_NONE = 0

# One segment from the guest: flags as scapy's letters (e.g. "A", "SA"),
# opts the raw bytes of its TCP options, at when it was read
# (time.monotonic()).
Segment = namedtuple("Segment", "seq ack flags win payload opts at", defaults=(b"", 0.0))

FLAG_LETTERS = "FSRPAUEC"


def flag_text(bits):
    return "".join(c for i, c in enumerate(FLAG_LETTERS) if bits & (1 << i))


def seq_add(a, n):
    return (a + n) & 0xffffffff


def rx_socket(iface, proto, vnet=False):
    """An AF_PACKET socket reading iface's frames of one ethertype; with
    vnet, each frame comes after its virtio-net header (VNET_HDR_LEN
    bytes), which says whether the frame is a GSO frame and its segment
    size."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
    if vnet:
        s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((iface, proto))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    return s


def received(sock):
    """The next frame on a socket with SO_TIMESTAMPNS and when the
    kernel took it in, on time.monotonic()'s clock."""
    frame, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(16))
    now_mono, now_real = time.monotonic(), time.time()
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            sec, nsec = struct.unpack("=qq", data[:16])
            return frame, now_mono - max(0.0, now_real - (sec + nsec * 1e-9))
    return frame, now_mono


class Link:
    """The tap, both ways: frames out to the guest, the guest's frames in.
    With guest_ip6, its IPv6 segments too."""

    def __init__(self, iface, guest_ip, guest_mac, guest_ip6=None):
        self.iface, self.guest_ip, self.guest_mac = iface, guest_ip, guest_mac
        self.guest_ip6 = guest_ip6
        self.mac = get_if_hwaddr(iface)
        self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind((iface, 0))
        self.rx = rx_socket(iface, ETH_P_IP, vnet=True)
        self._guest = socket.inet_aton(guest_ip)
        self.rx6 = rx_socket(iface, ETH_P_IPV6, vnet=True) if guest_ip6 else None
        self._guest6 = socket.inet_pton(socket.AF_INET6, guest_ip6) if guest_ip6 else None
        self._socks = [x for x in (self.rx, self.rx6) if x]

    def close(self):
        for x in [self.tx] + self._socks:
            x.close()

    def send(self, frames):
        """Sends each frame; a full tap queue (ENOBUFS) is waited out, 1 ms
        at a time, for up to 100 ms. Returns the frames sent."""
        sent = 0
        for f in frames:
            for _ in range(100):
                try:
                    self.tx.send(f)
                    sent += 1
                    break
                except OSError as e:
                    if e.errno != errno.ENOBUFS:
                        raise
                    time.sleep(0.001)
        return sent

    def drain(self):
        """Forgets every frame already received."""
        while True:
            ready = select.select(self._socks, [], [], 0)[0]
            if not ready:
                return
            for x in ready:
                x.recv(65536)

    def tcp_in(self, timeout, first=False):
        """The guest's TCP segments for up to timeout s (with first, only
        until one has come): a list of (src_port, dst_ip, dst_port,
        Segment), dst_ip as text."""
        out = []
        end = time.monotonic() + timeout
        while True:
            ready = select.select(self._socks, [], [], max(0.0, end - time.monotonic()))[0]
            for x in ready:
                out += self._segments(*received(x))
            if not ready or (first and out) or time.monotonic() >= end:
                return out

    def _segments(self, v, at):
        """The guest's TCP segments in frame v (its virtio-net header
        first), as they reach a wire: one, or those the device cuts a GSO
        frame into (each gso_size bytes but the last; PSH and FIN only
        on the last, as the host's segmentation leaves them)."""
        gso_type, gso_size = v[1], struct.unpack("=H", v[4:6])[0]
        seg = self._parse(v[VNET_HDR_LEN:], at)
        if not seg or gso_type == VIRTIO_NET_HDR_GSO_NONE or not gso_size:
            return [seg] if seg else []
        sport, dst, dport, s = seg
        out = []
        for k in range(0, len(s.payload), gso_size):
            last = k + gso_size >= len(s.payload)
            flags = s.flags if last else s.flags.replace("P", "").replace("F", "")
            out.append((sport, dst, dport, s._replace(
                seq=seq_add(s.seq, k), flags=flags, payload=s.payload[k:k + gso_size])))
        return out

    def _parse(self, f, at):
        if len(f) < 54:
            return None
        if f[12:14] == b"\x86\xdd":
            return self._parse6(f, at)
        if f[12:14] != b"\x08\x00":
            return None
        ip = f[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6 or ip[12:16] != self._guest or (ip[6] & 0x3f) or ip[7]:
            return None
        tot = struct.unpack("!H", ip[2:4])[0]
        return self._segment(ip[ihl:tot], socket.inet_ntoa(ip[16:20]), at)

    def _parse6(self, f, at):
        ip = f[14:]
        if len(ip) < 60 or ip[6] != 6 or ip[8:24] != self._guest6:
            return None  # not TCP right after the header, or not the guest's
        tot = 40 + struct.unpack("!H", ip[4:6])[0]
        return self._segment(ip[40:tot], socket.inet_ntop(socket.AF_INET6, ip[24:40]), at)

    @staticmethod
    def _segment(tcp, dst, at):
        if len(tcp) < 20:
            return None
        sport, dport, seq, ack, off_flags, win = struct.unpack("!HHIIHH", tcp[:16])
        hlen = (off_flags >> 12) * 4
        return (sport, dst, dport, Segment(seq, ack, flag_text(off_flags & 0xff), win,
                                           bytes(tcp[hlen:]), bytes(tcp[20:hlen]), at))


class Neighbour(threading.Thread):
    """Answers the guest's ARP requests for ip4 and its neighbour
    solicitations for ip6 (addresses the host does not own) with the
    tap's MAC, until stop(): the peers' replies keep reaching the tap
    however long a run lasts."""

    def __init__(self, link, ip4=None, ip6=None):
        super().__init__(daemon=True)
        self.link, self.ip4, self.ip6 = link, ip4, ip6
        self.socks = [rx_socket(link.iface, ETH_P_ARP)]
        if ip6:
            self.socks.append(rx_socket(link.iface, ETH_P_IPV6))
        self._stop_flag = threading.Event()

    def stop(self):
        self._stop_flag.set()
        self.join(2)

    def run(self):
        while not self._stop_flag.is_set():
            for x in select.select(self.socks, [], [], 0.2)[0]:
                answer = self.answer(Ether(x.recv(65536)))
                if answer:
                    self.link.send([bytes(answer)])

    def answer(self, f):
        mac = self.link.mac
        if ARP in f and f[ARP].op == 1 and f[ARP].pdst == self.ip4:
            return (Ether(dst=f.src, src=mac) /
                    ARP(op=2, hwsrc=mac, psrc=self.ip4, hwdst=f[ARP].hwsrc, pdst=f[ARP].psrc))
        if ICMPv6ND_NS in f and self.ip6 and f[ICMPv6ND_NS].tgt == self.ip6:
            return (Ether(dst=f.src, src=mac) / IPv6(src=self.ip6, dst=f[IPv6].src, hlim=255) /
                    ICMPv6ND_NA(tgt=self.ip6, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=mac))
        return None


class RawTcp:
    """One connection from (src_ip, sport) to the guest's dport; IPv6
    when src_ip is an IPv6 address (the Link must know the guest's)."""

    def __init__(self, link, src_ip, sport, dport):
        self.link, self.src_ip, self.sport, self.dport = link, src_ip, sport, dport
        self.v6 = ":" in src_ip
        self.iss = random.randrange(1 << 32)
        self.snd_nxt = self.iss
        self.rcv_nxt = None
        self.wnd = 0
        self.received = bytearray()  # the guest's data, in order

    def announce(self):
        """An ARP request (IPv6: a neighbour solicitation) from our
        address for the guest's: the guest learns where to send its
        replies (lwIP keeps the sender of a request aimed at it)."""
        mac = self.link.mac
        if self.v6:
            g = self.link.guest_ip6
            packed = socket.inet_pton(socket.AF_INET6, g)
            group = socket.inet_ntop(socket.AF_INET6, in6_getnsma(packed))
            f = (Ether(dst=in6_getnsmac(packed), src=mac) /
                 IPv6(src=self.src_ip, dst=group, hlim=255) /
                 ICMPv6ND_NS(tgt=g) / ICMPv6NDOptSrcLLAddr(lladdr=mac))
        else:
            f = (Ether(dst="ff:ff:ff:ff:ff:ff", src=mac) /
                 ARP(op=1, hwsrc=mac, psrc=self.src_ip, pdst=self.link.guest_ip))
        self.link.send([bytes(f)])

    def segment(self, payload=b"", seq=None, flags="A", ack=None, window=65535,
                bad_sum=False, urgptr=0, options=None):
        """One frame of this connection: seq defaults to snd_nxt, ack to
        rcv_nxt; bad_sum flips a bit of the TCP checksum."""
        t = TCP(sport=self.sport, dport=self.dport, flags=flags,
                seq=self.snd_nxt if seq is None else seq,
                ack=(self.rcv_nxt or 0) if ack is None else ack,
                window=window, urgptr=urgptr, options=options or [])
        if self.v6:
            ip = IPv6(src=self.src_ip, dst=self.link.guest_ip6)
        else:
            ip = IP(src=self.src_ip, dst=self.link.guest_ip)
        f = bytearray(bytes(Ether(dst=self.link.guest_mac, src=self.link.mac) / ip / t /
                            Raw(payload)))
        if bad_sum:
            f[TCP6_SUM_AT if self.v6 else TCP_SUM_AT] ^= 0x40
        return bytes(f)

    def send(self, *frames):
        return self.link.send(frames)

    def collect(self, timeout):
        """This connection's segments from the guest for timeout s. Data
        at rcv_nxt is appended to received and acknowledged; rcv_nxt and
        wnd follow the guest."""
        segs = []
        for sport, dst, dport, s in self.link.tcp_in(timeout):
            if (sport, dst, dport) != (self.dport, self.src_ip, self.sport):
                continue
            segs.append(s)
            self.wnd = s.win
            if s.payload and self.rcv_nxt is not None and s.seq == self.rcv_nxt:
                self.received += s.payload
                self.rcv_nxt = seq_add(self.rcv_nxt, len(s.payload))
                self.send(self.segment())
        return segs

    def open(self, timeout=10, tries=3):
        """SYN, the guest's SYN-ACK, ACK. Returns True once established."""
        self.announce()
        for _ in range(tries):
            self.send(self.segment(seq=self.iss, flags="S", ack=0,
                                   options=[("MSS", 1460)]))
            end = time.monotonic() + timeout / tries
            while time.monotonic() < end:
                for s in self.collect(min(0.2, max(0.0, end - time.monotonic()))):
                    if "S" in s.flags and "A" in s.flags and s.ack == seq_add(self.iss, 1):
                        self.snd_nxt = seq_add(self.iss, 1)
                        self.rcv_nxt = seq_add(s.seq, 1)
                        self.send(self.segment())
                        return True
        return False

    def reset(self):
        """An acceptable RST (at the guest's rcv_nxt, our snd_nxt)."""
        self.send(self.segment(flags="R", ack=0))
