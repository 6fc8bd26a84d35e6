#!/usr/bin/python3
"""Many UDP echo flows at once against one guest, for the multiqueue
benchmarks (tools/bench-net-mq, tools/experiment-numa --scaling).

Each flow is its own socket, so its own source port: the host's flow
hash (or the device's RSS) spreads the flows over the queues. Every flow
keeps exactly one datagram in flight: it sends, waits for the echo (or
`timeout` seconds, then counts the datagram lost), and sends the next.
One thread drives every socket through a selector, so the client costs
the host one core at most however many flows run, and a Python thread
switch never sits between an echo's arrival and its count.

After `seconds` no flow sends again; the answers still on their way get
`timeout` more to arrive, and what has not arrived by then is lost. So
sent == answered + lost exactly.

Run as a script (inside the namespace the guest's tap is in) it prints
one JSON object: {"flows", "seconds", "sent", "answered", "lost"}.

Usage: udp_flows.py GUEST_IP SECONDS [--flows N] [--port P] [--timeout S]
"""
import argparse
import json
import selectors
import socket
import time


def run(ip, seconds, flows=64, port=7, timeout=0.5):
    """The flows against (ip, port) for `seconds`; returns the JSON
    object the script prints."""
    sel = selectors.DefaultSelector()
    socks, sent, answered, lost = [], 0, 0, 0
    pending = {}  # socket -> (payload awaited, time it was sent)
    try:
        for i in range(flows):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setblocking(False)
            s.connect((ip, port))
            sel.register(s, selectors.EVENT_READ, i)
            socks.append(s)
        t0 = time.monotonic()
        end = t0 + seconds
        for s in socks:
            sent += send_next(s, sel.get_key(s).data, sent, pending)
        while pending:
            now = time.monotonic()
            sending = now < end
            for key, _ in sel.select(0.05):
                got = receive(key.fileobj, pending)
                if got is None:
                    continue
                answered += got
                lost += 1 - got
                if sending:
                    sent += send_next(key.fileobj, key.data, sent, pending)
            now = time.monotonic()
            for s, (_, t) in list(pending.items()):
                if now - t > timeout:
                    del pending[s]
                    lost += 1
                    if now < end:
                        sent += send_next(s, sel.get_key(s).data, sent, pending)
    finally:
        for s in socks:
            sel.unregister(s)
            s.close()
        sel.close()
    return {"flows": flows, "seconds": seconds, "sent": sent, "answered": answered,
            "lost": lost}


def send_next(s, flow, n, pending):
    """Sends flow's next datagram (numbered n, unique over all flows);
    1 when it went out, 0 when the host refused it (counted nowhere)."""
    msg = b"flow %d %012d" % (flow, n)
    try:
        s.send(msg)
    except OSError:
        return 0
    pending[s] = (msg, time.monotonic())
    return 1


def receive(s, pending):
    """1: the awaited echo arrived; 0: the flow's datagram is known lost
    (an ICMP port unreachable); None: nothing to count (a late echo of a
    datagram already counted lost, or no datagram was awaited)."""
    try:
        data = s.recv(2048)
    except BlockingIOError:
        return None
    except ConnectionRefusedError:
        return 0 if pending.pop(s, None) else None
    want = pending.get(s)
    if want is None or data != want[0]:
        return None
    del pending[s]
    return 1


def figures(res):
    """Echoes answered per second and the lost share of what was sent,
    from run()'s object: {"echoes_per_s", "loss"}."""
    rate = res["answered"] / res["seconds"] if res["seconds"] > 0 else 0.0
    loss = res["lost"] / res["sent"] if res["sent"] else 0.0
    return {"echoes_per_s": rate, "loss": loss}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ip")
    p.add_argument("seconds", type=float)
    p.add_argument("--flows", type=int, default=64)
    p.add_argument("--port", type=int, default=7)
    p.add_argument("--timeout", type=float, default=0.5)
    a = p.parse_args()
    print(json.dumps(run(a.ip, a.seconds, a.flows, a.port, a.timeout)))


if __name__ == "__main__":
    main()
