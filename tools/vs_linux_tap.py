"""The tap section of tools/bench-vs-linux: each guest on a tap device in a
private network namespace (tests/qemu/netns_tap.py), reached by clients
run inside the namespace, with no user-net NAT in the way. The script
boots the guests (its Guest class, tap=...); this file measures them and
says which offloads each one negotiated.

The figures of one guest on the tap (figures()), the keys in TAP_ROWS:

  iperf host->guest, IPv4 and IPv6   iperf2 client in the namespace to the
                     guest's server (-V -c ADDR6 for IPv6), --seconds s
  iperf guest->host, IPv4 and IPv6   POST /iperf-client/PORT asked over
                     that family: our kernel's lwiperf client, or `iperf
                     -c` spawned by vsl_server, aims at the asker (10 s,
                     fixed by both guests); iperf -s in the namespace
                     reports what it received
  HTTP keep-alive / Connection: close
                     wrk -t1 -c4 on GET / over IPv4 (our HTTP server,
                     vsl_server on Linux); four connections in both modes:
                     a tap has no slirp accept queue to overflow
  UDP echo RTT       1000 sequential echoes after the warm-up
                     (tools/irq_figures.py), IPv4 and IPv6: median, p99
  UDP echo RTT, host loaded
                     the same over IPv4 while one busy process per host
                     core competes (tools/vs_linux_latency.py's CpuLoad,
                     started before the warm-up): a guest that spins takes
                     a core QEMU's I/O thread or the client needs

and, on a second guest under -icount shift=0 (icount_figures()): guest
instructions per received and per sent TCP segment, a segment being MSS
(1448) bytes of payload, whatever frames carried them — with receive
coalescing or TSO a frame holds many, so counting frames would reward
the guest whose device merges more. Received: an iperf2 transfer of
--icount-bytes into the guest; sent: the guest's own 10 s client, the
payload counted by the host's server. Busy time as in the user-net
section: ours /stats.json poll.busy_ns, Linux uptime minus idle time.

Offloads: ours from /stats.json (nic.eth0.offloads), the virtio-net
driver's boot line (which features it negotiated) and igb's TSO (on
unless the boot log says it is off); Linux from vsl_features's boot line
(the features Linux switched on, ethtool's names) and, on virtio-net, the
negotiated feature bits /sys prints.

Measurement helpers only: nothing here asserts a speed.
"""
import json
import os
import re
import subprocess
import sys
import time

from qemu_guest import GuestFailed
from vs_linux_latency import CpuLoad

HERE = os.path.dirname(os.path.abspath(__file__))
MSS = 1448  # TCP payload of a 1500-byte frame with timestamps
GUEST6, HOST6 = "2001:db8:76::2", "2001:db8:76::1"
WRK_CONNS = 4
GUEST_CLIENT_S = 10  # both guests' iperf clients run this long

# virtio-net feature bits (virtio 1.2, 5.1.3) a report names.
VIRTIO_BITS = {0: "csum", 1: "guest_csum", 7: "guest_tso4", 8: "guest_tso6",
               11: "host_tso4", 12: "host_tso6", 15: "mrg_rxbuf"}
# Linux features worth naming: checksums, segmentation, receive merging
# (the rest of ethtool -k is VLAN, tunnels and the like).
LINUX_FEATURES = ("rx-checksum", "tx-checksum-ipv4", "tx-checksum-ipv6",
                  "tx-checksum-ip-generic", "tx-scatter-gather", "tx-tcp-segmentation",
                  "tx-tcp6-segmentation", "rx-gro", "rx-gro-hw", "rx-lro")
OURS_VIRTIO_LINE = (r"^virtio-net: eth0 offloads csum=(\S+) guest_csum=(\S+) "
                    r"guest_tso4=(\S+) guest_tso6=(\S+) mrg_rxbuf=(\S+) "
                    r"host_tso4=(\S+) host_tso6=(\S+)")
OURS_VIRTIO_WORDS = ("csum", "guest_csum", "guest_tso4", "guest_tso6", "mrg_rxbuf",
                     "host_tso4", "host_tso6")
IGB_TSO_OFF = r"^igb: .*(TSO off|no memory for TSO)"


