"""The HTTP/1.1 server (apps/http_server.c): persistent connections,
pipelining, HEAD, and when a connection closes, seen by real clients
(raw sockets reading every answer by its Content-Length, curl, wrk).

A connection persists as HTTP/1.1 says: an HTTP/1.1 request keeps it
unless it says "Connection: close"; an HTTP/1.0 request closes it unless
it says "Connection: keep-alive"; every answer says which it is.
"""
import json
import re
import socket
import subprocess
import time

import pytest

from conftest import free_port
from test_net import ALLOC_MODES, NetVM

TIMEOUT = 20
IDLE_CLOSE_S = 5  # HTTP_IDLE_POLLS x HTTP_POLL_INTERVAL (apps/http_server.h)


@pytest.fixture(params=ALLOC_MODES)
def guest(request, qemu):
    vm = NetVM(qemu, request.param)
    vm.stats()  # ARP for the host before the first test connection
    return vm


class Conn:
    """One client connection that reads answers one by one."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def _fill(self):
        chunk = self.s.recv(65536)
        if not chunk:
            raise EOFError("server closed with %d bytes unread: %r" % (len(self.buf), self.buf[:80]))
        self.buf += chunk

    def answer(self, head_only=False):
        """(status, headers with lower-case names, body) of the next answer."""
        while b"\r\n\r\n" not in self.buf:
            self._fill()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        assert re.match(r"HTTP/1\.1 \d{3} ", lines[0]), lines[0]
        headers = {k.lower(): v for k, v in (l.split(": ", 1) for l in lines[1:])}
        n = 0 if head_only else int(headers["content-length"])
        while len(self.buf) < n:
            self._fill()
        body, self.buf = self.buf[:n], self.buf[n:]
        return int(lines[0].split()[1]), headers, body

    def closed_by_server(self):
        """True if the server closes with nothing more to read."""
        try:
            return self.s.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self):
        self.s.close()


def get(path, extra=b"", version=b"1.1", method=b"GET"):
    return b"%s %s HTTP/%s\r\nHost: guest\r\n%s\r\n" % (method, path.encode(), version, extra)


def test_two_requests_on_one_connection_get_both_answers(guest):
    c = Conn(guest.http)
    c.send(get("/"))
    status, headers, body = c.answer()
    assert status == 200 and headers["connection"] == "keep-alive", headers
    assert b"</html>" in body
    c.send(get("/stats.json"))
    status, headers, body = c.answer()
    assert status == 200 and headers["content-type"] == "application/json", headers
    st = json.loads(body)
    assert st["http"]["reused"] >= 1, st["http"]
    c.close()


def test_pipelined_requests_are_answered_in_order(guest):
    c = Conn(guest.http)
    c.send(get("/") + get("/dashboard.css") + get("/no-such-page") + get("/favicon.svg"))
    answers = [c.answer() for _ in range(4)]
    assert [a[0] for a in answers] == [200, 200, 404, 200]
    assert b"</html>" in answers[0][2]
    assert answers[1][1]["content-type"].startswith("text/css")
    assert b"<title>404 Not Found</title>" in answers[2][2]
    assert answers[3][1]["content-type"] == "image/svg+xml"
    c.close()


def test_300_pipelined_requests_in_one_send_are_all_answered(guest):
    """300 GETs in one send(), 9.6 KB: many times the server's 1 KiB
    request buffer, delivered to it in segments that receive coalescing
    joins. Every request is answered, in order, on the one connection,
    and the bytes that did not fit waited unacknowledged (held_back)
    instead of being acknowledged and dropped."""
    before = guest.stats()["http"]
    paths = ["/", "/dashboard.css", "/no-such-page", "/favicon.svg"]
    c = Conn(guest.http)
    c.s.sendall(b"".join(get(paths[i % 4]) for i in range(300)))
    statuses = [c.answer()[0] for _ in range(300)]
    assert statuses == [200, 200, 404, 200] * 75
    c.send(get("/"))
    status, headers, _ = c.answer()
    assert status == 200 and headers["connection"] == "keep-alive"
    c.close()
    after = guest.stats()["http"]
    assert after["held_back"] > before["held_back"], (before, after)


@pytest.mark.parametrize("request_bytes", [
    b"POST / HTTP/1.1\r\nHost: g\r\nContent-Length : 24\r\n\r\n"
    b"GET /smuggled HTTP/1.1\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: g\r\nContent-Length: 24\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost: g\r\nContent-Length: 0\r\nContent-Length: 44\r\n\r\n"
    b"GET /smuggled HTTP/1.1\r\nHost: g\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: g\r\nX-A: 1\r\n Content-Length: 5\r\n\r\n",
], ids=["space-before-colon", "te-and-cl", "two-cl", "obs-fold"])
def test_ambiguous_framing_gets_400_and_the_connection_closes(guest, request_bytes):
    """Requests whose end a proxy in front could read differently (the
    body smuggles a second request past it): refused, and nothing after
    them is read."""
    c = Conn(guest.http)
    c.send(request_bytes)
    status, headers, _ = c.answer()
    assert status == 400 and headers["connection"] == "close", headers
    assert c.closed_by_server(), c.buf


def test_post_to_a_page_gets_405_naming_get_and_head(guest):
    c = Conn(guest.http)
    c.send(get("/", b"Content-Length: 3\r\n", method=b"POST") + b"a=1" + get("/"))
    status, headers, body = c.answer()
    assert status == 405 and headers["allow"] == "GET, HEAD", headers
    assert b"<title>405 Method Not Allowed</title>" in body
    status, _, _ = c.answer()  # the body was skipped, the next one read
    assert status == 200
    c.close()


def test_http11_connection_close_is_honoured(guest):
    c = Conn(guest.http)
    c.send(get("/", b"Connection: close\r\n"))
    status, headers, _ = c.answer()
    assert status == 200 and headers["connection"] == "close", headers
    assert c.closed_by_server()


def test_http10_closes_unless_it_asks_for_keep_alive(guest):
    c = Conn(guest.http)
    c.send(get("/", version=b"1.0"))
    status, headers, _ = c.answer()
    assert status == 200 and headers["connection"] == "close", headers
    assert c.closed_by_server()
    c = Conn(guest.http)
    for _ in range(2):
        c.send(get("/", b"Connection: Keep-Alive\r\n", version=b"1.0"))
        status, headers, _ = c.answer()
        assert status == 200 and headers["connection"] == "keep-alive", headers
    c.close()


def test_head_answers_the_headers_of_get_without_the_body(guest):
    c = Conn(guest.http)
    c.send(get("/", method=b"HEAD"))
    status, headers, body = c.answer(head_only=True)
    assert status == 200 and body == b""
    c.send(get("/"))  # the next answer starts right after the head
    _, headers2, body2 = c.answer()
    assert int(headers["content-length"]) == len(body2) == int(headers2["content-length"])
    c.close()


def test_unreadable_request_gets_400_and_the_connection_closes(guest):
    c = Conn(guest.http)
    c.send(b"GET / HTTP/9\r\n\r\n" + get("/"))
    status, headers, _ = c.answer()
    assert status == 400 and headers["connection"] == "close", headers
    assert c.closed_by_server()


def test_idle_persistent_connection_is_closed_by_the_server(guest):
    c = Conn(guest.http)
    c.send(get("/"))
    assert c.answer()[0] == 200
    t0 = time.monotonic()
    c.s.settimeout(IDLE_CLOSE_S * 4)
    assert c.closed_by_server()
    waited = time.monotonic() - t0
    assert waited >= IDLE_CLOSE_S - 1, waited  # not closed at once
    assert guest.stats()["http"]["idle_closed"] >= 1


def test_curl_reuses_the_connection_for_two_urls(guest):
    url = "http://127.0.0.1:%d" % guest.http
    r = guest.run(["curl", "-sS", "-v", "-o", "/dev/null", "-o", "/dev/null",
                   url + "/", url + "/dashboard.js"])
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "Re-using existing connection" in err, err


def test_wrk_reuses_its_connections(guest):
    """wrk (HTTP/1.1, no Connection header) keeps its 2 connections for
    every request: requests answered far outnumber connections made."""
    before = guest.stats()["http"]
    r = guest.run(["wrk", "-t1", "-c2", "-d2s", "--timeout", "5s",
                   "http://127.0.0.1:%d/" % guest.http], timeout=60)
    out = r.stdout.decode()
    m = re.search(r"(\d+) requests in", out)
    assert r.returncode == 0 and m, out
    assert "Socket errors" not in out and "Non-2xx" not in out, out
    after = guest.stats()["http"]
    requests = after["requests"] - before["requests"] - 1  # this stats request
    connections = after["connections"] - before["connections"] - 1
    assert requests >= int(m.group(1)) >= 20, (out, before, after)
    assert connections <= 2 + 2, (before, after)  # wrk's 2 (+ a reconnect each)


UNITS = {"", "pages", "blocks", "objects", "slabs", "bytes", "packets",
         "buffers", "fragments", "ns", "us", "ms", "events", "calls",
         "queues", "messages"}


def members(doc):
    """(object path, key, value) of every member of every object in doc;
    the objects of a list get the list's path with "[]" appended."""
    out = []

    def walk(v, path):
        if isinstance(v, dict):
            for k, x in v.items():
                out.append((path, k, x))
                walk(x, path + [k])
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, dict):
                    walk(x, path[:-1] + [path[-1] + "[]"])
    walk(doc, [])
    return out


