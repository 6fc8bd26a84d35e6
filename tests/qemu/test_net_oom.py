"""A memory squeeze that lasts aborts the connection that holds buffers
and gets nothing acknowledged (net/net_oom.c, the stalled abort).

A deterministic set-up instead of a flood at -m 8M: RX refills fail at
random (fail_page_frag=random:10,seed:11), so a squeeze begins with the
first received frame and lasts as long as frames keep coming (a steady
UDP stream). The ring does not run empty: a poll round refills up to its
first failure (nine buffers on average at 10 %), and the traffic is
paced so that idle polls between frames top the ring up. At 30 % (two
or three buffers a round) a loaded host that ran the guest seldom
handed it bursts the rounds could not refill behind: the igb ring ran
dry in CI and the dry-ring abort took the connection first. One TCP echo client sends and never reads, with
a 4 KiB receive buffer: the guest's echoes fill the window, and its
connection ends up probing a zero window with its unsent echoes queued.
Once the squeeze has lasted NET_OOM_STALL_MS (2.5 s) the guest must
abort that connection (console line, net_oom.stalled_aborts), reset the
client, and go on answering. Before the stalled abort existed, a ring
that is not empty made net_oom abort nothing, and this test timed out
with no abort line.
"""
import errno
import socket
import threading
import time

import pytest

from test_net import NetVM

STALL_WAIT = 40  # s the guest gets to abort (net_oom needs 2.5 s of squeeze)
ABORT_LINE = (r"^net: memory squeeze for (\d+) ms: aborting stalled tcp port "
              r"7<->(\d+) holding (\d+) buffers")


def fill_until_stuck(sock, limit_s=60):
    """Sends without reading until nothing more goes for a second (the
    guest has shut its window) or until the guest resets the connection
    (the squeeze can last long enough while this still sends). Returns
    (bytes sent, whether it was reset). Paced, 8 KiB every 5 ms at most:
    at full speed the guest's RX ring, refilled only up to the first
    injected failure in each poll round, once ran dry under the burst,
    and the dry-ring abort took this connection first (seen in CI on
    e1000). With gaps, the idle polls between chunks refill it."""
    sock.setblocking(False)
    sent, chunk = 0, b"s" * 8192
    last = time.monotonic()
    end = last + limit_s
    while time.monotonic() < end and time.monotonic() - last < 1.0:
        try:
            sent += sock.send(chunk)
            last = time.monotonic()
        except BlockingIOError:
            pass
        except ConnectionResetError:
            return sent, True
        time.sleep(0.005)
    return sent, False


def udp_stream(port, stop):
    """About 2000 datagrams a second: every poll refills, so refills keep
    failing at every one of net_oom's 250 ms checks."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("127.0.0.1", port))
        while not stop.is_set():
            for _ in range(20):
                try:
                    s.send(b"squeeze " * 16)
                except OSError:  # ICMP unreachable echoed back: go on
                    pass
            time.sleep(0.01)


def reset_seen(sock):
    """Reads what the guest sent until the end: True if it was a reset."""
    sock.setblocking(True)
    sock.settimeout(20)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        return True
    except OSError as e:
        return e.errno == errno.ECONNRESET
    return False


@pytest.mark.parametrize("nic", ["virtio", "e1000", "igb"])
def test_lasting_squeeze_aborts_the_stalled_connection_and_recovers(qemu, nic):
    vm = NetVM(qemu, "native", nic=nic, smp=1,
               append="fail_page_frag=random:10,seed:11")
    stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.settimeout(10)
    stuck.connect(("127.0.0.1", vm.echo))
    sent, reset = fill_until_stuck(stuck)
    assert sent > 0, vm.vm.describe()

    stop = threading.Event()
    stream = threading.Thread(target=udp_stream, args=(vm.uecho, stop), daemon=True)
    stream.start()
    try:
        m = vm.vm.wait_for(ABORT_LINE, STALL_WAIT)
    finally:
        stop.set()
        stream.join(5)
    squeeze_ms, weight = int(m.group(1)), int(m.group(3))
    assert squeeze_ms >= 2500, m.group(0)
    assert weight > 0, m.group(0)
    assert reset or reset_seen(stuck), "the stalled client was not reset: %s" % m.group(0)
    stuck.close()

    # Still answering, on every service, once the stream has stopped.
    assert vm.tcp_echo(b"after the squeeze\n") == b"after the squeeze\n"
    st = vm.stats()
    oom = st["net_oom"]
    assert oom["stalled_aborts"] >= 1, oom
    assert oom["aborts"] == 0, "the ring ran dry instead: %s" % oom
    assert st["nic"]["eth0"]["rx_refill_fail"] > 0, st["nic"]["eth0"]
    assert st["fault_inject"]["fail_page_frag"]["injected"] > 0, st["fault_inject"]
