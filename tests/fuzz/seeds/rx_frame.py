#!/usr/bin/env python3
"""Seeds of tests/fuzz/fuzz_rx_frame.c, in its input format: frames as
QEMU's virtio-net hands them to the guest (user networking, or a tap with
vnet headers), each behind its virtio-net header in RX buffers.

    python3 tests/fuzz/seeds/rx_frame.py tests/fuzz/corpus/rx_frame

The frames are built here with their real checksums: ARP, an ICMP echo,
a DHCP offer as QEMU's user networking sends it, a TCP handshake, a bulk
TCP stream (consecutive segments of one connection, the last with PSH:
what the coalescing joins), UDP, IPv6 TCP and UDP, an IPv4 fragment, the
same stream flagged DATA_VALID, a NEEDS_CSUM frame from a tap (the TCP
field holds only the pseudo-header sum), a 64 KiB GSO frame over
mergeable buffers, and an IPv6 bulk stream (plain, flagged DATA_VALID,
with a hop-by-hop header the coalescing must leave alone, cut into TX
scatter lists), and a 64 KiB IPv6 GSO frame (GUEST_TSO6).
"""
import os
import struct
import sys

RX_BUF_LEN = 2048 - 64
MAC_G, MAC_H = bytes.fromhex("525400123456"), bytes.fromhex("525400123502")
IP_G, IP_H = bytes([10, 0, 2, 15]), bytes([10, 0, 2, 2])
IP6_G = bytes.fromhex("fe800000000000005054fffe123456")[:16].ljust(16, b"\0")
IP6_H = bytes.fromhex("fe800000000000000000000000000002")


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(typ, payload, src=MAC_H, dst=MAC_G):
    return dst + src + struct.pack("!H", typ) + payload


def ipv4(proto, payload, src=IP_H, dst=IP_G, ident=1, frag=0x4000, ttl=64):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag,
                    ttl, proto, 0, src, dst)
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def l4_v4(proto, seg, src=IP_H, dst=IP_G, field=None, partial=False):
    pseudo = src + dst + struct.pack("!BBH", 0, proto, len(seg))
    s = csum(pseudo + seg)
    if partial:  # NEEDS_CSUM: the folded pseudo-header sum only
        s = ~csum(pseudo) & 0xFFFF
    return seg[:field] + struct.pack("!H", s) + seg[field + 2:]


def tcp(sport, dport, seq, ack, flags, payload=b"", opts=b"", win=64240):
    off = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags,
                       win, 0, 0) + opts + payload


def tcp4(seg, **kw):
    return eth(0x0800, ipv4(6, l4_v4(6, seg, field=16, **kw)))


def udp4(sport, dport, payload):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    return eth(0x0800, ipv4(17, l4_v4(17, u, field=6)))


def v6(nh, seg, field):
    pseudo = IP6_H + IP6_G + struct.pack("!IxxxB", len(seg), nh)
    seg = seg[:field] + struct.pack("!H", csum(pseudo + seg)) + seg[field + 2:]
    h = struct.pack("!IHBB16s16s", 0x60000000, len(seg), nh, 64, IP6_H, IP6_G)
    return eth(0x86DD, h + seg)


def v6_ext(nh, seg, field):
    """IPv6 with an 8-byte hop-by-hop header (a PadN option) before seg."""
    f = v6(nh, seg, field)
    hbh = bytes([nh, 0, 1, 4, 0, 0, 0, 0])
    ip = bytearray(f[14:54])
    ip[4:6] = struct.pack("!H", len(hbh) + len(seg))
    ip[6] = 0
    return f[:14] + bytes(ip) + hbh + f[54:]


def vhdr(flags=0, gso=0, hdr_len=0, gso_size=0, start=0, off=0, nbuf=1):
    return struct.pack("<BBHHHHH", flags, gso, hdr_len, gso_size, start, off,
                       nbuf)


def buffers(frame, hdr=None, hlen=12):
    """The RX buffers the device fills with hdr + frame."""
    data = (hdr if hdr is not None else vhdr())[:hlen] + frame
    out = b""
    for i in range(0, len(data), RX_BUF_LEN):
        piece = data[i:i + RX_BUF_LEN]
        out += struct.pack("<H", len(piece)) + piece
    return out


