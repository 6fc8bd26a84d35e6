"""The event tracer (kernel/trace.c, kernel/trace_json.c, apps/http_trace.c,
kernel/trace_shell.c) on a running guest: /trace.json follows the rules of
Chrome's trace-event format (tools/trace_check.py), names each CPU as a
thread of its node's process, and a known workload (UDP echoes) leaves the
allocator events it must: an RX buffer refilled by the driver and freed
by lwIP per datagram. The document is served only when the boot asked
for it (trace=), starting a session over HTTP passes the control gate
besides, and the shell's `trace` starts, stops and prints the same
document.

Each test boots its own guest (virtio-net, user networking)."""
import json
import os
import re
import socket
import sys
import urllib.error
import urllib.request

import conftest
from test_net import NetVM

sys.path.insert(0, os.path.join(conftest.ROOT, "tools"))
import trace_check  # noqa: E402

DATAGRAMS = 20


def request(vm, path, method="GET"):
    """(status, body) of METHOD path; error statuses are answers too."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (vm.http, path),
                                 data=b"" if method == "POST" else None, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def trace_doc(vm):
    """/trace.json, parsed, after checking it against the format."""
    status, body = request(vm, "/trace.json")
    if status != 200:
        vm.fail("/trace.json: HTTP %d %r" % (status, body[:300]))
    try:
        doc = json.loads(body)
    except ValueError as e:
        vm.fail("/trace.json is not JSON (%s): %r" % (e, body[:400]))
    found = trace_check.problems(doc)
    assert found == [], found
    return doc


def events(doc, name=None):
    return [e for e in doc["traceEvents"]
            if e["ph"] != "M" and (name is None or e["name"] == name)]


def udp_echoes(vm, n=DATAGRAMS, size=16):
    """n datagrams of size bytes to the UDP echo; returns the replies
    received."""
    got = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2)
        s.connect(("127.0.0.1", vm.uecho))
        for i in range(n):
            s.send((b"trace %d " % i).ljust(size, b"."))
            try:
                s.recv(2048)
                got += 1
            except socket.timeout:
                pass
    return got


def caller_function(ev):
    return ev["args"]["caller"].split("+")[0]


def test_a_boot_trace_names_cpus_and_nodes_and_follows_the_format(qemu):
    vm = NetVM(qemu, "native", append="trace=mm", machine="q35",
               numa=("0:256M", "1:256M"))
    vm.vm.wait_for(r"^trace: session 1: mm, \d+ events per cpu$")
    udp_echoes(vm, 5)
    doc = trace_doc(vm)
    meta = {(e["name"], e["pid"], e["tid"]): e["args"] for e in doc["traceEvents"]
            if e["ph"] == "M"}
    assert meta[("process_name", 0, 0)] == {"name": "node 0"}
    assert meta[("process_name", 1, 0)] == {"name": "node 1"}
    assert meta[("thread_name", 0, 0)] == {"name": "cpu 0"}
    assert meta[("thread_name", 1, 1)] == {"name": "cpu 1"}
    evs = events(doc)
    assert evs and all(e["cat"] == "mm" for e in evs)
    # each CPU's events are on its node's timeline, and a block's node
    # value is a node of the machine
    assert {(e["pid"], e["tid"]) for e in evs} <= {(0, 0), (1, 1)}
    assert {e["args"]["node"] for e in events(doc, "page_alloc")} <= {0, 1}
    other = doc["otherData"]
    assert other["classes"] == "mm" and other["session"] == "1"
    assert int(other["events"]) == len(evs) and other["left_out"] == "0"


def test_udp_echoes_leave_an_rx_buffer_alloc_and_free_each(qemu):
    vm = NetVM(qemu, "native", append="trace=none http_control=1")
    assert request(vm, "/trace/start/mm", "POST") == (200, "recording mm\n")
    assert udp_echoes(vm) == DATAGRAMS
    assert request(vm, "/trace/stop", "POST") == (200, "stopped\n")
    assert re.search(r"^http: control: trace of mm \(asked by 10\.0\.2\.2\)$",
                     vm.vm.log(), re.M)
    doc = trace_doc(vm)
    # every frame received takes one RX buffer from the page_frag cache
    # (the driver refills its ring) and gives one back once lwIP is done
    # with it: the datagrams and the two POSTs' segments
    allocs = events(doc, "page_frag_alloc")
    frees = events(doc, "page_frag_free")
    assert len(allocs) >= DATAGRAMS and len(frees) >= DATAGRAMS
    assert {caller_function(e) for e in allocs} == {"vnet_rx_poll"}
    assert all(e["args"]["size"] > 0 for e in allocs)
    assert all(re.fullmatch(r"0x[0-9a-f]+", e["args"]["addr"]) for e in frees)
    # stopped: a second fetch reads the same session, unchanged
    assert events(trace_doc(vm)) == events(doc)
    stats = json.loads(request(vm, "/stats.json")[1])["trace"]
    assert stats["session"] == 1 and stats["running"] is False
    assert stats["classes"] == "mm" and stats["session_records"] == len(events(doc))


def spans(evs, name):
    """The (begin, end, events between) of each span called name, per
    thread, in the order they began (the document is balanced)."""
    out, open_at = [], {}
    for i, e in enumerate(evs):
        key = (e["pid"], e["tid"])
        if e["name"] == name and e["ph"] == "B":
            open_at.setdefault(key, []).append(i)
        elif e["name"] == name and e["ph"] == "E":
            b = open_at[key].pop()
            inside = [x for x in evs[b + 1:i] if (x["pid"], x["tid"]) == key]
            out.append((evs[b], e, inside))
    return out


# a UDP echo of this many bytes of payload is a frame of 14 + 20 + 8 more
ECHO_PAYLOAD = 100
ECHO_FRAME = 14 + 20 + 8 + ECHO_PAYLOAD


def test_an_echo_is_traced_from_the_nic_through_lwip_to_the_free(qemu):
    vm = NetVM(qemu, "native", append="trace=none http_control=1")
    assert request(vm, "/trace/start/all", "POST")[0] == 200
    assert udp_echoes(vm, size=ECHO_PAYLOAD) == DATAGRAMS
    assert request(vm, "/trace/stop", "POST")[0] == 200
    doc = trace_doc(vm)
    evs = events(doc)
    rx = [e for e in events(doc, "rx") if e["args"]["len"] == ECHO_FRAME]
    assert len(rx) == DATAGRAMS
    assert {(e["args"]["nic"], e["args"]["queue"]) for e in rx} == {("eth0", 0)}
    # each datagram: lwIP's input of it is a span inside a poll round of
    # the net poller, and inside it the echo goes out (tx, same length);
    # the RX buffer (the pbuf lives at its start) goes back to page_frag
    # once the device has sent the answer, reaped in a later round (the
    # last one's reap may come after the stop)
    echoes = [(b, inside) for b, _, inside in spans(evs, "lwip_input")
              if b["args"]["len"] == ECHO_FRAME]
    assert len(echoes) == DATAGRAMS
    freed = 0
    for b, inside in echoes:
        assert [x["args"]["len"] for x in inside if x["name"] == "tx"] == [ECHO_FRAME]
        freed += any(x["name"] == "page_frag_free" and x["ts"] >= b["ts"] and
                     x["args"]["addr"] == b["args"]["pbuf"] for x in evs)
    assert freed >= DATAGRAMS - 1
    polls = spans(evs, "poll")
    assert polls and {b["args"]["poller"] for b, _, _ in polls} >= {"net"}
    for b, _ in echoes:
        assert any(pb["ts"] <= b["ts"] <= pe["ts"] and pb["tid"] == b["tid"]
                   for pb, pe, _ in polls)
    # interrupts are spans named by their handler (the timer's at least)
    irqs = spans(evs, "irq")
    assert irqs and all(re.fullmatch(r"[a-z_0-9.]+\+0x[0-9a-f]+|[a-z_0-9.]+\+0",
                                     b["args"]["handler"]) for b, _, _ in irqs)
    assert events(doc, "drop") == []
    # the start and the stop were each asked for inside lwIP's input of
    # the POST: the writer left out the end whose begin came before the
    # session, and closed the span the stop left open (an end of its own,
    # without values) at the CPU's last event
    first = [e for e in evs if e["name"] == "lwip_input"][0]
    assert first["ph"] == "B"
    closed = [e for e in events(doc, "lwip_input") if e["ph"] == "E" and "args" not in e]
    assert len(closed) == 1 and closed[0]["ts"] == max(e["ts"] for e in evs
                                                        if e["tid"] == closed[0]["tid"])


def test_without_trace_at_boot_nothing_is_served(qemu):
    vm = NetVM(qemu, "native", append="http_control=1")
    assert request(vm, "/trace.json")[0] == 403
    assert request(vm, "/trace/start/mm", "POST")[0] == 403
    assert request(vm, "/trace/stop", "POST")[0] == 403
    stats = json.loads(request(vm, "/stats.json")[1])["trace"]
    assert stats["session"] == 0 and stats["recorded"] == 0


def test_http_start_needs_the_control_gate_and_good_classes(qemu):
    vm = NetVM(qemu, "native", append="trace=none")
    assert request(vm, "/trace.json")[0] == 200  # served, empty
    assert request(vm, "/trace/start/mm", "POST")[0] == 403
    assert request(vm, "/trace.json", "POST")[0] == 405
    vm2 = NetVM(qemu, "native", append="trace=none http_control=1")
    assert request(vm2, "/trace/start/mm", "GET")[0] == 405
    assert request(vm2, "/trace/start/bogus", "POST")[0] == 400
    assert request(vm2, "/trace/start", "POST")[0] == 400
    assert request(vm2, "/trace/start/none", "POST")[0] == 400
    assert "http: control: trace" not in vm2.vm.log()


def test_the_shell_starts_stops_and_prints_the_trace(qemu):
    vm = NetVM(qemu, "native", serial_socket=True)
    con = vm.vm.serial()
    con.send(b"\r")
    con.expect(rb"shell> ")
    assert con.command("trace on mm") == "trace: recording mm\n"
    udp_echoes(vm)  # two events each at least: more than printed below
    assert con.command("trace off") == "trace: off\n"
    status = json.loads(con.command("trace"))
    assert status["session"] == 1 and status["running"] is False
    assert status["session_records"] >= 2 * DATAGRAMS
    doc = json.loads(con.command("trace json 30"))
    assert trace_check.problems(doc) == []
    assert len(events(doc)) == 30
    assert int(doc["otherData"]["left_out"]) == status["session_records"] - 30
    assert con.command("trace on bogus") == \
        "trace: no class in 'bogus' (mm,net,app,irq,poll,lock or all)\n"
    assert con.command("trace json 0") == "trace: '0' is no event count\n"


def test_a_full_buffer_drops_counts_and_the_document_stays_whole(qemu):
    # 256 records (a 16 KiB block holds 409) fill within the boot's
    # session: the rest is dropped and counted, and spans cut by the end
    # of a CPU's buffer are still closed
    vm = NetVM(qemu, "native", append="trace=all trace_events=256")
    udp_echoes(vm)
    doc = trace_doc(vm)
    held = len(events(doc)) - sum(1 for e in events(doc) if e["ph"] == "E" and
                                  "args" not in e)  # ends the writer added
    assert int(doc["otherData"]["dropped"]) > 0
    stats = json.loads(request(vm, "/stats.json")[1])["trace"]
    assert stats["capacity"] == 409 and stats["session_dropped"] > 0
    assert held <= stats["capacity"] * 2  # two CPUs
    assert stats["dropped"] >= stats["session_dropped"]
