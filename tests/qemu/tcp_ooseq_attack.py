#!/usr/bin/python3
"""Out-of-order data against the guest's echo port: real connections
that never fill a hole. Run inside the tap's namespace.

Opens --connections TCP connections to the guest's --port (a real
handshake each, tests/qemu/raw_tcp.py), then every --interval s until
--secs have passed sends a burst on each: --segments one-byte segments
that start --hole bytes past the next byte the guest expects. The hole is
never filled, so none of those bytes can be delivered and every segment
waits on the guest's out-of-order queue, each in a receive buffer of its
own. The burst is the same every time (the segments a real sender would
retransmit), built once. At the end each connection is reset.

With --quiet K, one more connection opens first and sends K such
segments once. After the second burst (when the guest has had to reclaim
buffers, if it ever does) it fills its hole and reads how far the guest
acknowledges: past the K segments if their queue was kept, only to the
hole's end if it was dropped (the guest drops the queues of connections
heard from least recently first). Early, too, because lwIP drops the
queue of a connection silent for six retransmission timeouts by itself
(TCP_OOSEQ_TIMEOUT: 15 s here).

Prints one JSON line once the connections are open ({"established": N,
"wanted": N}: the caller starts probing the guest then) and one when the
attack is over ({"bursts", "sent", "tap_dropped", "secs"}, and with
--quiet "quiet_kept": the quiet connection's queue was still there).

Usage: tcp_ooseq_attack.py --iface tap0 --guest-ip IP --guest-mac MAC
           [--src-ip IP] [--port 7] [--connections 1] [--segments 600]
           [--hole 2] [--interval 0.5] [--secs 20] [--quiet K]
"""
import argparse
import json
import sys
import time

from hostile_frames import tap_dropped
from raw_tcp import Link, RawTcp, seq_add

QUIET_CHECK_AFTER = 2  # bursts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", default="tap0")
    ap.add_argument("--guest-ip", required=True)
    ap.add_argument("--guest-mac", required=True)
    ap.add_argument("--src-ip", help="our address: one in the guest's /24 that the host "
                    "does not own (default: .77)")
    ap.add_argument("--port", type=int, default=7)
    ap.add_argument("--connections", type=int, default=1)
    ap.add_argument("--segments", type=int, default=600)
    ap.add_argument("--hole", type=int, default=2)
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--secs", type=float, default=20)
    ap.add_argument("--quiet", type=int, default=0,
                    help="one more connection queues this many segments once, first")
    a = ap.parse_args()
    src = a.src_ip or a.guest_ip.rsplit(".", 1)[0] + ".77"

    link = Link(a.iface, a.guest_ip, a.guest_mac)
    quiet = RawTcp(link, src, 39999, a.port) if a.quiet else None
    if quiet and quiet.open():
        link.send([quiet.segment(b"q", seq=seq_add(quiet.snd_nxt, a.hole + i))
                   for i in range(a.quiet)])
    conns = []
    for k in range(a.connections):
        c = RawTcp(link, src, 40000 + k, a.port)
        if c.open():
            conns.append(c)
    opened = len(conns) + (1 if quiet and quiet.rcv_nxt is not None else 0)
    print(json.dumps({"established": opened, "wanted": a.connections + (1 if quiet else 0)}),
          flush=True)
    if opened < a.connections + (1 if quiet else 0):
        return 1

    burst = [c.segment(b"x", seq=seq_add(c.snd_nxt, a.hole + i))
             for i in range(a.segments) for c in conns]
    announce = conns[0]
    drops0 = tap_dropped(a.iface)
    start = time.monotonic()
    bursts = sent = 0
    quiet_kept = None
    while time.monotonic() - start < a.secs:
        due = start + (bursts + 1) * a.interval
        announce.announce()  # keeps the guest's ARP entry for us fresh
        sent += link.send(burst)
        bursts += 1
        if quiet and bursts == QUIET_CHECK_AFTER:
            quiet_kept = quiet_queue_kept(quiet, a.hole, a.quiet)
            quiet.reset()
        link.drain()  # the guest's duplicate ACKs: not read
        time.sleep(max(0.0, due - time.monotonic()))
    summary = {"bursts": bursts, "sent": sent, "tap_dropped": tap_dropped(a.iface) - drops0,
               "secs": round(time.monotonic() - start, 1)}
    for c in conns:
        c.reset()
    if quiet:
        summary["quiet_kept"] = quiet_kept
    print(json.dumps(summary), flush=True)
    return 0


def quiet_queue_kept(c, hole, queued):
    """Fills c's hole; True if the guest then acknowledges the queued
    segments too, False if only the hole, None if no ACK came."""
    c.link.drain()
    c.send(c.segment(b"h" * hole))
    filled = seq_add(c.snd_nxt, hole)
    acks = [s.ack for s in c.collect(2.0) if "A" in s.flags]
    if seq_add(filled, queued) in acks:
        return True
    return False if filled in acks else None


if __name__ == "__main__":
    sys.exit(main())
