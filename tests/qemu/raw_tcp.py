"""A TCP peer made of raw frames, for tests that put segments where a
host's own TCP never would: past a hole in an open connection's sequence
space, inside its window with a wrong checksum or wrong flags. Run inside
the namespace that holds the tap (tests/qemu/netns_tap.py).

The peer speaks from an address in the tap's subnet that the host does
not own, with the tap's own MAC. The guest learns that pair from an ARP
request the peer sends (announce()), so its replies come back to the tap,
where this process reads them on an AF_PACKET socket; the host's kernel,
which does not own the address, drops them instead of answering with a
reset as it would for its own address.

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
import time
from collections import namedtuple

from scapy.all import ARP, IP, TCP, Ether, Raw, get_if_hwaddr
from scapy.config import conf

conf.verb = 0

ETH_P_IP = 0x0800
# Offset of the TCP checksum in a frame with a 20-byte IPv4 header.
TCP_SUM_AT = 14 + 20 + 16

# One segment from the guest: flags as scapy's letters (e.g. "A", "SA").
Segment = namedtuple("Segment", "seq ack flags win payload")

FLAG_LETTERS = "FSRPAUEC"


def flag_text(bits):
    return "".join(c for i, c in enumerate(FLAG_LETTERS) if bits & (1 << i))


def seq_add(a, n):
    return (a + n) & 0xffffffff


class Link:
    """The tap, both ways: frames out to the guest, the guest's frames in."""

    def __init__(self, iface, guest_ip, guest_mac):
        self.iface, self.guest_ip, self.guest_mac = iface, guest_ip, guest_mac
        self.mac = get_if_hwaddr(iface)
        self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind((iface, 0))
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
        self.rx.bind((iface, ETH_P_IP))
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self._guest = socket.inet_aton(guest_ip)

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
        while select.select([self.rx], [], [], 0)[0]:
            self.rx.recv(65536)

    def tcp_in(self, timeout):
        """The guest's TCP segments for up to timeout s: a list of
        (src_port, dst_ip, dst_port, Segment)."""
        out = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.rx], [], [], left)[0]:
                return out
            seg = self._parse(self.rx.recv(65536))
            if seg:
                out.append(seg)

    def _parse(self, f):
        if len(f) < 54 or f[12:14] != b"\x08\x00":
            return None
        ip = f[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6 or ip[12:16] != self._guest or (ip[6] & 0x3f) or ip[7]:
            return None
        tot = struct.unpack("!H", ip[2:4])[0]
        tcp = ip[ihl:tot]
        if len(tcp) < 20:
            return None
        sport, dport, seq, ack, off_flags, win = struct.unpack("!HHIIHH", tcp[:16])
        payload = bytes(tcp[(off_flags >> 12) * 4:])
        return (sport, socket.inet_ntoa(ip[16:20]), dport,
                Segment(seq, ack, flag_text(off_flags & 0xff), win, payload))


class RawTcp:
    """One connection from (src_ip, sport) to the guest's dport."""

    def __init__(self, link, src_ip, sport, dport):
        self.link, self.src_ip, self.sport, self.dport = link, src_ip, sport, dport
        self.iss = random.randrange(1 << 32)
        self.snd_nxt = self.iss
        self.rcv_nxt = None
        self.wnd = 0
        self.received = bytearray()  # the guest's data, in order

    def announce(self):
        """An ARP request from our address for the guest's: the guest
        learns where to send its replies (lwIP keeps the sender of a
        request aimed at it)."""
        self.link.send([bytes(Ether(dst="ff:ff:ff:ff:ff:ff", src=self.link.mac) /
                              ARP(op=1, hwsrc=self.link.mac, psrc=self.src_ip,
                                  pdst=self.link.guest_ip))])

    def segment(self, payload=b"", seq=None, flags="A", ack=None, window=65535,
                bad_sum=False, urgptr=0, options=None):
        """One frame of this connection: seq defaults to snd_nxt, ack to
        rcv_nxt; bad_sum flips a bit of the TCP checksum."""
        t = TCP(sport=self.sport, dport=self.dport, flags=flags,
                seq=self.snd_nxt if seq is None else seq,
                ack=(self.rcv_nxt or 0) if ack is None else ack,
                window=window, urgptr=urgptr, options=options or [])
        f = bytearray(bytes(Ether(dst=self.link.guest_mac, src=self.link.mac) /
                            IP(src=self.src_ip, dst=self.link.guest_ip) / t / Raw(payload)))
        if bad_sum:
            f[TCP_SUM_AT] ^= 0x40
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
