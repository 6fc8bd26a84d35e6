#!/usr/bin/python3
"""Does the guest still answer? Run inside the tap's namespace.

One call checks ping (ICMP echo), HTTP GET / and /stats.json, TCP echo
(BYTES bytes, compared) and UDP echo (compared), each retried until
--within seconds have passed (a SYN flood leaves the guest's TCP pcbs in
SYN_RCVD for a while, an ARP flood its table full). Prints one JSON
object: ok, the seconds until every service had answered, the first
error of each service that failed, and /stats.json (parsed) if asked.

Usage: netns_probe.py GUEST_IP [--within S] [--bytes B] [--stats]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

TIMEOUT = 5


def ping(ip):
    r = subprocess.run(["ping", "-c", "1", "-W", "2", ip], capture_output=True, timeout=10)
    if r.returncode != 0:
        raise ValueError("ping: no answer")


def http(ip, path="/"):
    with socket.create_connection((ip, 80), timeout=TIMEOUT) as s:
        s.sendall(b"GET %s HTTP/1.0\r\nHost: guest\r\n\r\n" % path.encode())
        data = bytearray()
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    head, _, body = bytes(data).partition(b"\r\n\r\n")
    if b" 200 " not in head[:16]:
        raise ValueError("http %s: %r" % (path, head[:60]))
    return body


def page(ip):
    if b"<html>" not in http(ip, "/"):
        raise ValueError("http /: no page")


def tcp_echo(ip, nbytes):
    data = os.urandom(nbytes)
    got = bytearray()
    with socket.create_connection((ip, 7), timeout=TIMEOUT) as s:
        s.settimeout(TIMEOUT)
        for i in range(0, len(data), 4096):  # the window bounds what fits
            s.sendall(data[i:i + 4096])
            s.setblocking(False)
            try:
                while True:
                    d = s.recv(65536)
                    if not d:
                        break
                    got += d
            except BlockingIOError:
                pass
            s.settimeout(TIMEOUT)
        s.shutdown(socket.SHUT_WR)
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    if bytes(got) != data:
        raise ValueError("tcp echo: %d of %d bytes back" % (len(got), len(data)))


def udp_echo(ip):
    msg = b"probe " + os.urandom(8).hex().encode()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(1)
        s.sendto(msg, (ip, 7))
        got, _ = s.recvfrom(2048)
    if got != msg:
        raise ValueError("udp echo: %r" % got[:40])


def probe(ip, within=30, nbytes=32 * 1024, stats=False):
    """Checks every service, retrying for up to `within` s; returns
    {"ok", "secs", "errors"[, "stats"]}."""
    checks = {"ping": lambda: ping(ip), "http": lambda: page(ip),
              "tcp_echo": lambda: tcp_echo(ip, nbytes), "udp_echo": lambda: udp_echo(ip)}
    start = time.monotonic()
    errors = {}
    todo = list(checks)
    while todo and time.monotonic() - start < within:
        for name in list(todo):
            try:
                checks[name]()
                todo.remove(name)
                errors.pop(name, None)
            except (OSError, ValueError, subprocess.TimeoutExpired) as e:
                errors.setdefault(name, "%s: %s" % (type(e).__name__, e))
        if todo:
            time.sleep(0.5)
    out = {"ok": not todo, "secs": round(time.monotonic() - start, 2), "errors": errors}
    if stats and not todo:
        try:
            out["stats"] = json.loads(http(ip, "/stats.json"))
        except (OSError, ValueError) as e:
            out["ok"] = False
            out["errors"]["stats"] = str(e)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ip")
    ap.add_argument("--within", type=float, default=30)
    ap.add_argument("--bytes", type=int, default=32 * 1024)
    ap.add_argument("--stats", action="store_true")
    a = ap.parse_args()
    json.dump(probe(a.ip, a.within, a.bytes, a.stats), sys.stdout)
    print()


if __name__ == "__main__":
    main()
