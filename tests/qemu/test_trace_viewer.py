"""The event trace opened in a real viewer: speedscope (from npm, fetched
by tools/fetch-speedscope into third_party/speedscope, never committed)
served with the trace by tools/trace-view on 127.0.0.1, in Debian's
chromium, headless, as the dashboard's test drives it
(tests/qemu/test_dashboard.py; skipped the same way when chromium or
python3-selenium is missing, and when speedscope was not fetched).

A guest on two NUMA nodes traces UDP echoes with every class; the test
fetches its /trace.json and checks that speedscope imported it as Chrome
trace-event JSON: one timeline per CPU that ran a span, named by its node
and CPU from the document's metadata, with the spans the echoes made
(poll rounds, lwIP's input) in its table of frames, and no error. The same
check run on broken documents must see speedscope refuse them, so the
test cannot pass on a viewer that shows nothing. speedscope draws spans
only: the instant events (allocator calls, rx, tx) are not in it.
"""
import json
import os
import subprocess
import time

import pytest

import conftest
from test_dashboard import chrome, save_full_page  # noqa: F401 (chrome: a fixture)
from test_net import NetVM
from test_trace import request, trace_doc, udp_echoes

ARTIFACT_DIR = os.path.join(conftest.ROOT, "build", "test-artifacts")
TRACE_VIEW = os.path.join(conftest.ROOT, "tools", "trace-view")
SPEEDSCOPE = os.path.join(conftest.ROOT, "third_party", "speedscope", "index.html")
IMPORT_TIMEOUT = 20


@pytest.fixture
def view(tmp_path):
    """view(doc_text) -> the URL that opens doc_text in speedscope, served
    by tools/trace-view until the test ends."""
    if not os.path.isfile(SPEEDSCOPE):
        pytest.skip("speedscope not fetched (tools/fetch-speedscope)")
    servers = []

    def serve(text):
        path = tmp_path / ("trace%d.json" % len(servers))
        path.write_text(text)
        p = subprocess.Popen([TRACE_VIEW, "--port", "0", str(path)],
                             stdout=subprocess.PIPE, text=True)
        servers.append(p)
        url = p.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        return url

    yield serve
    for p in servers:
        p.terminate()
        p.wait(10)


def speedscope_outcome(drv, url):
    """Opens url and waits for speedscope's verdict: ("imported", title),
    ("error", its message) or ("alert", the alert's text)."""
    from selenium.common.exceptions import (NoAlertPresentException,
                                            UnexpectedAlertPresentException)
    drv.get(url)
    end = time.monotonic() + IMPORT_TIMEOUT
    while time.monotonic() < end:
        try:
            got = drv.execute_script(
                "return [document.title, document.body.innerText]")
        except UnexpectedAlertPresentException as e:
            return "alert", e.alert_text
        if got is None:
            # the alert opened while the script ran: chromedriver then
            # answers null (seen in CI), and the alert is still up
            try:
                alert = drv.switch_to.alert
                text = alert.text
                alert.accept()  # the next page must not meet it
                return "alert", text
            except NoAlertPresentException:
                time.sleep(0.1)
                continue
        title, body = got
        if "Something went wrong" in body:
            return "error", body
        if title.endswith(" - speedscope"):
            return "imported", title
        time.sleep(0.1)
    return "timeout", drv.execute_script("return document.body.innerText")


def span_threads(doc):
    """speedscope's name for each thread that has a span, in its order
    (node, then CPU): "node 0 (pid 0), cpu 1 (tid 1)"."""
    names = {(e["pid"], e["tid"], e["name"]): e["args"]["name"]
             for e in doc["traceEvents"] if e["ph"] == "M" and "name" in e.get("args", {})}
    threads = sorted({(e["pid"], e["tid"]) for e in doc["traceEvents"] if e["ph"] == "B"})
    return ["%s (pid %d), %s (tid %d)" % (names[(pid, 0, "process_name")], pid,
                                          names[(pid, tid, "thread_name")], tid)
            for pid, tid in threads]


def sandwich_rows(drv):
    """The frames of speedscope's sandwich view (its table of every frame
    of the shown timeline): name and values, `poll {"poller":"net"}`."""
    drv.find_element("xpath", "//div[text()='Sandwich']").click()
    time.sleep(0.5)
    rows = drv.execute_script(
        "return [...document.querySelectorAll('table tr td:last-child')]"
        ".map(td => td.innerText)")
    return rows


def test_a_trace_of_udp_echoes_opens_in_speedscope(view, qemu, chrome):  # noqa: F811
    vm = NetVM(qemu, "native", append="trace=none http_control=1", machine="q35",
               numa=("0:256M", "1:256M"))
    assert request(vm, "/trace/start/all", "POST")[0] == 200
    assert udp_echoes(vm, 10, size=100) == 10
    assert request(vm, "/trace/stop", "POST")[0] == 200
    doc = trace_doc(vm)
    threads = span_threads(doc)
    assert threads and threads[0] == "node 0 (pid 0), cpu 0 (tid 0)", threads

    outcome = speedscope_outcome(chrome, view(json.dumps(doc)))
    assert outcome == ("imported", "trace.json - speedscope"), outcome
    # the toolbar names the timeline shown: the first CPU's
    shown = chrome.execute_script("return document.body.innerText")
    assert threads[0] in shown, shown
    # the first timeline (CPU 0) holds the net poller's rounds and lwIP's
    # input of the echoes' frames (14 + 20 + 8 + 100 bytes)
    rows = sandwich_rows(chrome)
    assert 'poll {"poller":"net"}' in rows, rows
    assert any(r.startswith("lwip_input {") and '"len":142}' in r for r in rows), rows
    os.makedirs(ARTIFACT_DIR, exist_ok=True)
    save_full_page(chrome, os.path.join(ARTIFACT_DIR, "trace-speedscope.png"))


GOOD = ('{"traceEvents":['
        '{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"node 0"}},'
        '{"name":"thread_name","ph":"M","pid":0,"tid":0,"args":{"name":"cpu 0"}},'
        '{"name":"poll","cat":"poll","ph":"B","ts":1.000,"pid":0,"tid":0},'
        '{"name":"poll","cat":"poll","ph":"E","ts":2.000,"pid":0,"tid":0}]}')


UNRECOGNIZED = "Unrecognized format! See documentation about supported formats."


@pytest.mark.parametrize("text, outcome", [
    (GOOD, ("imported", "trace.json - speedscope")),
    (GOOD[:len(GOOD) // 2], ("alert", UNRECOGNIZED)),  # cut short: not JSON
    (GOOD.replace('"ts":1.000,', ""), ("alert", UNRECOGNIZED)),  # a begin without ts
    (GOOD.replace('"ph":"B"', '"ph":"i"').replace('"ph":"E"', '"ph":"i"'),
     ("alert", "Successfully imported profile, but it's empty!")),  # no span
], ids=["whole", "cut", "no-ts", "no-span"])
def test_the_viewer_check_tells_a_broken_document(view, chrome, text, outcome):  # noqa: F811
    assert speedscope_outcome(chrome, view(text)) == outcome
