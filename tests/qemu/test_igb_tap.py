"""igb on a multiqueue tap: QEMU's 82576 (-device igb, q35) with a tap
of 4 queues in a private network namespace, 4 CPUs, 4 queue pairs.

What QEMU 10 does with it (hw/net/igb.c, igb_core.c): the device opens
one backend queue per tap queue; a frame sent on its TX queue q goes out
on tap queue min(q, N - 1), and a frame read from any tap queue enters
the one receive path, where the device's own RSS (the Toeplitz hash
under RSSRK, the RETA entry its low 7 bits pick) chooses the guest
queue. So the tap's queues let the host side carry flows in parallel;
which guest queue a flow reaches is the driver's RSS programming alone.

The suite user-net runs through test_net.py and test_ipv6.py, here over
the tap: a static address, ping, HTTP, TCP and UDP echo, a 256 KiB echo
byte-identical, iperf both ways, IPv6 (ping6, HTTP, echo), and every
packet buffer back afterwards. Then RSS with interrupts on and off: 24
TCP echo connections, 12 HTTP requests and 48 UDP flows from the
namespace, each from its own source port, land on every queue, each
frame on the queue the redirection table names for its hash
(rx_rss_other_queue 0) and handed up on that queue's CPU (rx_other_cpu
0).
"""
import json
import os
import re

import pytest

from conftest import qemu_version
from netns_tap import PYTHON, GuestError, TapNet, resting_buffers, wait_buffers_back
from test_vnet_offload import iperf_from_guest, iperf_to_guest

pytestmark = pytest.mark.skipif(qemu_version() < (8, 0),
                                reason="needs QEMU 8 or later (the igb model)")

QUEUES = 4
HOST6, GUEST6 = "2001:db8:77::1", "2001:db8:77::2"
CLIENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_clients.py")


@pytest.fixture
def mq_tap():
    reason = TapNet.unavailable()
    if reason:
        pytest.skip(reason)
    with TapNet(queues=QUEUES) as net:
        yield net


def boot(net, tmp_path, append=""):
    """The guest on the namespace's multiqueue tap, its queue pairs one
    per CPU, each with its MSI-X vector unless net_irq=off."""
    g = net.start_guest(str(tmp_path), nic="igb", smp=QUEUES,
                        append="http_control=1 " + append)
    try:
        g.wait_ready(120)
        g.wait_for(r"^igb: eth0 .* queues=%d link up$" % QUEUES, 10)
    except GuestError as e:
        pytest.fail(str(e), pytrace=False)
    return g


def queues(st):
    return st["nic"]["eth0"]["queues"]


def test_static_address_echo_http_iperf_both_ways_and_ipv6(mq_tap, tmp_path):
    mq_tap.run(["ip", "addr", "add", HOST6 + "/64", "dev", "tap0", "nodad"], check=True)
    g = boot(mq_tap, tmp_path, "ip6=%s/64 gw6=%s" % (GUEST6, HOST6))
    g.wait_for(r"^net: eth0 ip6 %s ready \(static\)" % re.escape(GUEST6), 30)
    for q in range(QUEUES):
        g.wait_for(r"^igb: eth0 queue %d: msix vector 0x[0-9a-f]+ cpu %d$" % (q, q), 5)
    baseline = resting_buffers(g)

    g.check_answers("igb-tap")  # ping, HTTP, 32 KiB TCP echo, UDP echo
    g.tcp_echo(bytes((i * 7 + (i >> 8)) & 0xff for i in range(256 * 1024)))
    assert iperf_to_guest(mq_tap, g) > 0
    mbit, sent, received = iperf_from_guest(mq_tap, g, tmp_path)
    assert mbit > 0
    assert received is not None and 0.9 * sent <= received <= sent + 65536, (sent, received)

    r = mq_tap.run(["ping", "-6", "-c", "3", "-W", "5", "-i", "0.3", GUEST6], timeout=40)
    assert r.returncode == 0 and b" 0% packet loss" in r.stdout, (r.stdout, g.describe())
    r = mq_tap.run(["curl", "-sS", "-6", "-m", "20", "http://[%s]/" % GUEST6], timeout=40)
    assert b"<html>" in r.stdout, (r.stderr, g.describe())
    data = os.urandom(256 * 1024)
    r = mq_tap.run(["nc", "-6", "-N", "-w", "20", GUEST6, "7"], data=data, timeout=120)
    assert r.stdout == data, (len(r.stdout), g.describe())

    st = g.stats()
    nic = st["nic"]["eth0"]
    assert nic["rx_bad_len"] == nic["rx_errors"] == nic["rx_other_cpu"] == 0, nic
    assert nic["tx_csum_offloaded"] > 0, nic
    now = wait_buffers_back(g, baseline)
    assert now == baseline, (now, baseline, g.describe())
    print("igb tap queues=%d: iperf from the guest %.1f Mbit/s; rx frames per queue %s"
          % (QUEUES, mbit, [q["rx_packets"] for q in queues(st)]))


@pytest.mark.parametrize("irq", ["on", "off"])
def test_rss_spreads_flows_over_every_queue_each_on_its_cpu(mq_tap, tmp_path, irq):
    g = boot(mq_tap, tmp_path, "net_irq=%s" % irq)
    if irq == "off":
        g.wait_for(r"^net: net_irq=off, queues polled only$", 5)
    before = g.stats()
    assert before["nic"]["eth0"]["rss_table"] == [i % QUEUES for i in range(128)]
    # lwIP holds 16 TCP PCBs: three rounds of 8 echo connections and 4
    # HTTP requests at once; the host's TIME_WAIT keeps every round's
    # source ports out of the next.
    for _ in range(3):
        r = mq_tap.run([PYTHON, CLIENTS, g.ip, "--tcp", "8", "--udp", "16",
                        "--http", "4", "--bytes", "16384"], timeout=180)
        res = json.loads(r.stdout or b"{}")
        assert res.get("ok") == {"tcp": 8, "udp": 16, "http": 4}, (res, g.describe())
    after = g.stats()
    spread = []
    for q in range(QUEUES):
        b, a = queues(before)[q], queues(after)[q]
        assert a["cpu"] == q, a
        assert a["irq"] == ("msix" if irq == "on" else "poll"), a
        assert a["rx_packets"] > b["rx_packets"], (q, b, a)
        assert a["rx_rss_hashed"] > b["rx_rss_hashed"], (q, b, a)
        assert a["tx_packets"] > b["tx_packets"], (q, b, a)  # answered on its CPU
        # each frame came on the queue the table names for its hash...
        assert a["rx_rss_other_queue"] == 0, (q, a)
        # ... and was handed up on that queue's CPU
        assert a["rx_other_cpu"] == 0, (q, a)
        spread.append(a["rx_packets"] - b["rx_packets"])
    print("igb tap net_irq=%s: rx frames per queue %s" % (irq, spread))