def component_matches(p, c):
    """"*" is any key, "*[]" any key's list of objects."""
    if p.endswith("[]") or c.endswith("[]"):
        return p.endswith("[]") and c.endswith("[]") and \
            component_matches(p[:-2], c[:-2])
    return p == c or (p == "*" and c != "")


def matches(pattern, path):
    return len(pattern) == len(path) and all(map(component_matches, pattern, path))


def is_leaf(v):
    return not isinstance(v, dict) and not (
        isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v))


def test_stats_schema_describes_every_value_of_stats_json(guest):
    """/stats-schema.json and /stats.json agree: every value of the
    document is described (unit, kind, label), and every described value
    is in every object its path names."""
    guest.tcp_echo(b"x" * 4096)  # every counter group has moved once
    schema = json.loads(guest.curl("/stats-schema.json"))
    doc = guest.stats()
    entries = [(k.split("."), d) for k, d in schema.items()]
    for key, d in schema.items():
        assert d["kind"] in ("counter", "gauge", "info"), (key, d)
        assert d["unit"] in UNITS and d["label"], (key, d)
    found = members(doc)
    undescribed = [".".join(p + [k]) for p, k, v in found
                   if is_leaf(v) and v != []
                   and not any(matches(e, p + [k]) for e, _ in entries)]
    assert not undescribed, undescribed
    objects = {tuple(p) for p, _, _ in found}
    keys = {(tuple(p), k) for p, k, _ in found}
    missing = [(".".join(o), e[-1]) for e, _ in entries for o in objects
               if matches(e[:-1], list(o)) and (o, e[-1]) not in keys]
    assert not missing, missing
    # Every section is described, the apps' own (http) too.
    sections = {e[0] for e, _ in entries}
    assert sections == set(doc), sorted(set(doc) ^ sections)


