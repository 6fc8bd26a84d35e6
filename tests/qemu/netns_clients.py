#!/usr/bin/python3
"""Many clients at once against the guest, for the multiqueue tests.

Run inside the test's network namespace (ip netns exec NS python3 this.py
...): it opens TCP echo connections, UDP echo flows and HTTP requests, each
from its own source port, all at the same time, so the host's flow hash
spreads them over the tap's queues. Prints one JSON object: how many of
each were answered correctly, and the first errors seen.

Usage: netns_clients.py GUEST_IP [--tcp N] [--udp N] [--http N] [--bytes B]
"""
import argparse
import json
import os
import socket
import threading

TIMEOUT = 30


def tcp_echo(ip, nbytes):
    data = os.urandom(nbytes)
    with socket.create_connection((ip, 7), timeout=TIMEOUT) as s:
        got = bytearray()
        sent = 0
        while sent < len(data):  # interleave: the window bounds what fits
            sent += s.send(data[sent:sent + 8192])
            s.setblocking(False)
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    got += chunk
            except BlockingIOError:
                pass
            s.setblocking(True)
            s.settimeout(TIMEOUT)
        s.shutdown(socket.SHUT_WR)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    if bytes(got) != data:
        raise ValueError("tcp echo: %d of %d bytes back, equal=%s"
                         % (len(got), len(data), bytes(got) == data[:len(got)]))


def udp_echo(ip, i):
    msg = ("flow %d %s" % (i, os.urandom(8).hex())).encode()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2)
        for _ in range(5):  # UDP may drop: retry, the same source port
            s.sendto(msg, (ip, 7))
            try:
                got, _ = s.recvfrom(2048)
            except socket.timeout:
                continue
            if got == msg:
                return
            raise ValueError("udp echo: %r for %r" % (got, msg))
    raise ValueError("udp echo: no answer in 5 tries")


def http_get(ip):
    with socket.create_connection((ip, 80), timeout=TIMEOUT) as s:
        s.sendall(b"GET / HTTP/1.0\r\nHost: guest\r\n\r\n")
        body = bytearray()
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            body += chunk
    if not body.startswith(b"HTTP/1.") or b" 200 " not in body[:16] \
            or b"<html>" not in body:
        raise ValueError("http: %r" % bytes(body[:80]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ip")
    p.add_argument("--tcp", type=int, default=8)
    p.add_argument("--udp", type=int, default=32)
    p.add_argument("--http", type=int, default=4)
    p.add_argument("--bytes", type=int, default=32768)
    a = p.parse_args()
    ok = {"tcp": 0, "udp": 0, "http": 0}
    errors = []
    lock = threading.Lock()

    def run(kind, fn, *args):
        try:
            fn(*args)
            with lock:
                ok[kind] += 1
        except (OSError, ValueError) as e:
            with lock:
                errors.append("%s: %s" % (kind, e))

    threads = [threading.Thread(target=run, args=("tcp", tcp_echo, a.ip, a.bytes))
               for _ in range(a.tcp)]
    threads += [threading.Thread(target=run, args=("udp", udp_echo, a.ip, i))
                for i in range(a.udp)]
    threads += [threading.Thread(target=run, args=("http", http_get, a.ip))
                for _ in range(a.http)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"ok": ok, "errors": errors[:10]}))


if __name__ == "__main__":
    main()
