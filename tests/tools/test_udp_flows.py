"""tools/udp_flows.py, the many-flows UDP echo client of the multiqueue
benchmarks, against host processes: every datagram is counted once,
answered or lost, and its figures are the plain arithmetic of those
counts."""
import os
import socket
import sys

from tool_loader import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import irq_figures  # noqa: E402
import udp_flows  # noqa: E402


def test_every_flow_gets_its_echoes_from_a_live_server():
    with irq_figures.HostEchoServer() as srv:
        r = udp_flows.run("127.0.0.1", 0.3, flows=16, port=srv.addr[1])
    assert r["flows"] == 16 and r["lost"] == 0
    assert r["sent"] == r["answered"] >= 16


def test_a_silent_peer_loses_every_datagram_once():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as mute:
        mute.bind(("127.0.0.1", 0))  # receives, never answers
        r = udp_flows.run("127.0.0.1", 0.3, flows=4, port=mute.getsockname()[1], timeout=0.1)
    assert r["answered"] == 0 and r["lost"] == r["sent"]
    # one in flight per flow: each flow times out about 3 times in 0.3 s
    assert 4 <= r["sent"] <= 4 * 5


def test_figures_are_rate_and_lost_share():
    f = udp_flows.figures({"flows": 64, "seconds": 2.0, "sent": 1000, "answered": 900,
                           "lost": 100})
    assert f == {"echoes_per_s": 450.0, "loss": 0.1}
    assert udp_flows.figures({"flows": 1, "seconds": 1.0, "sent": 0, "answered": 0,
                              "lost": 0}) == {"echoes_per_s": 0.0, "loss": 0.0}