class TapFigureFailed(Exception):
    """One figure could not be taken (the message says why)."""


# --- offloads ------------------------------------------------------------------

def virtio_bits(text):
    """The names of VIRTIO_BITS set in /sys's feature string (character N
    is bit N)."""
    return [name for bit, name in sorted(VIRTIO_BITS.items())
            if bit < len(text) and text[bit] == "1"]


def linux_offloads(log):
    """What the Linux guest's boot log says it switched on: "features"
    (LINUX_FEATURES that are active) and, on virtio-net, "virtio" (the
    negotiated bits of VIRTIO_BITS); None where the line is missing."""
    out = {"features": None, "virtio": None}
    m = re.search(r"^vslinux: features eth0 (.*)$", log, re.M)
    if m and m.group(1).strip() != "unknown":
        active = m.group(1).split()
        out["features"] = [f for f in LINUX_FEATURES if f in active]
    m = re.search(r"^vslinux: virtio-features ([01]+)", log, re.M)
    if m:
        out["virtio"] = virtio_bits(m.group(1))
    return out


def ours_offloads(log, stats, nic):
    """What our kernel uses: "features" (the device offloads /stats.json
    names) and, on virtio-net, "virtio" (the driver's boot line: the
    features it switched on); igb adds "tso" unless its tables were left
    out."""
    feats = list(stats["nic"]["eth0"].get("offloads", []))
    if nic == "igb" and not re.search(IGB_TSO_OFF, log, re.M):
        feats.append("tso")
    out = {"features": feats, "virtio": None}
    m = re.search(OURS_VIRTIO_LINE, log, re.M)
    if m:
        out["virtio"] = [w for w, v in zip(OURS_VIRTIO_WORDS, m.groups()) if v == "on"]
    return out


def offload_text(o):
    """One report cell: features, then the virtio bits in brackets."""
    if not o:
        return "?"
    words = ", ".join(o.get("features") or []) or ("none" if o.get("features") == [] else "?")
    if o.get("virtio") is not None:
        words += " (virtio: %s)" % (", ".join(o["virtio"]) or "none")
    return words


# --- clients in the namespace ---------------------------------------------------

def iperf_csv(text):
    """(bytes, bits/s) of iperf2's last CSV report line, (0, 0) without."""
    lines = [l.split(",") for l in text.strip().splitlines() if l.count(",") >= 8]
    return (int(lines[-1][7]), int(lines[-1][8])) if lines else (0, 0)


def iperf_h2g(net, addr, seconds):
    """Mbit/s of iperf2's client in the namespace to addr (IPv6 with a
    colon)."""
    family = ["-V"] if ":" in addr else []
    r = net.run(["iperf"] + family + ["-c", addr, "-t", str(seconds), "-y", "C"],
                timeout=seconds * 3 + 30)
    bps = iperf_csv(r.stdout.decode())[1]
    if not bps:
        raise TapFigureFailed("iperf -c %s: no report: %s" % (addr, r.stderr.decode()[-200:]))
    return bps / 1e6


def http_url(g, addr, path):
    host = "[%s]" % addr if ":" in addr else addr
    return "http://%s:%d%s" % (host, g.ports[g.server()], path)


