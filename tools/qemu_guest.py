"""One QEMU guest booted through tools/qemu-run, for the benchmark and
profiling tools and for the QEMU tests' fixtures (tools/ imports it as
`import qemu_guest`, after putting tools/ on sys.path, as it does
hostports and irq_figures):

    g = qemu_guest.Guest(log_path, ready=qemu_guest.READY,
                         services=qemu_guest.SERVICES,
                         append="net_alloc=native", nic="virtio", smp=1)
    with g:                               # stop() on the way out
        g.get("/")                        # HTTP through the forwarded port
        g.post("/profile/stop")           # an action (needs http_control=1)
        g.stats()                         # /stats.json, parsed
        udp = g.address("uecho")          # (host, port) to send to
        g.wait_for(r"^iperf: done")       # a regex on the serial log

What every guest has in common, and where it comes from:

- The command: every keyword the class does not name itself is a
  tools/qemu-run option, spelled as a Python name: smp=2 is --smp 2,
  icount=True is --icount, numa=[...] is one --numa per item, None or
  False leaves it out (qemu-run's default applies). accel defaults to
  tcg: KVM on these machines is unusable for measurement. qemu_args go
  after "--", to QEMU itself (a TCG plugin, say).
- The serial log: a file the guest's COM1 is written to (or, with
  serial_socket=PATH, the file the caller's socket client fills).
  Readiness always comes from that log, never from a port being open:
  QEMU's user network accepts a forwarded connection even while the
  guest is not listening yet. QEMU's own output goes to log_path.qemu.
- Services: {name: guest port}, "udp:7" for UDP. On user networking each
  gets a host port (tools/hostports.py) and a forward; on a tap the guest
  is reached at its own address (ip=) and port. address(name) and
  url(path, name) hide which.
- Boot: with ready=REGEX the constructor waits for it (boot_timeout s)
  and records boot_s. A forward QEMU could not bind (a port taken between
  the pick and QEMU's bind) is retried twice with new ports; any other
  failure raises GuestFailed carrying the command and both logs.
- A namespace: netns=NAME runs qemu-run under `ip netns exec NAME`, and
  get() then fetches with curl inside the namespace.
- Teardown: stop() sends SIGTERM to QEMU itself, so that qemu-run
  returns and removes its temporary folder, and SIGKILLs the whole
  session (qemu-run runs in one of its own) if that has not worked
  within 10 s. Stopping twice is harmless.

Failures go through fail(msg), which raises GuestFailed: the QEMU tests'
fixture overrides it to fail the test instead."""
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import irq_figures  # noqa: E402
from hostports import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QEMU_RUN = os.path.join(ROOT, "tools", "qemu-run")
KERNEL = os.path.join(ROOT, "build", "kernel.elf")

# Our kernel's line once its network services listen (net/net_boot.c);
# group 1 is the allocator mode it actually runs with.
READY = r"^net: listening .*net_alloc=(\w+)"
# Our kernel's services: HTTP, lwiperf, TCP and UDP echo.
SERVICES = {"http": "80", "iperf": "5001", "echo": "7", "uecho": "udp:7"}
# A -kernel boot takes under a second under TCG; a loaded shared machine
# and -icount (where the guest's idle loop runs instruction by
# instruction) stretch it many times.
BOOT_TIMEOUT = 120
FORWARD_REFUSED = "Could not set up host forwarding"


class GuestFailed(Exception):
    """The guest did not boot, did not print what was awaited, or did not
    answer; the message ends with Guest.describe()."""


def random_mac():
    """A locally administered unicast MAC (QEMU's 52:54:00 prefix), so that
    guests sharing a tap or a namespace do not clash."""
    return "52:54:00:%02x:%02x:%02x" % tuple(random.randrange(256) for _ in range(3))


def run_options(options):
    """tools/qemu-run's words for {name: value}: see the module comment."""
    words = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                words += [flag, str(v)]
        else:
            words += [flag, str(value)]
    return words


