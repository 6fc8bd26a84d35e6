#!/usr/bin/python3
"""The guest's IPv6 router on a tap, run inside the tap's namespace.

Linux in the namespace is the router's host half: it owns the tap's
link-local address (the router's address here) and answers neighbour
solicitations for it. This script is the other half, the router
advertisements (no radvd is needed): one RA to all nodes at the start,
with the given prefixes (on-link and autonomous, valid 1 day, preferred
4 hours) and the tap's MAC, then one in answer to every router
solicitation (at most two a second), until --secs have passed or it is
stopped. Unsolicited RAs are not repeated: after losing its router the
guest must ask (a router solicitation) to get it back.

Usage: netns_router.py --iface tap0 --prefix 2001:db8:76:: [--prefix ...]
           [--source ADDR] [--secs 600] [--once]
--once: send the first RA and exit.
"""
import argparse
import socket
import time
import types

from scapy.all import get_if_hwaddr

from hostile_nd6 import (ALL_NODES, RA, eui64_link_local, icmp6_frame, opt_lladdr, opt_prefix,
                         ra_body)

ETH_P_IPV6 = 0x86DD


def is_router_solicitation(frame):
    """An IPv6 frame whose next header is ICMPv6 and type RS (no
    extension headers: the guest sends none)."""
    return (len(frame) >= 55 and frame[12:14] == b"\x86\xdd" and frame[20] == 58
            and frame[54] == 133)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", default="tap0")
    ap.add_argument("--prefix", action="append", required=True)
    ap.add_argument("--secs", type=float, default=600)
    ap.add_argument("--source", help="the router's link-local address (default: the "
                    "tap's, EUI-64 of its MAC)")
    ap.add_argument("--once", action="store_true")
    a = ap.parse_args()
    mac = get_if_hwaddr(a.iface)
    me = types.SimpleNamespace(gmac=None, hmac=mac)
    opts = opt_lladdr(mac) + b"".join(opt_prefix(p) for p in a.prefix)
    ra = icmp6_frame(me, a.source or eui64_link_local(mac), ALL_NODES, RA, ra_body(opts=opts))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IPV6))
    s.bind((a.iface, 0))
    s.send(ra)
    if a.once:
        return
    end = time.monotonic() + a.secs
    last = 0.0
    s.settimeout(0.5)
    while time.monotonic() < end:
        try:
            frame = s.recv(2048)
        except socket.timeout:
            continue
        if is_router_solicitation(frame) and time.monotonic() - last >= 0.5:
            s.send(ra)
            last = time.monotonic()


if __name__ == "__main__":
    main()