def control_lines(vm):
    return re.findall(r"^http: control: iperf client to 10\.0\.2\.2:(\d+) for 10 s "
                      r"\(asked by 10\.0\.2\.2\)$", vm.vm.log(), re.M)


def test_iperf_client_is_off_unless_enabled_at_boot(guest):
    """POST /iperf-client/PORT starts a 10 s flood from the guest: without
    http_control=1 it is refused (403, any method) with a page that says
    how to enable it, and nothing starts."""
    for method in (b"POST", b"GET"):
        c = Conn(guest.http)
        c.send(get("/iperf-client/5001", method=method))
        status, headers, body = c.answer()
        assert status == 403 and b"http_control=1" in body, (status, body)
        c.close()
    assert "iperf: " not in guest.vm.log() and not control_lines(guest)
    assert guest.stats()["http"]["err403"] == 2


def test_iperf_client_takes_post_runs_one_at_a_time_and_logs_once(qemu):
    vm = NetVM(qemu, "native", append="http_control=1")
    c = Conn(vm.http)
    c.send(get("/iperf-client/5001"))
    status, headers, _ = c.answer()
    assert status == 405 and headers["allow"] == "POST", headers
    c.send(get("/iperf-client/notaport", b"Content-Length: 0\r\n", method=b"POST"))
    assert c.answer()[0] == 400
    port = free_port()
    srv = subprocess.Popen(["iperf", "-s", "-p", str(port)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        assert vm.post("/iperf-client/%d" % port) == b"started\n"
        # While it runs, more starts (even to another port) are refused,
        # and print nothing.
        for p in (port, port + 1, port + 2):
            c.send(get("/iperf-client/%d" % p, b"Content-Length: 0\r\n", method=b"POST"))
            status, _, body = c.answer()
            assert status == 409 and b"409 Conflict" in body, (status, body)
        vm.vm.wait_for(r"^iperf: done-client 10\.0\.2\.2:%d " % port, 40)
    finally:
        srv.terminate()
        srv.wait()
    # Its report freed the place: the next one starts (against a closed
    # port: the host resets it at once).
    closed = free_port()
    assert vm.post("/iperf-client/%d" % closed) == b"started\n"
    vm.vm.wait_for(r"^iperf: aborted-remote 10\.0\.2\.2:%d " % closed, 30)
    assert control_lines(vm) == [str(port), str(closed)]
    assert vm.stats()["http"]["err409"] == 3
