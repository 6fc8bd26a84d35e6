"""The sampling profiler (kernel/profile.c, apps/http_profile.c) under real
traffic: every CPU is sampled from its timer, the stacks are made of the
kernel's own functions and reach the poll loop, the HTTP trigger starts
and stops sessions and refuses bad rates, a full buffer counts what it
drops, and the timer goes back to its own rate after a session.

Each test boots its own guest (virtio-net, user networking, -smp 2) and
drives it with HTTP and UDP echo from the host. Starting and stopping a
session are actions (apps/http_control.h): POST, and only on a guest
booted with http_control=1.
"""
import re
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

import conftest
from test_net import NetVM, bad_value_line

TIMER_HZ = 100  # kernel/config.h


def request(vm, path, method="GET", timeout=30):
    """(status, body, headers) of METHOD path; error statuses are answers
    too."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (vm.http, path),
                                 data=b"" if method == "POST" else None, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), e.headers


def get(vm, path, timeout=30):
    """(status, body) of GET path."""
    return request(vm, path, timeout=timeout)[:2]


def post(vm, path, timeout=30):
    """(status, body) of POST path: an action."""
    return request(vm, path, "POST", timeout)[:2]


def control_lines(vm, what):
    """The console lines of the actions started, of one kind."""
    return re.findall(r"^http: control: %s.*\(asked by 10\.0\.2\.2\)$" % what,
                      vm.vm.log(), re.M)


def profile(vm):
    status, body = get(vm, "/profile.json")
    if status != 200:
        vm.fail("/profile.json: HTTP %d %r" % (status, body[:300]))
    try:
        return json.loads(body)
    except ValueError as e:
        vm.fail("/profile.json is not JSON (%s): %r" % (e, body[:400]))


def traffic(vm, requests=60, datagrams=60):
    """Work for the net CPU: HTTP pages and UDP echoes from the host."""
    for _ in range(requests):
        status, _ = get(vm, "/")
        assert status == 200
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2)
        s.connect(("127.0.0.1", vm.uecho))
        for i in range(datagrams):
            s.send(b"profile %d" % i)
            try:
                s.recv(64)
            except socket.timeout:
                pass


def kernel_functions():
    """The text symbols of the kernel image, as the symbol table has them."""
    out = subprocess.run(["nm", conftest.KERNEL], capture_output=True, text=True,
                         check=True).stdout
    return {l.split()[2] for l in out.splitlines()
            if len(l.split()) == 3 and l.split()[1] in "tTwW"}


def busy_samples(prof, cpu):
    return sum(s["count"] for s in prof["stacks"] if s["cpu"] == cpu)


def test_profile_at_boot_samples_every_cpu_with_kernel_functions(qemu):
    vm = NetVM(qemu, "native", append="profile=1")
    vm.vm.wait_for(r"^profile: session 1: every CPU at 997 Hz, 8192 samples each$")
    traffic(vm)
    prof = profile(vm)
    assert prof["running"] and prof["session"] == 1 and prof["hz"] == 997
    assert prof["nr_cpus"] == 2 == len(prof["cpus"])
    for c in prof["cpus"]:
        # every CPU took ticks in this session, busy or idle
        assert c["samples"] + c["idle"] > 0, prof["cpus"]
        assert c["timer_hz"] == 997, prof["cpus"]
        assert c["samples"] == busy_samples(prof, c["cpu"]) + c["unfolded"]
    assert prof["cpus"][0]["samples"] > 0  # the net CPU did work
    assert prof["cpus"][1]["idle"] > 0     # the other one halted
    names = kernel_functions()
    frames = [f for s in prof["stacks"] for f in s["frames"]]
    unknown = [f for f in frames if f not in names]
    assert not unknown, "frames that are no kernel function: %s" % sorted(set(unknown))
    # The frame-pointer walk reaches the root: the net CPU's samples sit
    # on its poll loop, and the traffic's path through the stack shows.
    busy = busy_samples(prof, 0)
    under_poll = sum(s["count"] for s in prof["stacks"]
                     if s["cpu"] == 0 and "poll_loop" in s["frames"])
    assert under_poll >= 0.9 * busy, "%d of %d samples under poll_loop" % (under_poll, busy)
    seen = set(frames)
    assert {"net_poll_queue", "ethernet_input", "ip4_input"} <= seen, sorted(seen)


def test_profile_text_is_folded_stacks_matching_the_json(qemu):
    vm = NetVM(qemu, "stock", append="profile=1 http_control=1")
    traffic(vm, requests=30, datagrams=10)
    assert post(vm, "/profile/stop") == (200, "stopped\n")
    prof = profile(vm)
    status, text = get(vm, "/profile.txt")
    assert status == 200
    lines = text.splitlines()
    assert lines[0].startswith("# profile session=1 running=0 hz=997 cpus=2 ")
    counts = {}
    for line in lines:
        if line.startswith("#"):
            continue
        stack, count = line.rsplit(" ", 1)
        frames = stack.split(";")
        cpu = int(frames[0][3:])
        if frames[1:] == ["(idle)"]:
            assert int(count) == prof["cpus"][cpu]["idle"]
            continue
        counts[cpu] = counts.get(cpu, 0) + int(count)
    for c in prof["cpus"]:
        assert counts.get(c["cpu"], 0) == c["samples"] - c["unfolded"]


def test_http_trigger_starts_stops_and_refuses_bad_rates(qemu):
    vm = NetVM(qemu, "native", append="http_control=1")
    prof = profile(vm)
    assert prof["session"] == 0 and not prof["running"]
    assert all(c["timer_hz"] == TIMER_HZ for c in prof["cpus"])
    # A rate with "400" in the URI is still a 200 (lwIP's httpd took the
    # status from the URI's digits; the status must be the site's own).
    status, body = post(vm, "/profile/start/400")
    assert (status, body) == (200, "started hz=400\n")
    # One session at a time: a second start, at any rate, is refused and
    # changes nothing; the console has one line for the one started.
    for _ in range(5):
        status, body = post(vm, "/profile/start/5000")
        assert status == 409 and "409 Conflict" in body
    assert len(control_lines(vm, r"profiler at 400 Hz")) == 1
    assert len(control_lines(vm, r"profiler at")) == 1
    traffic(vm, requests=20, datagrams=20)
    prof = profile(vm)
    assert prof["session"] == 1 and prof["running"] and prof["hz"] == 400
    # Each CPU takes the new rate at its next tick (kernel/time.c); on a
    # loaded host CPU 1's vCPU may not have ticked yet (seen once in CI:
    # [400, 100]), so give it a bounded while, with traffic.
    for _ in range(20):
        if [c["timer_hz"] for c in prof["cpus"]] == [400, 400]:
            break
        traffic(vm, requests=2, datagrams=2)
        prof = profile(vm)
    assert [c["timer_hz"] for c in prof["cpus"]] == [400, 400]
    # A tick that finds its CPU halted counts as idle, not as a sample, and
    # the net CPU halts between requests: 20 requests keep it busy for a few
    # ms, a handful of 400 Hz ticks, and once in a run none of them landed
    # outside hlt. More traffic (bounded) until it has a sample to keep.
    for _ in range(20):
        if prof["cpus"][0]["samples"] > 0:
            break
        traffic(vm, requests=10, datagrams=10)
        prof = profile(vm)
    assert prof["cpus"][0]["samples"] > 0, prof["cpus"]
    assert post(vm, "/profile/stop") == (200, "stopped\n")
    assert post(vm, "/profile/stop") == (200, "stopped\n")  # nothing to stop
    assert len(control_lines(vm, r"profiler stopped")) == 1
    traffic(vm, requests=5, datagrams=0)  # every CPU ticks after the stop
    time.sleep(0.5)
    first = profile(vm)
    traffic(vm, requests=10, datagrams=10)
    second = profile(vm)
    assert not second["running"]
    assert [c["samples"] for c in first["cpus"]] == [c["samples"] for c in second["cpus"]]
    assert second["cpus"][0]["samples"] > 0
    assert [c["timer_hz"] for c in second["cpus"]] == [TIMER_HZ, TIMER_HZ]
    for bad in ("/profile/start/0", "/profile/start/9", "/profile/start/5001",
                "/profile/start/abc", "/profile/start/100x", "/profile/start/"):
        status, body = post(vm, bad)
        assert status == 400 and "400 Bad Request" in body, bad
    assert profile(vm)["session"] == 1  # nothing started
    # A new session forgets the old samples; the default rate is profile_hz.
    assert post(vm, "/profile/start") == (200, "started hz=997\n")
    traffic(vm, requests=5, datagrams=0)
    third = profile(vm)
    assert third["session"] == 2 and third["hz"] == 997
    assert get(vm, "/profiles")[0] == 404


def test_full_buffer_counts_dropped_samples(qemu):
    vm = NetVM(qemu, "native", append="profile=1 profile_samples=64 profile_hz=2000")
    for _ in range(40):
        traffic(vm, requests=20, datagrams=0)
        prof = profile(vm)
        if prof["cpus"][0]["dropped"] > 0:
            break
    cpu0 = prof["cpus"][0]
    assert prof["capacity"] == 64
    assert cpu0["samples"] == 64 and cpu0["dropped"] > 0, prof["cpus"]
    assert busy_samples(prof, 0) == 64


def test_bad_profile_values_are_reported_and_defaults_used(qemu):
    vm = NetVM(qemu, "native", append="profile=1 profile_hz=3 profile_samples=10")
    log = vm.vm.log()
    assert bad_value_line(log, "profile_hz", "3", "997"), vm.vm.describe()
    assert bad_value_line(log, "profile_samples", "10", "8192"), vm.vm.describe()
    prof = profile(vm)
    assert prof["hz"] == 997 and prof["capacity"] == 8192


def test_boot_cpu_busy_from_boot_takes_ticks_under_icount(qemu):
    """Under -icount the net CPU spins from boot (each frame keeps it
    polling for 200 ms of guest time) and never halts while requests keep
    coming: it must still take timer ticks, so it is sampled."""
    vm = NetVM(qemu, "native", append="profile=1", extra=["-icount", "shift=0"])
    for _ in range(30):
        prof = profile(vm)
        if prof["cpus"][0]["samples"] + prof["cpus"][0]["idle"] > 0:
            break
        time.sleep(0.1)
    assert prof["cpus"][0]["samples"] > 0, prof["cpus"]


def test_buffers_that_do_not_fit_refuse_the_start_with_503_and_count(qemu):
    """16 MiB of RAM holds one 4 MiB buffer, not two: the start is refused,
    said on the console, counted, and the kernel goes on serving."""
    vm = NetVM(qemu, "native", append="profile=1 profile_samples=32768 http_control=1",
               mem="16M")
    vm.vm.wait_for(r"^profile: no memory for 32768 samples on cpu 1 \(4096 KiB\); not started$")
    vm.vm.wait_for(r"^profile: profile=1 given, but sampling did not start$")
    status, body = post(vm, "/profile/start")
    assert status == 503 and "503" in body
    prof = profile(vm)
    assert prof["session"] == 0 and not prof["running"]
    assert prof["alloc_failures"] == 2 and prof["capacity"] == 0
    assert get(vm, "/")[0] == 200


def test_profile_actions_are_off_unless_enabled_and_take_only_post(qemu):
    """Without http_control=1 a start is refused (403, whatever the
    method) with a page that names the key, nothing samples and nothing is
    printed; the reports stay readable with GET."""
    vm = NetVM(qemu, "native")
    for method in ("POST", "GET"):
        for path in ("/profile/start/5000", "/profile/stop"):
            status, body, _ = request(vm, path, method)
            assert status == 403 and "http_control=1" in body, (method, path, status)
    prof = profile(vm)
    assert prof["session"] == 0 and not prof["running"]
    assert get(vm, "/profile.txt")[0] == 200
    status, _, headers = request(vm, "/profile.json", "POST")
    assert status == 405 and headers["Allow"] == "GET, HEAD"
    assert "http: control:" not in vm.vm.log()


def test_profile_start_with_get_is_405_naming_post(qemu):
    vm = NetVM(qemu, "native", append="http_control=1")
    status, body, headers = request(vm, "/profile/start")
    assert status == 405 and headers["Allow"] == "POST", (status, dict(headers))
    assert "405 Method Not Allowed" in body
    assert not profile(vm)["running"]