def iperf_g2h(net, g, addr, port):
    """The guest's own client to an iperf -s in the namespace, asked over
    addr's family (the guests aim at the asker). Returns (Mbit/s, bytes)
    as the host's server counted them."""
    v6 = ":" in addr
    srv = subprocess.Popen(["ip", "netns", "exec", net.ns, "iperf", "-s", "-p", str(port),
                            "-y", "C"] + (["-V"] if v6 else []),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        time.sleep(0.5)
        mark = len(g.log())
        r = net.run(["curl", "-sS", "-X", "POST", "-m", "20",
                     http_url(g, addr, "/iperf-client/%d" % port)], timeout=40)
        if r.stdout.strip() != b"started":
            raise TapFigureFailed("POST /iperf-client over %s answered %r %r" % (
                addr, r.stdout[:80], r.stderr[-200:]))
        # the client's 10 s are guest time: under -icount minutes
        m = g.wait_for(r"^iperf: (done-client|aborted-\S+) \S+:%d\b.*" % port,
                       900 if g.icount else GUEST_CLIENT_S * 6 + 30, start=mark, fail=False)
        time.sleep(0.5)
    finally:
        srv.terminate()
        out, _ = srv.communicate(timeout=10)
    nbytes, bps = iperf_csv(out)
    if not bps:
        raise TapFigureFailed("host iperf -s got no report over %s; guest said %r" % (
            addr, m.group(0) if m else "nothing"))
    return bps / 1e6, nbytes


def wrk_figures(text):
    """(req/s, requests, socket errors + non-2xx) from wrk's output."""
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    n = re.search(r"(\d+) requests in", text)
    e = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    errs = (sum(int(x) for x in e.groups()) if e else 0) + (int(bad.group(1)) if bad else 0)
    return (float(m.group(1)) if m else 0.0, int(n.group(1)) if n else 0, errs)


def http_rate(net, g, addr, close, seconds):
    """req/s of wrk on GET / (keep-alive, or Connection: close) and a note
    when requests failed."""
    cmd = ["wrk", "-t1", "-c%d" % WRK_CONNS, "-d%ds" % seconds, "--timeout", "2s"]
    if close:
        cmd += ["-H", "Connection: close"]
    r = net.run(cmd + [http_url(g, addr, "/")], timeout=seconds + 30)
    rps, n, errs = wrk_figures(r.stdout.decode())
    if not n:
        raise TapFigureFailed("wrk got no answer: %r" % r.stdout.decode()[-300:])
    note = ("%s: %d requests, %d errors" % ("close" if close else "keep-alive", n, errs)
            if errs else None)
    return rps, note


# Run inside the namespace: the user-net section's UDP series.
UDP_RTT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import irq_figures
addr = (sys.argv[2], 7)
irq_figures.echo_warm_up(addr)
print(json.dumps(irq_figures.summary(*irq_figures.echo_series(
    addr, int(sys.argv[3]), timeout=1.0, tag=b"vs-linux-tap"))))
"""


def udp_rtt(net, addr, count=1000):
    """median and p99 µs of count sequential UDP echoes to addr, and lost."""
    r = net.run([sys.executable, "-c", UDP_RTT, HERE, addr, str(count)], timeout=120)
    try:
        u = json.loads(r.stdout)
    except ValueError:
        raise TapFigureFailed("UDP echo to %s: %r" % (addr, r.stderr.decode()[-200:]))
    if u["n"] < count // 2:
        raise TapFigureFailed("UDP echo to %s: %d of %d answered" % (addr, u["n"], count))
    return u


def loaded_udp_rtt(net, addr, count=1000):
    """udp_rtt() while CpuLoad spins on every host core; the load's CPU
    seconds too, proof that it ran."""
    with CpuLoad() as load:
        u = udp_rtt(net, addr, count)
    u["load_cpu_s"] = load.cpu_s
    return u


def wait_ping(net, addr, tries=40):
    """Until the guest answers ping at addr: our IPv6 address passes
    duplicate address detection in ~1 s; Linux's e1000 reports its link ~2
    s after its ready line (longer under -icount)."""
    for _ in range(tries):
        ping = ["ping", "-6"] if ":" in addr else ["ping"]
        if net.run(ping + ["-c", "1", "-W", "1", addr], timeout=10).returncode == 0:
            return
    raise TapFigureFailed("no ping answer from %s" % addr)


# --- one guest's figures ------------------------------------------------------

def figures(net, g, seconds, port, skip=(), loaded=1000):
    """Every figure of one guest on the tap (keys of TAP_ROWS), plus
    "notes" (figures that failed, said why). port: a free TCP port for
    the host's iperf server (port + 1 too). skip: step names left out
    ("loaded_udp"); loaded: the host-loaded row's echoes."""
    res, notes = {}, []
    try:
        wait_ping(net, GUEST6)
        v6 = True
    except (TapFigureFailed, GuestFailed) as e:
        notes.append("IPv6 figures left out: %s" % e)
        v6 = False
    ip4 = g.ip
    # (key, IPv6?, how)
    steps = [("iperf_h2g4_mbps", False, lambda: iperf_h2g(net, ip4, seconds)),
             ("iperf_h2g6_mbps", True, lambda: iperf_h2g(net, GUEST6, seconds)),
             ("iperf_g2h4_mbps", False, lambda: iperf_g2h(net, g, ip4, port)[0]),
             ("iperf_g2h6_mbps", True, lambda: iperf_g2h(net, g, GUEST6, port + 1)[0]),
             ("http_ka_rps", False, lambda: http_rate(net, g, ip4, False, seconds)),
             ("http_close_rps", False, lambda: http_rate(net, g, ip4, True, seconds)),
             ("udp4", False, lambda: udp_rtt(net, ip4)),
             ("udp6", True, lambda: udp_rtt(net, GUEST6)),
             ("loaded4", False, lambda: loaded_udp_rtt(net, ip4, loaded))]
    for key, ipv6, step in steps:
        if (ipv6 and not v6) or (key == "loaded4" and "loaded_udp" in skip):
            continue
        try:
            v = step()
        except (TapFigureFailed, GuestFailed, OSError, subprocess.SubprocessError) as e:
            # GuestFailed: a client in the namespace timed out (netns_tap)
            notes.append("%s failed: %s" % (key, str(e)[:300]))
            continue
        if key.startswith(("udp", "loaded")):
            res.update({"%s_rtt_median_us" % key: v["median"], "%s_rtt_p99_us" % key: v["p99"],
                        "%s_lost" % key: v["lost"]})
            if "load_cpu_s" in v:
                res["%s_load_cpu_s" % key] = v["load_cpu_s"]
        elif key.startswith("http"):
            res[key] = v[0]
            if v[1]:
                notes.append(v[1])
        else:
            res[key] = v
    if notes:
        res["notes"] = notes
    return res


def counters(g):
    """(busy guest ns, rx frames, tx frames) as each kernel counts them;
    on a tap get() fetches with curl inside the namespace."""
    if g.linux:
        up, idle = (float(x) for x in g.get("/proc/uptime", g.server()).split()[:2])
        for line in g.get("/proc/net/dev", g.server()).decode().splitlines():
            if line.strip().startswith("eth0:"):
                f = line.split(":", 1)[1].split()
                return (up - idle) * 1e9, int(f[1]), int(f[9])
        raise TapFigureFailed("no eth0 in /proc/net/dev")
    st = json.loads(g.get("/stats.json", timeout=30))
    return st["poll"]["busy_ns"], st["nic"]["eth0"]["rx_packets"], st["nic"]["eth0"]["tx_packets"]


def icount_figures(net, g, nbytes, port):
    """Guest instructions (-icount shift=0: one per ns of guest time) per
    received and per sent MSS of TCP payload, and per frame."""
    res = {}
    wait_ping(net, g.ip, tries=90)
    ns0, rx0, tx0 = counters(g)
    r = net.run(["iperf", "-c", g.ip, "-n", str(nbytes), "-y", "C"], timeout=900)
    if not iperf_csv(r.stdout.decode())[1]:
        raise TapFigureFailed("iperf -n under -icount: no report: %s" % r.stderr.decode()[-300:])
    time.sleep(0.2)
    ns1, rx1, tx1 = counters(g)
    if ns1 <= ns0:
        # Linux's /proc/uptime counts in 10 ms: a short transfer with
        # large received frames can fit in one step
        raise TapFigureFailed("no busy time counted for %d bytes received: under the "
                              "counter's resolution, give more --icount-bytes" % nbytes)
    rx = rx1 - rx0
    res.update({"instr_per_rx_segment": (ns1 - ns0) / (nbytes / MSS),
                "instr_per_rx_frame": (ns1 - ns0) / max(rx, 1), "icount_rx_frames": rx})
    sent = iperf_g2h(net, g, g.ip, port)[1]
    ns2, _, tx2 = counters(g)
    if sent < MSS * 100:
        raise TapFigureFailed("the guest sent only %d bytes under -icount" % sent)
    res.update({"instr_per_tx_segment": (ns2 - ns1) / (sent / MSS),
                "instr_per_tx_frame": (ns2 - ns1) / max(tx2 - tx1, 1),
                "icount_tx_frames": tx2 - tx1, "icount_tx_bytes": sent})
    return res


# --- the report's rows ----------------------------------------------------------

# (label, key for Linux, key for ours, unit, better, goal) as the script's
# ROWS; the goals hold on GOAL_NICS (the others show the figures only).
GOAL_NICS = ("virtio", "igb")
TAP_ROWS = [
    ("iperf host->guest, IPv4", "iperf_h2g4_mbps", "iperf_h2g4_mbps", "Mbit/s", "higher",
     (1.5, "ge")),
    ("iperf host->guest, IPv6", "iperf_h2g6_mbps", "iperf_h2g6_mbps", "Mbit/s", "higher",
     (1.5, "ge")),
    ("iperf guest->host (guest's own client), IPv4", "iperf_g2h4_mbps", "iperf_g2h4_mbps",
     "Mbit/s", "higher", (1.5, "ge")),
    ("iperf guest->host (guest's own client), IPv6", "iperf_g2h6_mbps", "iperf_g2h6_mbps",
     "Mbit/s", "higher", (1.5, "ge")),
    ("HTTP GET / keep-alive, vs vsl_server (epoll)", "http_ka_rps", "http_ka_rps", "req/s",
     "higher", (2.0, "ge")),
    ("HTTP GET / Connection: close, vs vsl_server (epoll)", "http_close_rps", "http_close_rps",
     "req/s", "higher", (2.0, "ge")),
    ("UDP echo RTT median, IPv4", "udp4_rtt_median_us", "udp4_rtt_median_us", "µs", "lower",
     None),
    ("UDP echo RTT p99, IPv4", "udp4_rtt_p99_us", "udp4_rtt_p99_us", "µs", "lower",
     (1.0, "le")),
    ("UDP echo RTT median, IPv6", "udp6_rtt_median_us", "udp6_rtt_median_us", "µs", "lower",
     None),
    ("UDP echo RTT p99, IPv6", "udp6_rtt_p99_us", "udp6_rtt_p99_us", "µs", "lower",
     (1.0, "le")),
    ("UDP echo RTT median, IPv4, host loaded (a busy process per core)",
     "loaded4_rtt_median_us", "loaded4_rtt_median_us", "µs", "lower", None),
    ("UDP echo RTT p99, IPv4, host loaded", "loaded4_rtt_p99_us", "loaded4_rtt_p99_us", "µs",
     "lower", (1.0, "le")),
    ("UDP echoes lost, host loaded (of --loaded)", "loaded4_lost", "loaded4_lost", "lost", "lower",
     None),
    ("UDP echoes lost of 1000, IPv4 + IPv6", "udp_lost_both", "udp_lost_both", "lost",
     "lower", None),
    ("guest instructions per received TCP segment (-icount)", "instr_per_rx_segment",
     "instr_per_rx_segment", "instr", "lower", (0.5, "le")),
    ("guest instructions per sent TCP segment (-icount)", "instr_per_tx_segment",
     "instr_per_tx_segment", "instr", "lower", (0.5, "le")),
    ("guest instructions per received frame (-icount)", "instr_per_rx_frame",
     "instr_per_rx_frame", "instr", "lower", None),
    ("guest instructions per sent frame (-icount)", "instr_per_tx_frame",
     "instr_per_tx_frame", "instr", "lower", None),
    ("boot to services ready", "boot_s", "boot_s", "s", "lower", None),
]
# The --skip name that leaves a figure out ("icount": the second guest).
KEY_STEP = {"instr_per_rx_segment": "icount", "instr_per_tx_segment": "icount",
            "instr_per_rx_frame": "icount", "instr_per_tx_frame": "icount",
            "loaded4_rtt_median_us": "loaded_udp", "loaded4_rtt_p99_us": "loaded_udp",
            "loaded4_lost": "loaded_udp"}


def add_lost_both(one):
    """udp_lost_both: the echoes lost over both families, when both ran."""
    if "udp4_lost" in one and "udp6_lost" in one:
        one["udp_lost_both"] = one["udp4_lost"] + one["udp6_lost"]
