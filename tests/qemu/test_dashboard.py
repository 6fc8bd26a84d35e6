"""The live dashboard (/dashboard) in a real browser, and the server's own
error pages.

Debian's chromium, headless, driven through chromium-driver by
python3-selenium (tools/setup-deps browser installs them). One guest (two
CPUs on two NUMA nodes, virtio-net) serves the page; a TCP echo loop from
the host keeps packets flowing while the test checks that every chart
has data, that the numbers move, and that the browser logged no
JavaScript error. The screenshot goes to build/test-artifacts/.

The error pages are checked with plain HTTP too: status code, our page,
none of lwIP's sample files.
"""
import base64
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time

import pytest

import conftest
from test_net import NetVM

ARTIFACT_DIR = os.path.join(conftest.ROOT, "build", "test-artifacts")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHARTS = ("buddy", "pcp", "numa", "slab", "qmempool", "frag", "nic", "queues", "lwip")
PAGE_TIMEOUT = 30


def browser():
    """A headless chromium, or a skip naming what is missing."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("python3-selenium not installed (tools/setup-deps browser)")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            pytest.skip("%s missing (tools/setup-deps browser)" % path)
    profile = tempfile.mkdtemp(prefix="dashboard-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run",
              "--user-data-dir=" + profile, "--window-size=1400,1000"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    drv.set_page_load_timeout(PAGE_TIMEOUT)
    return drv, profile


@pytest.fixture
def chrome():
    drv, profile = browser()
    yield drv
    drv.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def guest(qemu):
    """Two CPUs on two NUMA nodes, so every per-node chart has two."""
    return NetVM(qemu, "native", mem="512M", numa=("0:256M", "1:256M"))


class EchoLoop:
    """TCP echo traffic from the host until stopped."""

    def __init__(self, port):
        self.port, self.sent, self.stop = port, 0, threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        chunk = os.urandom(16 * 1024)
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=20) as s:
                while not self.stop.is_set():
                    s.sendall(chunk)
                    got = 0
                    while got < len(chunk):
                        d = s.recv(len(chunk) - got)
                        if not d:
                            raise OSError("echo connection closed")
                        got += len(d)
                    self.sent += len(chunk)
        except OSError as e:
            self.error = e

    def close(self):
        self.stop.set()
        self.thread.join(30)


def wait_js(drv, script, what, timeout=PAGE_TIMEOUT, vm=None):
    """Polls a JavaScript expression until it is truthy; returns it."""
    end = time.monotonic() + timeout
    while True:
        v = drv.execute_script("return " + script)
        if v:
            return v
        if time.monotonic() > end:
            msg = "timeout after %ss waiting for %s" % (timeout, what)
            if vm:
                vm.fail(msg)
            pytest.fail(msg, pytrace=False)
        time.sleep(0.1)


def updates(drv):
    return int(drv.execute_script(
        "return document.body.getAttribute('data-updates') || 0"))


def card_text(drv, card):
    return drv.execute_script(
        "return document.querySelector('#%s pre.values').textContent" % card)


def js_errors(drv):
    """Browser console entries at level SEVERE (JavaScript errors, failed
    loads)."""
    return [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]


def test_dashboard_charts_fill_and_move_with_traffic(guest, chrome):
    base = "http://127.0.0.1:%d" % guest.http
    chrome.get(base + "/dashboard")
    wait_js(chrome, "document.body.getAttribute('data-updates') >= 2",
            "two dashboard updates", vm=guest.vm)
    # Every chart drew values, and its text beside it is there.
    for c in CHARTS:
        n = chrome.execute_script(
            "return +document.querySelector('#%s svg.chart').getAttribute('data-points')" % c)
        assert n > 0, "chart %s drew no data; text: %r" % (c, card_text(chrome, c))
        assert card_text(chrome, c).strip(), "chart %s has no values text" % c
    assert "Node 0, zone   Normal" in card_text(chrome, "buddy")
    assert "Node 1, zone   Normal" in card_text(chrome, "buddy")
    # What each value is comes from the guest's /stats-schema.json: the
    # page loaded it, and a line of values carries its label.
    schema = json.loads(raw_http(guest.http, b"GET /stats-schema.json HTTP/1.0\r\n\r\n")[2])
    assert int(chrome.execute_script(
        "return document.body.getAttribute('data-described')")) == len(schema)
    label = schema["nic.*.rx_packets"]["label"]
    titles = chrome.execute_script(
        "return [...document.querySelectorAll('#nic pre.values span')].map(s => s.title)")
    assert any(t.startswith(label + " (packets, counter)") for t in titles), titles

    # Traffic: the NIC and lwIP numbers must change between updates.
    before_nic, before_lwip = card_text(chrome, "nic"), card_text(chrome, "lwip")
    u0 = updates(chrome)
    echo = EchoLoop(guest.echo)
    try:
        wait_js(chrome, "document.body.getAttribute('data-updates') >= %d" % (u0 + 3),
                "three more updates during traffic", vm=guest.vm)
    finally:
        echo.close()
    assert echo.error is None and echo.sent > 0, "echo loop: %s, %d bytes" % (echo.error, echo.sent)
    after_nic = card_text(chrome, "nic")
    rx = lambda t: int(re.search(r"rx_packets\s+(\d+)", t).group(1))
    assert rx(after_nic) > rx(before_nic), (before_nic, after_nic)
    assert card_text(chrome, "lwip") != before_lwip
    # The queues card names each queue with the CPU that polls it.
    assert re.search(r"^eth0 q0\s+0/0\s+[1-9]", card_text(chrome, "queues"), re.M), \
        card_text(chrome, "queues")
    # The rate chart saw packets per second above zero, in the unit
    # /stats-schema.json gives the counter.
    assert re.search(r"rx_packets\s+\d+\s+[1-9][\d.]*k? packets/s", after_nic) or \
        re.search(r"tx_packets\s+\d+\s+[1-9][\d.]*k? packets/s", after_nic), after_nic
    # The page runs at its default pace, one update a second (its status
    # line says so; the pace itself is not timed here).
    assert "every 1000 ms" in chrome.find_element("id", "status").text

    # One /stats.json request per update (the browser's own record of
    # what it fetched; one more may be in flight).
    fetched = chrome.execute_script(
        "return performance.getEntriesByType('resource')"
        ".filter(e => new URL(e.name).pathname === '/stats.json').length")
    done = updates(chrome)
    assert done <= fetched <= done + 1, (fetched, done)

    errors = js_errors(chrome)
    assert not errors, "browser console errors: %s" % errors
    save_full_page(chrome, os.path.join(ARTIFACT_DIR, "dashboard.png"))


def save_full_page(drv, path):
    """A PNG of the whole page, not only the window (DevTools protocol)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shot = drv.execute_cdp_cmd("Page.captureScreenshot",
                               {"format": "png", "captureBeyondViewport": True})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    assert os.path.getsize(path) > 10000, path


