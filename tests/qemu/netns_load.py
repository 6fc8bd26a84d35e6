#!/usr/bin/python3
"""Concurrent TCP and UDP echo load on the guest. Run inside the tap's
namespace (ip netns exec NS ...).

THREADS threads each loop for SECS seconds: a TCP echo of BYTES random
bytes (compared), then a UDP echo datagram (compared). Under memory
pressure or a flood some of these fail (a refused or reset connection, a
lost datagram); the count of each is the result, not an error. Prints one
JSON object: tcp_ok, tcp_failed, udp_ok, udp_failed, bytes_echoed, and the
first few errors.

Usage: netns_load.py GUEST_IP [--threads N] [--bytes B] [--secs S]
"""
import argparse
import json
import sys
import threading
import time

import netns_probe


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ip")
    ap.add_argument("--threads", type=int, default=6)
    ap.add_argument("--bytes", type=int, default=256 * 1024)
    ap.add_argument("--secs", type=float, default=10)
    a = ap.parse_args()
    out = {"tcp_ok": 0, "tcp_failed": 0, "udp_ok": 0, "udp_failed": 0, "bytes_echoed": 0,
           "errors": []}
    lock = threading.Lock()
    end = time.monotonic() + a.secs

    def count(key, err=None):
        with lock:
            out[key] += 1
            if err is not None and len(out["errors"]) < 8:
                out["errors"].append("%s: %s" % (type(err).__name__, err))

    def worker():
        while time.monotonic() < end:
            try:
                netns_probe.tcp_echo(a.ip, a.bytes)
                count("tcp_ok")
                with lock:
                    out["bytes_echoed"] += a.bytes
            except (OSError, ValueError) as e:
                count("tcp_failed", e)
            try:
                netns_probe.udp_echo(a.ip)
                count("udp_ok")
            except (OSError, ValueError) as e:
                count("udp_failed", e)

    threads = [threading.Thread(target=worker) for _ in range(a.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
