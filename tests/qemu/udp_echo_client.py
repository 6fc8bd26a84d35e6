"""One UDP echo, as the QEMU tests ask for it: send a datagram and return
the first datagram the peer sends back within the timeout (b"" if none
comes, or if the peer answers with ICMP port unreachable).

It replaces `nc -u -w 2`, which cannot tell that the answer is complete
and so waits out its whole idle timeout after every echo: 20 such echoes
made 38 of the 40 s of test_net's 256 KiB leak test, in each of its six
NIC and allocator variants.

As a script, for a guest that is reachable only from inside a network
namespace (`ip netns exec NS python3 udp_echo_client.py HOST PORT
[TIMEOUT]`): the datagram is read from stdin and the answer written to
stdout, as nc did.
"""
import socket
import sys


def udp_echo(host, port, data, timeout=2.0):
    """data to (host, port) over UDP (IPv6 if host has a colon); returns
    the first datagram that comes back from there within timeout s, or
    b"". The socket is connected, so a datagram from anyone else is never
    taken for the answer."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        try:
            s.connect((host, port))
            s.send(data)
            return s.recv(65536)
        except (socket.timeout, ConnectionRefusedError):
            return b""


def main(argv):
    host, port = argv[1], int(argv[2])
    timeout = float(argv[3]) if len(argv) > 3 else 2.0
    sys.stdout.buffer.write(udp_echo(host, port, sys.stdin.buffer.read(), timeout))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