def test_unknown_path_gets_our_404_page_in_the_browser(guest, chrome):
    chrome.get("http://127.0.0.1:%d/no/such/page" % guest.http)
    assert chrome.title == "404 Not Found"
    body = chrome.find_element("tag name", "body").text
    assert "There is no page at this address" in body
    assert "SICS" not in chrome.page_source and "lwIP" not in chrome.title
    # The page's stylesheet loaded (the style is the dashboard's).
    color = chrome.execute_script(
        "return getComputedStyle(document.querySelector('h1')).color")
    assert color == "rgb(179, 38, 30)", color


def raw_http(port, request, timeout=20):
    """Sends request bytes, returns (status, headers, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0].startswith("HTTP/") else None
    headers = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
    return status, headers, body


@pytest.mark.parametrize("request_bytes, status, title", [
    (b"GET /no-such-page HTTP/1.0\r\n\r\n", 404, b"404 Not Found"),
    (b"GET /img/sics.gif HTTP/1.0\r\n\r\n", 404, b"404 Not Found"),
    (b"POST /iperf-client/5001 HTTP/1.0\r\n\r\n", 403, b"403 Forbidden"),
    (b"GET /" + b"a" * 1500, 414, b"414 URI Too Long"),
    (b"GET / HTTP/1.1\r\nHost: g\r\nX-A: " + b"a" * 1500, 431,
     b"431 Request Header Fields Too Large"),
    (b"GET / HTTP/1.1\r\n\r\n", 400, b"400 Bad Request"),
    (b"DELETE / HTTP/1.0\r\n\r\n", 501, b"501 Not Implemented"),
    (b"GET / HTTP/2.0\r\n\r\n", 505, b"505 HTTP Version Not Supported"),
    (b"POST /dashboard HTTP/1.0\r\n\r\n", 405, b"405 Method Not Allowed"),
    (b"POST / HTTP/1.0\r\nContent-Length: 100000\r\n\r\n", 413,
     b"413 Content Too Large"),
], ids=["unknown", "lwip-sample-file", "control-off", "overlong-request-line",
        "overlong-headers", "no-host", "method", "version", "post", "body"])
def test_error_answers_are_our_pages_with_their_status(guest, request_bytes, status, title):
    guest.stats()  # first connection done (ARP for the host)
    got, headers, body = raw_http(guest.http, request_bytes)
    assert got == status, (got, headers, body[:200])
    assert headers.get("Content-Type") == "text/html; charset=utf-8"
    assert int(headers["Content-Length"]) == len(body)
    assert b"<title>" + title + b"</title>" in body
    assert b'href="/dashboard.css"' in body
    st = guest.stats()
    assert st["http"]["err%d" % status] >= 1, st["http"]


def test_iperf_client_that_cannot_start_answers_503(qemu):
    """A static address and no gateway: lwiperf has no host to connect
    to, so /iperf-client answers our 503 page (and counts it)."""
    vm = NetVM(qemu, "native", append="ip=10.0.2.15/24 http_control=1")
    vm.stats()
    got, headers, body = raw_http(vm.http, b"POST /iperf-client/5001 HTTP/1.0\r\n\r\n")
    assert got == 503, (got, headers, body[:200])
    assert headers.get("Retry-After") == "1", headers
    assert b"<title>503 Service Unavailable</title>" in body
    assert vm.stats()["http"]["err503"] == 1


def test_static_files_have_their_types(guest):
    types = {"/": "text/html; charset=utf-8", "/dashboard": "text/html; charset=utf-8",
             "/dashboard.js": "text/javascript; charset=utf-8",
             "/dashboard.css": "text/css; charset=utf-8", "/favicon.svg": "image/svg+xml"}
    guest.stats()
    for path, ctype in types.items():
        got, headers, body = raw_http(guest.http, b"GET %s HTTP/1.0\r\n\r\n" % path.encode())
        assert got == 200, path
        assert headers.get("Content-Type") == ctype, (path, headers)
        assert int(headers["Content-Length"]) == len(body), path
    # The index stays small (HTTP benchmarks fetch it) and links both.
    _, _, index = raw_http(guest.http, b"GET / HTTP/1.0\r\n\r\n")
    assert len(index) < 1024 and b'href="/dashboard"' in index and b'href="/stats.json"' in index