class Guest:
    """One guest under tools/qemu-run, in a session of its own."""

    # How much of the serial log describe() shows (None: all of it).
    log_tail = 4000

    def __init__(self, log_path, ready=None, boot_timeout=BOOT_TIMEOUT, services=None,
                 ip=None, netns=None, qemu_args=(), **options):
        """Starts the guest; with ready, waits for that regex on the serial
        log (see the module comment for every argument)."""
        self.log_path, self.err_path = log_path, log_path + ".qemu"
        self.services = dict(services or {})
        self.ip, self.netns = ip, netns
        self.qemu_args = list(qemu_args)
        self.options = dict(options)
        self.options.setdefault("accel", "tcg")
        self.icount = bool(self.options.get("icount"))
        self.forwarded = (self.options.get("net") or "user") == "user"
        self.proc, self._err, self._qemu = None, None, None
        self.ready_match, self.boot_s = None, None
        for _ in range(3):
            self._start()
            if ready is None:
                return
            self.ready_match = self.wait_for(ready, boot_timeout, fail=False)
            self.boot_s = time.monotonic() - self.started
            if self.ready_match:
                return
            status = self.proc.poll()
            self.stop()
            if not (self.forwarded and FORWARD_REFUSED in self.qemu_output()):
                break
        self.fail("no /%s/ on serial %s" % (ready, "within %ss" % boot_timeout if status is None
                                            else "before QEMU exited (status %s)" % status))

    def _start(self):
        """Picks the service ports and launches qemu-run."""
        self.ports, fwd = {}, []
        for name, spec in self.services.items():
            udp = spec.startswith("udp:")
            guest_port = int(spec[4:] if udp else spec)
            if self.forwarded:
                self.ports[name] = free_port(socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
                fwd += ["--hostfwd", "%s%d:%d" % ("udp:" if udp else "", self.ports[name],
                                                  guest_port)]
            else:
                self.ports[name] = guest_port
        com1 = [] if self.options.get("serial_socket") else ["--serial-log", self.log_path]
        self.args = [QEMU_RUN] + com1 + run_options(self.options) + fwd
        if self.qemu_args:
            self.args += ["--"] + self.qemu_args
        if self.netns:
            self.args = ["ip", "netns", "exec", self.netns] + self.args
        open(self.log_path, "w").close()
        if self._err:
            self._err.close()
        self._err = open(self.err_path, "w")
        self._qemu = None
        self.started = time.monotonic()
        # A session of its own: stop() reaches QEMU as well as qemu-run.
        self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=self._err,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # ---- the serial log and failures

    def log(self):
        """The serial output so far."""
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def qemu_output(self):
        """What QEMU and qemu-run printed (errors, warnings)."""
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def describe(self):
        """The command, the serial log (its last log_tail characters) and
        QEMU's own output: what a failure message carries."""
        log = self.log()
        if self.log_tail is not None and len(log) > self.log_tail:
            log = "[...]" + log[-self.log_tail:]
        return ("command: %s\n--- serial log (%s) ---\n%s\n--- qemu output ---\n%s"
                % (" ".join(self.args), self.log_path, log, self.qemu_output()[-2000:]))

    def fail(self, msg):
        """Raises GuestFailed with msg and describe()."""
        raise GuestFailed("%s\n%s" % (msg, self.describe()))

    def alive(self):
        return self.proc.poll() is None

    def wait_for(self, pattern, timeout=60, start=0, fail=True):
        """The first match of regex pattern (multi-line) in the serial log
        from offset start, waiting up to timeout s. If it does not come (or
        QEMU exits first): fail(), or None when fail is False. Only whole
        lines are searched while QEMU runs: the log is read as the guest
        writes it, and a line caught half-written once matched
        "net: listening .*net_alloc=stoc" (a capture cut short, in CI)."""
        rx = re.compile(pattern, re.M)
        end = time.monotonic() + timeout
        while True:
            exited = not self.alive()  # before reading: a last line counts
            text = self.log()
            if not exited:
                text = text[:text.rfind("\n") + 1]
            m = rx.search(text, start)
            if m:
                return m
            if exited or time.monotonic() > end:
                if not fail:
                    return None
                why = ("QEMU exited (status %s) before" % self.proc.returncode if exited
                       else "timeout after %ss waiting for" % timeout)
                self.fail("%s /%s/" % (why, pattern))
            time.sleep(0.05)

    def wait_exit(self, timeout=60):
        """Waits for the guest to end; returns qemu-run's status (0: the
        kernel exited with success, 1: with failure, 124: qemu-run's own
        timeout)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.fail("QEMU still running after %ss" % timeout)

    # ---- reaching the guest: self.ports[name] is the forward's host port
    # on user networking, the guest's own port on a tap

    def address(self, name):
        """(host, port) that reaches service name from this process."""
        return ("127.0.0.1" if self.forwarded else self.ip, self.ports[name])

    def url(self, path, service="http"):
        return "http://%s:%d%s" % (self.address(service) + (path,))

    def get(self, path, service="http", timeout=30):
        """The body of GET path (bytes). urllib's errors pass through (an
        HTTPError carries the status); from inside a namespace a failed
        fetch is a fail()."""
        if not self.netns:
            with urllib.request.urlopen(self.url(path, service), timeout=timeout) as r:
                return r.read()
        argv = ["ip", "netns", "exec", self.netns, "curl", "-sS", "-f", "-m", str(timeout),
                self.url(path, service)]
        try:
            r = subprocess.run(argv, capture_output=True, timeout=timeout + 10)
        except subprocess.TimeoutExpired:
            r = None
        if r is None or r.returncode != 0:
            self.fail("curl %s failed: %s" % (path, r.stderr.decode(errors="replace")
                                               if r else "timed out"))
        return r.stdout

    def post(self, path, service="http", timeout=30):
        """The body of POST path with an empty body: how an action that
        starts work on the guest is asked for (/iperf-client/PORT,
        /profile/start; the guest needs http_control=1 on its command
        line, README.md "Safety"). Errors as in get(). A kernel from
        before the actions took POST answers it 501: the action is then
        asked for with GET, as that kernel wants (A/B runs against older
        builds)."""
        if self.netns:
            argv = ["ip", "netns", "exec", self.netns, "curl", "-sS", "-X", "POST",
                    "-w", "\n%{http_code}", "-m", str(timeout), self.url(path, service)]
            try:
                r = subprocess.run(argv, capture_output=True, timeout=timeout + 10)
            except subprocess.TimeoutExpired:
                r = None
            body, _, code = r.stdout.rpartition(b"\n") if r else (b"", b"", b"")
            if code == b"501":
                return self.get(path, service, timeout)
            if r is None or r.returncode != 0 or not code.startswith(b"2"):
                self.fail("curl -X POST %s failed (HTTP %s): %s" % (
                    path, code.decode(), r.stderr.decode(errors="replace") if r else "timed out"))
            return body
        req = urllib.request.Request(self.url(path, service), data=b"", method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.read()
        except urllib.error.HTTPError as e:
            if e.code != 501:
                raise
        return self.get(path, service, timeout)

    def stats(self, timeout=30):
        """The kernel's /stats.json, parsed."""
        body = self.get("/stats.json", timeout=timeout)
        try:
            return json.loads(body)
        except ValueError as e:
            self.fail("/stats.json is not JSON (%s): %r" % (e, body[:300]))

    # ---- the QEMU process

    def qemu_pid(self, timeout=10.0):
        """The qemu-system process below qemu-run (fail() if none appears
        within timeout s)."""
        if self._qemu is None:
            self._qemu = irq_figures.qemu_pid(self.proc.pid, timeout)
        if self._qemu is None:
            self.fail("no qemu-system process below qemu-run")
        return self._qemu

    def host_cpu_s(self):
        """Host CPU seconds QEMU has used so far, every thread (utime +
        stime, charged a clock tick at a time)."""
        return irq_figures.cpu_seconds(self.qemu_pid())

    def stop(self):
        """Ends QEMU and qemu-run (see the module comment)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            pid = self._qemu or irq_figures.qemu_pid(self.proc.pid, 0)
            try:
                if pid:
                    os.kill(pid, signal.SIGTERM)
                else:  # qemu-run has not started QEMU yet
                    os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything left in the session
        except ProcessLookupError:
            pass
        self.proc.wait()
        self._err.close()