ARP = eth(0x0806, struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, MAC_H,
                               IP_H, bytes(6), IP_G), dst=b"\xff" * 6)
ICMP = eth(0x0800, ipv4(1, (lambda m: m[:2] + struct.pack("!H", csum(m)) +
                            m[4:])(struct.pack("!BBHHH", 8, 0, 0, 1, 1) +
                                   bytes(range(48)))))
DHCP = udp4(67, 68, bytes([2, 1, 6, 0]) + bytes(232) +
            bytes([99, 130, 83, 99, 53, 1, 2, 255]))
MSS = 1448
STREAM = [tcp4(tcp(5001, 40000, 1000 + i * MSS, 77, 0x18 if i == 3 else 0x10,
                   bytes([i]) * MSS, opts=b"\x01\x01\x08\x0a" + bytes(8)))
          for i in range(4)]
SYN = tcp4(tcp(40000, 80, 5, 0, 0x02, opts=b"\x02\x04\x05\xb4\x01\x03\x03\x07"))
FRAG = eth(0x0800, ipv4(17, bytes(64), frag=0x2000))
UDP6 = v6(17, struct.pack("!HHHH", 7, 7, 13, 0) + b"hello", 6)
TCP6 = v6(6, tcp(80, 40000, 9, 10, 0x18, b"GET / HTTP/1.0\r\n\r\n"), 16)
STREAM6 = [v6(6, tcp(5001, 40000, 3000 + i * 1428, 77,
                     0x18 if i == 3 else 0x10, bytes([i]) * 1428,
                     opts=b"\x01\x01\x08\x0a" + bytes(8)), 16)
           for i in range(4)]
STREAM6_HBH = [v6_ext(6, tcp(5001, 40000, 9000 + i * 1420, 77, 0x10,
                             bytes([i]) * 1420), 16) for i in range(3)]
BIG = tcp4(tcp(5001, 40000, 1, 77, 0x10, bytes(range(256)) * 45),
           partial=True)

BIG6 = v6(6, tcp(5001, 40000, 1, 77, 0x10, bytes(range(256)) * 45), 16)

SEEDS = {
    "user-net-mix": bytes([0x02]) + b"".join(
        buffers(f) for f in (ARP, ICMP, DHCP, SYN, UDP6, TCP6, FRAG)),
    "legacy-10-byte-header": bytes([0x00]) + b"".join(
        buffers(f, hlen=10) for f in (ARP, ICMP, SYN)),
    "tcp-stream-sw-csum": bytes([0x03]) + b"".join(buffers(f)
                                                   for f in STREAM),
    "tcp-stream-data-valid": bytes([0x07]) + b"".join(
        buffers(f, vhdr(flags=2)) for f in STREAM),
    "tap-needs-csum": bytes([0x17]) + buffers(
        STREAM[0][:14] + STREAM[0][14:], vhdr(flags=1, start=34, off=16)),
    "gso-64k-mergeable": bytes([0x2f]) + buffers(
        BIG, vhdr(flags=1, gso=1, hdr_len=54, gso_size=MSS, start=34, off=16,
                  nbuf=(12 + len(BIG) + RX_BUF_LEN - 1) // RX_BUF_LEN)),
    "tx-split-stream": bytes([0x33]) + b"".join(buffers(f)
                                                for f in STREAM[:3]),
    "ip6-stream-sw-csum": bytes([0x03]) + b"".join(buffers(f)
                                                   for f in STREAM6),
    "ip6-stream-data-valid": bytes([0x27]) + b"".join(
        buffers(f, vhdr(flags=2)) for f in STREAM6),
    "ip6-hop-by-hop-stream": bytes([0x13]) + b"".join(
        buffers(f) for f in STREAM6_HBH),
    "gso6-64k-mergeable": bytes([0x47]) + buffers(
        BIG6, vhdr(flags=2, gso=4, hdr_len=74, gso_size=1428,
                   nbuf=(12 + len(BIG6) + RX_BUF_LEN - 1) // RX_BUF_LEN)),
    "ip6-tx-split-stream": bytes([0x33]) + b"".join(buffers(f)
                                                    for f in STREAM6[:3]),
}

if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(sys.argv[1], name), "wb") as f:
            f.write(data)
