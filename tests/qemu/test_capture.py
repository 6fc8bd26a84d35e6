"""Packet capture at the netif (net/capture.c, apps/http_capture.c,
apps/shell_capture.c): /capture.pcap is a pcap file tshark reads, holding
exactly the frames sent and answered, both directions, decoded as the
protocols they are; the count stops a capture, the snap length cuts its
frames, the filter picks protocol and port; nothing is served unless the
boot asked for it (capture=1), and the shell starts, stops and lists
captures.

Each test boots its own guest (virtio-net, user networking) and reads
the file with Debian's tshark (tools/setup-deps net)."""
import json
import re
import shutil
import socket
import subprocess
import urllib.error
import urllib.request

import pytest

from test_net import NetVM

DATAGRAMS = 10
PAYLOAD = 100

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None,
                                reason="tshark missing: tools/setup-deps net")


def request(vm, path, method="GET"):
    """(status, body bytes) of METHOD path; error statuses are answers."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (vm.http, path),
                                 data=b"" if method == "POST" else None, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def echoes(vm, n=DATAGRAMS, size=PAYLOAD):
    """n datagrams of size bytes to the UDP echo; the payloads sent."""
    sent = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2)
        s.connect(("127.0.0.1", vm.uecho))
        for i in range(n):
            data = (b"capture %d " % i).ljust(size, b"-")
            s.send(data)
            assert s.recv(2048) == data
            sent.append(data)
    return sent


FIELDS = ["frame.len", "frame.cap_len", "frame.protocols", "ip.src", "ip.dst",
          "udp.srcport", "udp.dstport", "tcp.srcport", "tcp.dstport", "echo.data", "echo.request"]


def tshark(vm, tmp_path):
    """/capture.pcap through tshark: one dict of FIELDS per frame."""
    status, body = request(vm, "/capture.pcap")
    assert status == 200, body[:200]
    path = tmp_path / "guest.pcap"
    path.write_bytes(body)
    r = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-E", "separator=\t"] +
                       sum((["-e", f] for f in FIELDS), []),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [dict(zip(FIELDS, line.split("\t"))) for line in r.stdout.splitlines()]


def test_udp_echoes_are_captured_both_ways_and_tshark_decodes_them(qemu, tmp_path):
    vm = NetVM(qemu, "native", append="capture=1 capture_filter=udp:7")
    vm.vm.wait_for(r"^capture: 1000 frames of 1518 bytes, filter udp:7$")
    sent = echoes(vm)
    frames = tshark(vm, tmp_path)
    # each datagram in, then its echo out: nothing else passes udp:7
    assert len(frames) == 2 * DATAGRAMS
    guest = vm.ip.split("/")[0]
    for i, f in enumerate(frames):
        assert f["frame.protocols"] == "eth:ethertype:ip:udp:echo"
        assert int(f["frame.len"]) == int(f["frame.cap_len"]) == 14 + 20 + 8 + PAYLOAD
        inbound = i % 2 == 0
        assert (f["ip.dst"] if inbound else f["ip.src"]) == guest
        assert (f["udp.dstport"] if inbound else f["udp.srcport"]) == "7"
    payloads = [bytes.fromhex(f["echo.data"]) for f in frames]
    assert [f["echo.request"] for f in frames] == ["1", ""] * DATAGRAMS
    assert payloads[0::2] == sent and payloads[1::2] == sent
    stats = json.loads(request(vm, "/stats.json")[1])["capture"]
    assert stats["running"] is True and stats["frames"] == 2 * DATAGRAMS
    assert stats["filter"] == "udp:7" and stats["dropped"] == 0
    assert stats["passed_over"] > 0  # the HTTP requests, at least


def test_http_is_captured_by_its_port_and_decoded_as_http(qemu, tmp_path):
    vm = NetVM(qemu, "native", append="capture=1 capture_filter=tcp:80")
    assert request(vm, "/")[0] == 200
    frames = tshark(vm, tmp_path)
    protos = [f["frame.protocols"] for f in frames]
    assert all(p.startswith("eth:ethertype:ip:tcp") for p in protos)
    assert sum(p.endswith(":http") for p in protos) >= 2  # GET / and its answer
    assert all("80" in (f["tcp.srcport"], f["tcp.dstport"]) for f in frames)


def test_count_stops_the_capture_and_snaplen_cuts_frames(qemu, tmp_path):
    vm = NetVM(qemu, "native",
               append="capture=1 capture_count=5 capture_snaplen=64 capture_filter=udp:7")
    echoes(vm, size=300)
    frames = tshark(vm, tmp_path)
    assert len(frames) == 5
    assert all(f["frame.len"] == str(14 + 20 + 8 + 300) and f["frame.cap_len"] == "64"
               for f in frames)
    stats = json.loads(request(vm, "/stats.json")[1])["capture"]
    assert stats["running"] is False and stats["frames"] == 5 and stats["count"] == 5


def test_without_capture_at_boot_nothing_is_served(qemu):
    vm = NetVM(qemu, "native", append="http_control=1")
    assert request(vm, "/capture.pcap")[0] == 403
    assert request(vm, "/capture/start", "POST")[0] == 403
    vm2 = NetVM(qemu, "native", append="capture=1")
    assert request(vm2, "/capture/start", "POST")[0] == 403  # no http_control
    assert request(vm2, "/capture.pcap", "POST")[0] == 405


def test_http_restart_needs_the_control_gate_and_empties_the_capture(qemu, tmp_path):
    vm = NetVM(qemu, "native", append="capture=1 http_control=1 capture_filter=udp:7")
    echoes(vm, 3)
    assert request(vm, "/capture/start", "POST") == (200, b"capturing\n")
    echoes(vm, 2)
    assert request(vm, "/capture/stop", "POST") == (200, b"stopped\n")
    echoes(vm, 2)  # after the stop: not kept
    assert len(tshark(vm, tmp_path)) == 4
    assert re.search(r"^http: control: capture of udp:7 \(asked by 10\.0\.2\.2\)$",
                     vm.vm.log(), re.M)


def test_the_shell_starts_lists_and_stops_a_capture(qemu):
    vm = NetVM(qemu, "native", serial_socket=True)
    con = vm.vm.serial()
    con.send(b"\r")
    con.expect(rb"shell> ")
    assert con.command("capture start 100 128 udp") == \
        "capture: 100 frames of 128 bytes, filter udp\n"
    echoes(vm, 2)
    assert con.command("capture stop") == "capture: stopped\n"
    lines = con.command("capture show").splitlines()
    assert len(lines) == 4, lines
    ip = re.escape(vm.ip.split("/")[0])
    assert re.fullmatch(r"\d+\.\d{6} eth0 in  len=142 udp 10\.0\.2\.2:\d+ > %s:7" % ip,
                        lines[0]), lines
    assert re.fullmatch(r"\d+\.\d{6} eth0 out len=142 udp %s:7 > 10\.0\.2\.2:\d+" % ip,
                        lines[1]), lines
    assert len(con.command("capture show 1").splitlines()) == 1
    status = json.loads(con.command("capture"))
    assert status["frames"] == 4 and status["running"] is False
    assert con.command("capture start 10 10") == "capture: '10' is not in 64-65535\n"
    assert con.command("capture start 10 64 tcp:x").startswith("capture: bad filter 'tcp:x'")
