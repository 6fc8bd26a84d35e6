#!/usr/bin/python3
"""TCP conformance: does the guest keep TCP's rules? Each case is one
behaviour, a short script (tests/qemu/tcp_script.py) of segments sent and
segments expected, run over IPv4 and over IPv6 against the guest's echo
service (port 7: the application that answers) or its HTTP server (port
80: the application that closes first, for the states of an active
close), or, for SYN_SENT, against its iperf client, which it asks over
HTTP to connect to its gateway: the guest must be booted with
http_control=1 and gw= our IPv4 address (PEER), and those cases run over
IPv4 only. docs/tcp-conformance.md lists every case, what it checks and
where lwIP departs from the RFCs; a case that meets such a departure
asserts what lwIP does and names it (deviation=).

Run inside the tap's namespace:

    tcp_conformance.py --iface tap0 --guest-ip IP --guest-mac MAC
        [--guest-ip6 IP6] [--jobs 4] [--case NAME[,NAME...]]

Prints one JSON object: {"ok", "secs", "results": [{"case", "family",
"ok", "why", "secs", "deviation", "tries", "trace"}...]}. Cases run --jobs at a time, each on
its own connection (its own source port) and sockets; they share no
state but the guest.
"""
import argparse
import contextlib
import http.client
import json
import random
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

from raw_tcp import Link, Neighbour
from tcp_script import (ANY, OUR_WINDOW, Fail, Late, Peer, above, already_taken, burst,
                        expect, matches, parse_options, pure_ack, run_script, send,
                        silence, stream)

ECHO, HTTP, CLOSED = 7, 80, 9
# A case tried again runs from its port plus these (tcp_script.Late); the
# ports of one run's cases are consecutive, from at most 50000 (main), and
# isn_spread adds 10001 to 10003: no two connections of a run share one.
RETRY_PORTS = (0, 5000, 15000)
# Our address: this last part on the guest's IPv4 /24 and IPv6 /64 (no
# host owns it). The guest's gateway, for the cases where it opens.
PEER = 77
TCP_WND = 46720  # the guest's receive window (net/lwipopts.h: 32 segments)
QUIET = 0.5  # s of silence that shows the guest sends nothing
MSS_OPTION = [("MSS", 1460)]


class Family:
    """What differs between IPv4 and IPv6 for a case: the MSS the guest
    announces (its MTU less the IP and TCP headers)."""

    def __init__(self, v6):
        self.v6 = v6
        self.name = "ipv6" if v6 else "ipv4"
        self.mss = 1440 if v6 else 1460


class Case:
    """port None: the guest opens the connection (its iperf client, to
    our address and port), over IPv4 only, one such case at a time."""

    def __init__(self, name, port, script, deviation=None):
        self.name, self.port, self.script, self.deviation = name, port, script, deviation
        self.what = " ".join((script.__doc__ or "").split())
        self.active = port is None


CASES = []


def case(name, port=ECHO, deviation=None):
    """Registers a case: the decorated function takes a Family and
    returns the steps; its docstring says what the case checks."""
    def register(fn):
        CASES.append(Case(name, port, fn, deviation))
        return fn
    return register


# ---- steps shared by the cases

def connect(opts=MSS_OPTION, win=OUR_WINDOW, ack_win=None):
    """The three-way handshake from our port; ack_win: the window of our
    ACK that ends it."""
    return [send("S", seq=0, ack=0, opts=opts, win=win),
            expect("SA", seq=0, ack=1),
            send("A", win=win if ack_win is None else ack_win)]


def send_data(n, seg=1000, win=OUR_WINDOW):
    """n stream bytes at our next sequence number, in segments of at
    most seg bytes, in one burst, PSH on the last only (as a sender puts
    it where a write ends): receive coalescing, where it is on, may join
    them (a segment with PSH ends what it joins)."""
    sizes = [min(seg, n - k) for k in range(0, n, seg)]
    return burst(*[dict(flags="PA" if k == len(sizes) - 1 else "A", data=size, win=win)
                   for k, size in enumerate(sizes)])


def echo(n, mss=None, opts=ANY, within=5.0, fin=False):
    """A step: the guest sends the next n stream bytes (the echo), in
    segments of its choosing, each at most mss bytes and with options
    matching opts; acknowledged as they come (one ACK for those read
    together). With fin, a FIN must end them (on the last data or
    alone), acknowledged too. Pure ACKs pass over, and so do
    retransmissions of bytes already taken (the guest's timer may run
    out before this loaded script's ACK reaches it: acknowledged again);
    anything else (data out of place, a reset) fails."""
    def step(p):
        want = len(p.received) + n
        end = time.monotonic() + within
        unacked = False
        while len(p.received) < want or (fin and not p.marks.get("echo_fin")):
            s = p.next_segment(max(0.0, end - time.monotonic()))
            if s is None:
                raise Fail("echo: %d of %d bytes%s within %.1f s" % (
                    n - (want - len(p.received)), n, " and a FIN" if fin else "", within))
            p.note(p.describe(s), s.at)
            p.marks["last"] = s
            if pure_ack(p, s):
                continue
            if already_taken(p, s):
                send("A")(p)
                continue
            why = echo_mismatch(p, s, mss, opts, fin)
            if why:
                raise Fail("echo: " + why)
            p.take(s)
            p.marks["echo_fin"] = "F" in s.flags
            unacked = True
            if not p.inbox:  # one ACK for what came together, as a receiver may
                send("A")(p)
                unacked = False
        if unacked:
            send("A")(p)
        if len(p.received) > want:
            raise Fail("echo: %d bytes more than sent" % (len(p.received) - want))
    return step


def echo_mismatch(p, s, mss, opts, fin):
    """Why s is not the echo's next segment, or None."""
    rel = p.rel_theirs(s.seq)
    flags = s.flags.replace("P", "").replace("F", "") if fin else s.flags.replace("P", "")
    if flags != "A" or s.seq != p.rcv_nxt:
        return "%s at %d, expected data at %d" % (s.flags, rel, p.rel_theirs(p.rcv_nxt))
    if s.payload != stream(rel, len(s.payload)):
        return "the %d bytes at %d are not the stream's" % (len(s.payload), rel)
    if mss and len(s.payload) > mss:
        return "a %d-byte segment, more than the MSS %d" % (len(s.payload), mss)
    if not matches(opts, parse_options(s.opts)):
        return "options %s" % parse_options(s.opts)
    return None


def before_fin(p):
    """Our ACK field that acknowledges the guest's data but not its FIN."""
    return p.rel_theirs(p.rcv_nxt) - 1


def fin_again(p, s):
    """The guest's FIN once more (its retransmission timer): an ignore=
    predicate for steps taken while it waits for our ACK of it."""
    return "F" in s.flags and p.rel_theirs(s.seq) == p.marks.get("fin")


def http_request_to_fin():
    """A request for a page that is not there, over HTTP/1.0, and its
    answer read up to the guest's FIN: data acknowledged as it comes,
    the FIN not. The guest is then in FIN_WAIT_1."""
    def read(p):
        end = time.monotonic() + 5.0
        while True:
            s = p.next_segment(max(0.0, end - time.monotonic()))
            if s is None:
                raise Fail("no FIN from the HTTP server within 5 s")
            p.note(p.describe(s), s.at)
            if already_taken(p, s) and "F" not in s.flags:
                continue  # sent again before our ACK came
            if "R" in s.flags or (s.payload and s.seq != p.rcv_nxt):
                raise Fail("HTTP answer: %s at %d" % (s.flags, p.rel_theirs(s.seq)))
            p.take(s)
            if "F" in s.flags:
                p.marks["fin"] = p.rel_theirs(s.seq) + len(s.payload)
                return
            if s.payload:
                send("A")(p)
    return [connect(), send("PA", data=b"GET /nope HTTP/1.0\r\n\r\n"), read]


def closed_pair():
    """Data on the pair now gets a reset: the guest holds no connection
    for it (the listener answers a segment with ACK with a reset at its
    acknowledgement number)."""
    return [send("PA", data=b"after"), expect("RA")]


def reset_is_silent():
    """A reset at our next sequence number, which the guest answers with
    nothing."""
    return [send("R", ack=0), silence(QUIET)]


# ---- the handshake and its options

@case("handshake-options")
def _(f):
    """A SYN offering MSS 1400, window scale, SACK-permitted and
    timestamps is answered with a SYN-ACK that carries the MSS option
    only (lwIP is built without window scaling, SACK and timestamps:
    net/lwipopts.h leaves them off) and an unscaled window of TCP_WND;
    the echo then comes in segments of at most 1400 bytes with no
    option at all."""
    return [send("S", seq=0, ack=0, opts=[("MSS", 1400), ("SAckOK", b""),
                                         ("Timestamp", (12345, 0)), ("NOP", None),
                                         ("WScale", 7)]),
            expect("SA", seq=0, ack=1, win=TCP_WND, opts={"MSS": f.mss}),
            send("A"),
            send_data(3000),
            echo(3000, mss=1400, opts={})]


@case("handshake-no-mss-means-536", deviation=(
        "RFC 9293 section 3.7.1: without an MSS option the send MSS is 536 "
        "for IPv4 and 1220 for IPv6; lwIP uses 536 for both (smaller "
        "segments than allowed over IPv6, never larger)"))
def _(f):
    """A SYN without options: the guest's segments are then at most 536
    bytes."""
    return [connect(opts=[]), send_data(1500), echo(1500, mss=536)]


@case("handshake-mss-above-ours-is-capped")
def _(f):
    """A peer MSS of 9000 is capped by the guest's own: its segments are
    at most what its MTU allows (1460 bytes over IPv4, 1440 over
    IPv6)."""
    return [connect(opts=[("MSS", 9000)]), send_data(4000), echo(4000, mss=f.mss)]


@case("syn-to-closed-port-is-reset", port=CLOSED)
def _(f):
    """A SYN to a port nothing listens on gets RST|ACK acknowledging the
    SYN (RFC 9293 3.10.7.1)."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION), expect("RA", seq=ANY, ack=1)]


@case("ack-to-listening-port-is-reset", deviation=(
        "RFC 9293 3.10.7.1/3.10.7.2: the reset for a segment with ACK is "
        "<SEQ=SEG.ACK><CTL=RST>; lwIP sets the ACK bit on every reset (with "
        "ACK=SEG.SEQ+SEG.LEN), which receivers ignore"))
def _(f):
    """An ACK to a listening port with no connection behind it gets a
    reset whose sequence number is the ACK's acknowledgement number."""
    return [send("A", seq=0, ack=777, advance=False),
            expect("RA", seq=ANY, ack=0),
            lambda p: check(p.marks["last"].seq == 777, "reset seq %d, not 777" %
                            p.marks["last"].seq)]


def isn_spread(p):
    """A step: three more SYNs from the next three ports, back to back;
    the guest's four initial sequence numbers must not follow one
    another: some two consecutive ones lie more than 2^20 apart (an
    unkeyed counter, as lwIP's own, moves by its timer's ticks; a keyed
    hash per RFC 6528 differs by a random 32-bit amount, within 2^20 by
    chance once in 2^11 pairs, of two pairs once in 2^22)."""
    isns = [p.giss]
    for k in (1, 2, 3):
        q = Peer(p.link, p.tcp.src_ip, p.tcp.sport + 10000 + k, p.dport)
        q.t0 = p.t0
        send("S", seq=0, ack=0, opts=MSS_OPTION)(q)
        expect("SA", seq=0, ack=1)(q)
        send("R", ack=0)(q)
        p.trace += q.trace
        isns.append(q.giss)
    gaps = [min((b - a) & 0xffffffff, (a - b) & 0xffffffff) for a, b in zip(isns, isns[1:])]
    p.note("initial sequence numbers %s, gaps %s" % (isns, gaps))
    check(max(gaps) > 1 << 20, "initial sequence numbers follow one another: %s" % isns)


@case("syn-ack-initial-sequence-numbers-are-unpredictable")
def _(f):
    """SYNs from four ports in a row get SYN-ACKs whose initial sequence
    numbers do not follow one another (RFC 6528, RFC 9293 3.4.1): a peer
    that opens one connection cannot guess another's sequence space.
    net/tcp_isn.c (lwIP counted up from 6510)."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION), expect("SA", seq=0, ack=1),
            isn_spread]


@case("rst-to-closed-port-is-not-answered", port=CLOSED)
def _(f):
    """A reset is never answered with a reset (RFC 9293 3.10.7.1)."""
    return [send("R", seq=0, ack=0), silence(QUIET)]


def check(ok, why):
    if not ok:
        raise Fail(why)


# ---- SYN_SENT: the guest opens (its iperf client, to our address)

# The guest runs one iperf client at a time: the cases that start it run
# one after the other.
ACTIVE_OPEN = threading.Lock()


def guest_connects(p):
    """A step: asks the guest, over HTTP from the host's own address
    (POST /iperf-client/PORT, which the test's http_control=1 allows),
    to open a connection to its gateway, which the test made our
    address, at our port. A client still ending (409) is waited out."""
    end = time.monotonic() + 15
    while True:
        c = http.client.HTTPConnection(p.link.guest_ip, HTTP, timeout=10)
        try:
            c.request("POST", "/iperf-client/%d" % p.tcp.sport)
            status = c.getresponse().status
        finally:
            c.close()
        p.note("POST /iperf-client/%d: %d" % (p.tcp.sport, status))
        if status == 200:
            return
        check(status == 409 and time.monotonic() < end, "iperf client: HTTP %d" % status)
        time.sleep(0.5)


def end_guest_client(p):
    """Ends the guest's client whatever its state: a reset with an ACK of
    its SYN (what SYN_SENT takes) at our next byte (what the other
    states take)."""
    if p.giss is not None:
        send("RA", ack=1)(p)


def guest_syn(f):
    """The guest's SYN, with its MSS."""
    return [guest_connects, expect("S", ack=ANY, opts={"MSS": f.mss}, within=5.0)]


def syn_again(p, s):
    """The guest's SYN once more (its timer): an ignore= predicate."""
    return s.flags == "S"


@case("syn-sent-syn-ack-opens", port=None)
def _(f):
    """The guest's SYN answered with SYN-ACK: it acknowledges it and the
    client's data follows (IPv4 only: the client has no IPv6 target)."""
    return [guest_syn(f), send("SA", seq=0, ack=1, opts=MSS_OPTION),
            expect("A", seq=1, ack=1, data=ANY)]


@case("syn-sent-rst-ack-refuses", port=None)
def _(f):
    """A reset acknowledging the guest's SYN refuses the connection
    (RFC 9293 3.10.7.3): a SYN-ACK after it meets no connection and is
    reset at its acknowledgement number."""
    return [guest_syn(f), send("RA", seq=0, ack=1, advance=False), silence(QUIET),
            send("SA", seq=0, ack=1, opts=MSS_OPTION), expect("RA", seq=1, ack=ANY)]


@case("syn-sent-rst-without-ack-is-ignored", port=None)
def _(f):
    """A reset without ACK in SYN_SENT is dropped (RFC 9293 3.10.7.3:
    only one that acknowledges the SYN counts); the SYN-ACK then opens
    the connection."""
    return [guest_syn(f), send("R", seq=0, ack=0, advance=False),
            silence(QUIET, ignore=syn_again),
            send("SA", seq=0, ack=1, opts=MSS_OPTION),
            expect("A", seq=1, ack=1, data=ANY, ignore=syn_again)]


@case("syn-sent-syn-ack-of-something-else-is-reset", port=None)
def _(f):
    """A SYN-ACK whose ACK is not for the guest's SYN gets a reset at
    that ACK (RFC 9293 3.10.7.3), the guest sends its SYN again at once,
    and the right SYN-ACK then opens the connection."""
    return [guest_syn(f), send("SA", seq=0, ack=1000, opts=MSS_OPTION, advance=False),
            expect("RA", seq=1000, ack=ANY), expect("S", seq=0, ack=ANY),
            send("SA", seq=0, ack=1, opts=MSS_OPTION),
            expect("A", seq=1, ack=1, data=ANY, ignore=syn_again)]


@case("syn-sent-simultaneous-open-is-not-supported", port=None, deviation=(
        "RFC 9293 3.5 and 3.10.7.3: a SYN without ACK in SYN_SENT is a "
        "simultaneous open: the TCP goes to SYN_RCVD and sends SYN,ACK; "
        "lwIP ignores it and waits for a SYN-ACK, so two lwIP stacks that "
        "open to each other at once never connect"))
def _(f):
    """A SYN without ACK in SYN_SENT is ignored (no SYN-ACK comes); a
    SYN-ACK then opens the connection."""
    return [guest_syn(f), send("S", seq=0, ack=0, opts=MSS_OPTION, advance=False),
            silence(QUIET, ignore=syn_again),
            send("SA", seq=0, ack=1, opts=MSS_OPTION),
            expect("A", seq=1, ack=1, data=ANY, ignore=syn_again)]


# ---- SYN_RCVD

@case("syn-rcvd-duplicate-syn-resends-the-syn-ack")
def _(f):
    """A second copy of the SYN while the guest waits in SYN_RCVD gets
    the same SYN-ACK again; the connection then opens as usual."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION), expect("SA", seq=0, ack=1),
            send("S", seq=0, ack=0, opts=MSS_OPTION, advance=False),
            expect("SA", seq=0, ack=1),
            send("A"), send_data(10), echo(10)]


@case("syn-rcvd-rst-drops-the-half-open-connection")
def _(f):
    """A reset at the next sequence number in SYN_RCVD removes the
    half-open connection: the ACK that would have opened it is then
    answered with a reset."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION), expect("SA", seq=0, ack=1),
            send("R", ack=0), silence(QUIET),
            send("A"), expect("RA", seq=1, ack=1)]


@case("syn-rcvd-wrong-ack-is-reset-and-the-right-one-opens")
def _(f):
    """An ACK of a sequence number the guest never sent, in SYN_RCVD, is
    answered with a reset at that number (RFC 9293 3.10.7.4); the
    half-open connection stays, and the right ACK then opens it."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION), expect("SA", seq=0, ack=1),
            send("A", ack=1000), expect("RA", seq=1000, ack=1),
            send("A"), send_data(10), echo(10)]


@case("syn-rcvd-fin-closes-through-close-wait")
def _(f):
    """FIN with the ACK that opens the connection: the guest acknowledges
    it and, the echo having nothing to send, closes too (one FIN|ACK);
    our ACK ends the connection."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION), expect("SA", seq=0, ack=1),
            send("FA"), expect("FA"), send("A"), silence(QUIET), closed_pair()]


# ---- ESTABLISHED: data and acknowledgements

@case("established-data-is-echoed-with-its-ack")
def _(f):
    """Data in order is taken, echoed, and acknowledged on the echo; our
    ACK of the echo is not answered."""
    return [connect(), send("PA", data=5), expect("PA", data=5), send("A"), silence(QUIET)]


@case("established-old-duplicate-data-gets-an-immediate-ack")
def _(f):
    """Data entirely before the next expected byte (a retransmission of
    what was taken) is acknowledged at once and not taken again (RFC
    9293 3.10.7.4)."""
    return [connect(), send("PA", data=5), expect("PA", data=5), send("A"),
            send("PA", seq=1, data=5, advance=False), expect("A", within=1.0),
            silence(QUIET), send("PA", data=3), expect("PA", data=3)]


@case("established-data-beyond-the-window-is-dropped-and-acked")
def _(f):
    """Data past the right edge of the guest's window is dropped and
    answered with an ACK of the next expected byte."""
    return [connect(),
            send("PA", seq=1 + TCP_WND + 1000, data=10, advance=False),
            expect("A", within=1.0), silence(QUIET),
            send("PA", data=4), expect("PA", data=4)]


@case("established-ack-of-unsent-data-gets-an-ack")
def _(f):
    """An ACK for bytes the guest never sent is answered with an ACK of
    what it has (RFC 9293 3.10.7.4) and acknowledges nothing."""
    return [connect(), send("A", ack=1000), expect("A"), send("PA", data=6),
            expect("PA", data=6)]


@case("established-old-ack-is-ignored")
def _(f):
    """An ACK older than what the guest has already seen acknowledged is
    ignored: nothing is sent back."""
    return [connect(), send("PA", data=8), expect("PA", data=8), send("A"),
            send("A", ack=3), silence(QUIET)]


@case("established-data-with-ack-beyond-what-was-sent-is-dropped")
def _(f):
    """Data whose ACK acknowledges bytes the guest never sent is dropped
    and answered with an ACK (RFC 9293 3.10.7.4, RFC 5961 section 5.2:
    blind data injection); net/lwip-patches/0011 (lwIP took the data)."""
    return [connect(), send("PA", data=5), expect("PA", data=5), send("A"),
            send("PA", data=b"INJECT", ack=6 + 100000, advance=False),
            expect("A", within=1.0), silence(QUIET),
            send("PA", data=7), expect("PA", data=7)]


@case("established-data-with-ack-too-old-is-dropped")
def _(f):
    """Data whose ACK lies more than the largest window the guest was
    offered before its oldest unacknowledged byte is dropped and
    answered with an ACK (RFC 5961 section 5.2); net/lwip-patches/0011
    (lwIP took the data)."""
    return [connect(), send("PA", data=5), expect("PA", data=5), send("A"),
            send("PA", data=b"INJECT", ack=6 - 2 * OUR_WINDOW, advance=False),
            expect("A", within=1.0), silence(QUIET),
            send("PA", data=7), expect("PA", data=7)]


@case("established-data-without-ack-flag-is-dropped")
def _(f):
    """Data without the ACK flag is dropped without an answer (RFC 9293
    3.10.7.4, "if the ACK bit is off, drop the segment");
    net/lwip-patches/0011 (lwIP took the data)."""
    return [connect(), send("P", data=b"NOACK", advance=False), silence(QUIET),
            send("PA", data=5), expect("PA", data=5)]


@case("established-mss-option-after-the-handshake-is-ignored")
def _(f):
    """An MSS option outside a SYN does not change the guest's segment
    size, not even from a segment outside the window (a blind peer that
    knows the ports could otherwise make every segment 64 bytes long);
    net/lwip-patches/0010 (lwIP took it from any segment)."""
    return [connect(),
            send("A", seq=1 + 300000, opts=[("MSS", 64)], advance=False),
            expect("A", within=1.0),
            send("A", opts=[("MSS", 64)]),
            send_data(1000), expect("PA", data=1000)]


# ---- RFC 5961: blind resets and SYNs

@case("established-rst-in-window-gets-a-challenge-ack")
def _(f):
    """A reset inside the window but not at the next expected byte gets
    a challenge ACK and leaves the connection open (RFC 5961 section
    3.2)."""
    return [connect(), send("R", seq=1 + 1000, ack=0, advance=False), expect("A"),
            send("PA", data=5), expect("PA", data=5)]


@case("established-rst-outside-the-window-is-ignored")
def _(f):
    """A reset outside the window is dropped without an answer (RFC 5961
    section 3.2)."""
    return [connect(), send("R", seq=1 + 200000, ack=0, advance=False), silence(QUIET),
            send("PA", data=5), expect("PA", data=5)]


@case("established-rst-at-the-next-byte-closes")
def _(f):
    """A reset at exactly the next expected byte closes the connection."""
    return [connect(), reset_is_silent(), closed_pair()]


@case("established-syn-gets-a-challenge-ack")
def _(f):
    """A SYN inside the window and one outside it each get a challenge
    ACK, and the connection stays (RFC 5961 section 4.2)."""
    return [connect(),
            send("S", seq=1 + 5, ack=0, advance=False), expect("A"),
            send("S", seq=1 + 500000, ack=0, advance=False), expect("A"),
            send("PA", data=5), expect("PA", data=5)]


@case("established-challenge-acks-are-not-rate-limited", deviation=(
        "RFC 5961 section 7: challenge ACKs SHOULD be rate-limited; lwIP "
        "sends one for every reset or SYN in the window"))
def _(f):
    """Ten resets inside the window in one burst get ten challenge
    ACKs."""
    return [connect(), send("R", seq=1 + 1000, ack=0, repeat=10, advance=False),
            [expect("A") for _ in range(10)],
            send("PA", data=5), expect("PA", data=5)]


# ---- out of order

@case("out-of-order-data-waits-for-the-hole")
def _(f):
    """Two segments past a hole are held, each answered by an immediate
    duplicate ACK without SACK blocks (the peer's SACK-permitted was
    ignored); when the hole is filled the three are echoed once, in
    order."""
    return [send("S", seq=0, ack=0, opts=MSS_OPTION + [("SAckOK", b"")]),
            expect("SA", seq=0, ack=1, opts={"MSS": f.mss}), send("A"),
            burst(dict(flags="PA", seq=1001, data=1000), dict(flags="PA", seq=2001, data=1000)),
            expect("A", ack=1, opts={}),
            silence(QUIET, ignore=lambda p, s: pure_ack(p, s) and p.rel_ours(s.ack) == 1),
            send("PA", seq=1, data=1000), echo(3000)]


@case("window-burst-is-echoed-whole")
def _(f):
    """Thirty full segments in one burst, nearly the guest's whole
    window (what receive coalescing joins, where it is on): the echo has
    every byte once, in order, in segments of at most the MSS."""
    return [connect(), send_data(30 * f.mss, seg=f.mss), echo(30 * f.mss, mss=f.mss)]


@case("out-of-order-segments-each-get-a-duplicate-ack")
def _(f):
    """Four segments past a hole, in one burst: each is answered by its
    own duplicate ACK (RFC 5681 4.2: at once, for every out-of-order
    segment), also where receive coalescing joined them into one packet:
    a sender without SACK counts these ACKs to retransmit the hole's
    segment fast (three), so four joined into one must not become one
    ACK (net/netif_glue.c, net_tcp_gro_ack: one ACK for the packet was
    all lwIP sent). The hole's bytes then bring all five back, in
    order."""
    return [connect(),
            burst(*[dict(flags="PA" if k == 3 else "A", seq=1001 + 1000 * k, data=1000)
                    for k in range(4)]),
            [expect("A", ack=1, within=1.0) for _ in range(4)],
            silence(QUIET),
            send("PA", seq=1, data=1000), echo(5000)]


@case("reordered-burst-is-echoed-in-order")
def _(f):
    """One burst with its second and third segments swapped: the echo
    has every byte once, in order."""
    return [connect(),
            burst(dict(flags="A", seq=1, data=1000), dict(flags="A", seq=2001, data=1000),
                  dict(flags="PA", seq=1001, data=1000)),
            echo(3000)]


@case("overlapping-and-duplicate-segments-deliver-each-byte-once")
def _(f):
    """Past a hole, a segment, its duplicate and one overlapping both;
    then the hole's bytes twice, the second copy longer: each byte is
    echoed once, in order."""
    return [connect(),
            burst(dict(flags="PA", seq=1001, data=1000), dict(flags="PA", seq=1001, data=1000),
                  dict(flags="PA", seq=1501, data=1000)),
            burst(dict(flags="PA", seq=1, data=1000), dict(flags="PA", seq=1, data=1200)),
            echo(2500)]


# ---- retransmission

def retransmissions(count, seq, data):
    """A step: the guest sends its segment at seq (data bytes) again,
    count times, with no ACK from us; each gap (the first from the
    original) at least 1.3 times the one before, and no more than 4.5
    times (RFC 6298 5.5: the timer doubles; lwIP's runs in 500 ms ticks,
    so the first gap is short by up to a tick, and a loaded host delays
    each by a little)."""
    def step(p):
        times = [p.marks["last"].at]
        for n in range(count):
            wait = 5.0 if n == 0 else 4.5 * (times[-1] - times[-2]) + 2.0
            expect("A", seq=seq, data=data, within=wait)(p)
            times.append(p.marks["last"].at)
        gaps = [b - a for a, b in zip(times, times[1:])]
        p.note("retransmission gaps %s s" % ", ".join("%.2f" % g for g in gaps))
        check(0.4 <= gaps[0] <= 4.0, "first retransmission after %.2f s" % gaps[0])
        for a, b in zip(gaps, gaps[1:]):
            check(1.3 <= b / a <= 4.5, "gap %.2f s after %.2f s: not a doubling" % (b, a))
    return step


@case("retransmission-timeout-backs-off-exponentially")
def _(f):
    """Echoed data that is never acknowledged is sent again when the
    retransmission timer runs out, three times, each gap about twice the
    one before (RFC 6298 5.5); our ACK then ends it."""
    warm = [[send("PA", data=2), expect("PA", data=2), send("A")] for _ in range(3)]
    return [connect(), warm, send("PA", data=9), expect("PA", data=9),
            retransmissions(3, 7, 9), send("A"), silence(QUIET),
            send("PA", data=4), expect("PA", data=4)]


def unacked_echo(n):
    """A step: the guest echoes n bytes, which we do not acknowledge;
    marks["segs"] are its segments."""
    def step(p):
        p.marks["segs"] = []
        while len(p.received) < n:
            expect("A", ack=ANY, data=ANY, ignore=pure_ack)(p)
            s = p.marks["last"]
            check(s.payload == stream(p.rel_theirs(s.seq), len(s.payload)),
                  "echo: not the stream's bytes")
            p.marks["segs"].append(s)
    return step


# lwIP's retransmission timer on a connection with one RTT sample (the
# handshake's): it starts at 3 s and runs in 500 ms ticks, so it cannot
# run out sooner than this after the segment went.
TIMER_EARLIEST = 1.9


def dup_acks(n):
    """A step: n duplicate ACKs in one burst, sent before the guest's
    timer could run out on its first unacknowledged segment (else the
    case cannot tell a fast retransmission from the timer's: Late)."""
    def step(p):
        first = p.marks["segs"][0]
        if time.monotonic() - first.at > TIMER_EARLIEST - 0.8:
            raise Late("the duplicate ACKs would go %.2f s after the segment" % (
                time.monotonic() - first.at))
        send("A", ack=1, repeat=n)(p)
        p.marks["dup_acks"] = time.monotonic()
    return step


def retransmitted_first(within):
    """A step: the guest sends its first unacknowledged segment again,
    within `within` s of the duplicate ACKs, and before its timer could
    have run out."""
    def step(p):
        first = p.marks["segs"][0]
        expect("A", seq=1, data=len(first.payload), within=within)(p)
        took = p.marks["last"].at - first.at
        check(took < TIMER_EARLIEST, "sent again %.2f s after the original: the timer's "
              "retransmission, not a fast one" % took)
    return step


def no_fast_retransmit(secs):
    """A step: for secs after the duplicate ACKs, the first unacknowledged
    segment does not come again before the guest's timer could have
    run out (after it, it is the timer's, and passes)."""
    def step(p):
        first = p.marks["segs"][0]
        end = p.marks["dup_acks"] + secs
        while True:
            s = p.next_segment(max(0.0, end - time.monotonic()))
            if s is None:
                return
            p.note(p.describe(s), s.at)
            if s.at - first.at < TIMER_EARLIEST:
                raise Fail("%s at %d %.2f s after the original: a fast retransmission" % (
                    s.flags, p.rel_theirs(s.seq), s.at - first.at))
    return step


@case("three-duplicate-acks-in-a-burst-trigger-fast-retransmit")
def _(f):
    """Three duplicate ACKs sent together make the guest send the
    unacknowledged segment again at once (RFC 5681 3.2). Receive
    coalescing must pass each duplicate ACK to lwIP as it came: joined,
    they would count as one."""
    return [connect(), send_data(3 * f.mss, seg=f.mss), unacked_echo(3 * f.mss),
            dup_acks(3), retransmitted_first(0.9),
            send("A"), silence(QUIET),
            send("PA", data=4), expect("PA", data=4)]


@case("two-duplicate-acks-do-not-trigger-fast-retransmit")
def _(f):
    """Two duplicate ACKs sent together are not enough for a fast
    retransmit (RFC 5681 3.2: the third is): the segment does not come
    again before the retransmission timer could run out."""
    return [connect(), send_data(3 * f.mss, seg=f.mss), unacked_echo(3 * f.mss),
            dup_acks(2), no_fast_retransmit(1.0),
            send("A"), silence(QUIET),
            send("PA", data=4), expect("PA", data=4)]


# ---- windows

def window_probes(count, most):
    """A step: the guest, facing our zero window with data to send, sends
    count one-byte window probes at its next sequence number, each gap
    (the first from its last segment) at least 1.3 and at most `most`
    times the one before (lwIP's persist timer backs off: 1.5, 3, 6 s);
    each is answered with an ACK that keeps the window shut and does not
    take the byte."""
    def step(p):
        times = [p.marks["last"].at]
        for n in range(count):
            wait = 5.0 if n == 0 else 4.5 * (times[-1] - times[-2]) + 2.0
            expect("A", data=1, within=wait)(p)
            times.append(p.marks["last"].at)
            p.rcv_nxt = p.theirs(1)  # the probe's byte is not taken
            p.received = p.received[:-1]
            send("A", win=0)(p)
        gaps = [b - a for a, b in zip(times, times[1:])]
        p.note("probe gaps %s s" % ", ".join("%.2f" % g for g in gaps))
        for a, b in zip(gaps, gaps[1:]):
            check(1.3 <= b / a <= most, "probe gap %.2f s after %.2f s" % (b, a))
    return step


@case("zero-window-probes-back-off-until-the-window-opens")
def _(f):
    """With our window shut, the guest acknowledges our data but holds
    its echo, probing the window with one byte, less and less often
    (RFC 9293 3.8.6.1); when the window opens the echo comes whole."""
    return [connect(ack_win=0), send("PA", data=8, win=0), expect("A", within=1.0),
            window_probes(2, 5.0),
            send("A", win=OUR_WINDOW), echo(8)]


@case("window-shrunk-without-a-new-ack-is-not-honoured", deviation=(
        "RFC 9293 3.10.7.4: the send window is updated when SND.WL1 < SEG.SEQ, "
        "or SND.WL1 = SEG.SEQ and SND.WL2 =< SEG.ACK; lwIP asks SND.WL2 < "
        "SEG.ACK there (or a larger window), so a smaller window on a segment "
        "with the same sequence and acknowledgement numbers as the last update "
        "is ignored. Only a receiver shrinking its window meets this, which RFC "
        "9293 3.8.6.2.2 says it should not do"))
def _(f):
    """Our window shut on a data segment with the same sequence and
    acknowledgement numbers as the ACK that opened it: lwIP keeps the
    open window and echoes at once."""
    return [connect(), send("PA", data=8, win=0), expect("PA", data=8)]


def fill_guest_window(until_wnd=0):
    """A step: with our window shut (the echo cannot send), data until
    the guest's advertised window is at most until_wnd (above 0: with at
    most four segments in flight, so that it stops short of 0): the echo
    first fills its send buffer, then keeps the rest unacknowledged to
    the window. The guest's window probes are answered as they come; its
    window's right edge must never move left (RFC 9293 3.8.6.2.2)."""
    def step(p):
        edge = None
        end = time.monotonic() + 30
        sent = 0
        # Until its first ACK: what the handshake said (all taken, the
        # window the SYN-ACK gave), not "everything sent is taken".
        p.marks.setdefault("gack", p.snd_nxt)
        while True:
            wnd = p.marks.get("gwnd", TCP_WND)
            acked = p.rel_ours(p.marks["gack"])
            inflight = p.rel_ours(p.snd_nxt) - acked
            if wnd <= until_wnd and inflight == 0:
                p.note("guest window %d after %d bytes" % (wnd, sent))
                p.marks["filled"] = sent
                return
            room = wnd - inflight if wnd > until_wnd else 0
            if until_wnd:
                room = min(room, 4 * 1400 - inflight)
            if room > 0:
                n = min(room, 1400)
                send("PA", data=n, win=0)(p)
                sent += n
            s = p.next_segment(0.3 if room <= 0 else 0.0)
            if s is None:
                check(time.monotonic() < end, "the guest's window stayed at %d" % wnd)
                continue
            p.note(p.describe(s), s.at)
            if s.payload:  # a window probe: not taken
                send("A", win=0)(p)
                continue
            right = (s.ack + s.win) & 0xffffffff
            if edge is not None and ((right - edge) & 0xffffffff) >= 1 << 31:
                raise Fail("the window's right edge moved left: %d then %d" % (
                    p.rel_ours(edge), p.rel_ours(right)))
            edge = right
            p.marks["gwnd"], p.marks["gack"] = s.win, s.ack
    return step


def byte_into_shut_window(p):
    """A step: one byte past the guest's shut window, answered with an
    ACK of window 0 that takes it or not (RFC 9293 3.10.7.4 checks a
    segment against the receiver's own window, which may be larger than
    the one it advertised); a byte taken joins what the echo returns."""
    at = p.rel_ours(p.snd_nxt)
    send("PA", data=1, win=0, advance=False)(p)
    expect("A", ack=lambda a: a in (at, at + 1), win=0, within=1.0,
           ignore=lambda p, s: bool(s.payload))(p)
    if p.rel_ours(p.marks["last"].ack) == at + 1:
        p.note("the byte was taken")
        p.snd_nxt = p.ours(at + 1)
        p.marks["filled"] += 1


@case("receive-window-closes-and-reopens")
def _(f):
    """The echo holds what it cannot send (its send buffer full behind
    our shut window) and acknowledges it only to the window, which closes
    without its right edge ever moving left; a byte sent into the shut
    window is answered with an ACK that keeps the window shut (and may
    take the byte: lwIP advertises a window that grew by less than an
    MSS only once it has grown by one, so its own window can hold a few
    bytes more than it said); when our window opens, everything comes
    back in order and the guest's window opens again."""
    def all_back(p):
        echo(p.marks["filled"], within=30)(p)

    return [connect(ack_win=0), fill_guest_window(), byte_into_shut_window,
            send("A", win=OUR_WINDOW), all_back,
            send("PA", data=1),
            expect("PA", data=1, win=above(TCP_WND // 2), ignore=already_taken)]


# ---- closing, state by state

@case("established-fin-is-acked-and-answered-with-fin")
def _(f):
    """Our FIN is acknowledged and, the echo having nothing more to say,
    answered with the guest's own FIN in the same segment (CLOSE_WAIT,
    then LAST_ACK); our ACK closes the connection."""
    return [connect(), send("FA"), expect("FA"), send("A"), silence(QUIET), closed_pair()]


@case("last-ack-retransmits-its-fin-then-closes-on-ack")
def _(f):
    """In LAST_ACK the guest's FIN, not acknowledged, is sent again when
    its timer runs out; our ACK of it then closes the connection."""
    return [connect(), send("FA"), expect("FA"),
            expect("FA", seq=1, within=6.0),
            send("A"), silence(QUIET), closed_pair()]


@case("last-ack-rst-closes")
def _(f):
    """A reset in LAST_ACK closes the connection."""
    return [connect(), send("FA"), expect("FA"), reset_is_silent(), closed_pair()]


def into_close_wait():
    """The echo's send buffer full behind our shut window, then our FIN:
    the guest acknowledges it but cannot close (the echo still holds
    data): CLOSE_WAIT. (Its window probes pass over; one that came
    moves the sequence number of its ACKs past the bytes we took: any.)"""
    return [connect(ack_win=0), fill_guest_window(until_wnd=TCP_WND - 2000),
            send("FA", win=0), expect("A", seq=ANY, ignore=lambda p, s: bool(s.payload))]


@case("close-wait-ignores-data-and-acks-a-retransmitted-fin")
def _(f):
    """In CLOSE_WAIT data after our FIN is ignored (nothing answers it)
    and a retransmission of the FIN is acknowledged again; when our
    window opens the guest sends everything it held, then its FIN, and
    our ACK closes the connection."""
    def drain(p):
        echo(p.marks["filled"], within=30, fin=True)(p)

    probe = lambda p, s: bool(s.payload)  # noqa: E731 (the guest's window probes)
    return [into_close_wait(),
            send("PA", data=b"late", win=0, advance=False), silence(QUIET, ignore=probe),
            send("FA", seq=lambda p: p.rel_ours(p.snd_nxt) - 1, win=0, advance=False),
            expect("A", seq=ANY, ignore=probe),
            send("A", win=OUR_WINDOW), drain, silence(QUIET), closed_pair()]


@case("close-wait-rst-closes")
def _(f):
    """A reset in CLOSE_WAIT closes the connection."""
    return [into_close_wait(), send("R", ack=0),
            silence(QUIET, ignore=lambda p, s: bool(s.payload)), closed_pair()]


@case("fin-wait-1-fin-goes-to-closing-then-time-wait", port=HTTP)
def _(f):
    """The guest closes first (FIN_WAIT_1); our FIN crossing its, without
    acknowledging it, is acknowledged (CLOSING); our ACK of its FIN then
    takes it to TIME_WAIT, where our FIN once more is acknowledged
    again."""
    return [http_request_to_fin(),
            send("FA", ack=before_fin), expect("A", ignore=fin_again),
            send("A"), silence(QUIET),
            send("FA", seq=lambda p: p.rel_ours(p.snd_nxt) - 1, advance=False),
            expect("A")]


@case("fin-wait-1-fin-ack-goes-to-time-wait", port=HTTP)
def _(f):
    """FIN_WAIT_1: our FIN that also acknowledges the guest's is
    acknowledged (TIME_WAIT)."""
    return [http_request_to_fin(), send("FA"), expect("A"), silence(QUIET)]


@case("fin-wait-1-rst-closes", port=HTTP)
def _(f):
    """A reset in FIN_WAIT_1 closes the connection."""
    return [http_request_to_fin(), send("R", ack=0), silence(QUIET, ignore=fin_again),
            closed_pair()]


@case("fin-wait-2-fin-goes-to-time-wait", port=HTTP)
def _(f):
    """FIN_WAIT_2 (our ACK of the guest's FIN, nothing more): the guest
    waits quietly; our FIN is then acknowledged."""
    return [http_request_to_fin(), send("A"), silence(QUIET), send("FA"), expect("A")]


@case("fin-wait-2-rst-closes", port=HTTP)
def _(f):
    """A reset in FIN_WAIT_2 closes the connection."""
    return [http_request_to_fin(), send("A"), reset_is_silent(), closed_pair()]


@case("fin-wait-2-data-is-reset", port=HTTP)
def _(f):
    """The HTTP server closed both ways: data in FIN_WAIT_2 has nowhere
    to go and is answered with a reset (RFC 1122 4.2.2.13)."""
    return [http_request_to_fin(), send("A"), send("PA", data=b"more"), expect("RA")]


@case("closing-rst-closes", port=HTTP)
def _(f):
    """A reset in CLOSING closes the connection."""
    return [http_request_to_fin(),
            send("FA", ack=before_fin), expect("A", ignore=fin_again),
            send("R", ack=0), silence(QUIET, ignore=fin_again), closed_pair()]


def into_time_wait():
    return [http_request_to_fin(), send("FA"), expect("A")]


@case("time-wait-acks-a-retransmitted-fin-and-ignores-rst", port=HTTP)
def _(f):
    """In TIME_WAIT our FIN once more is acknowledged again; a reset is
    ignored (RFC 1337) and the pair stays in TIME_WAIT (the next FIN is
    acknowledged too)."""
    again = send("FA", seq=lambda p: p.rel_ours(p.snd_nxt) - 1, advance=False)
    return [into_time_wait(), again, expect("A"),
            send("R", ack=0, advance=False), silence(QUIET), again, expect("A")]


@case("time-wait-new-syn-above-the-old-sequence-reopens", port=HTTP)
def _(f):
    """In TIME_WAIT an old duplicate SYN (at our first sequence number,
    below the next byte the guest expects) is answered with an ACK of the
    old connection, and the pair stays in TIME_WAIT. A new SYN above it
    reopens the pair (RFC 9293 3.10.7.4, RFC 6191, as Linux does): a
    SYN-ACK of it whose initial sequence number lies a window (65,537)
    above everything the old connection sent, so no old segment can pass
    for the new connection's. Before net/lwip-patches/0013-* lwIP
    answered the new SYN with an ACK of the old connection, the peer's
    reset in return was ignored (RFC 1337), and the pair could not
    connect again for 2 MSL (120 s)."""
    old_syn = send("S", seq=0, ack=0, opts=MSS_OPTION, advance=False)
    base = {}

    def new_syn(p):
        base["ours"] = p.rel_ours(p.snd_nxt) + 100000
        base["theirs"] = p.rel_theirs(p.rcv_nxt)
        return send("S", seq=base["ours"], ack=0, opts=MSS_OPTION, advance=False)(p)

    def syn_ack_of_the_new(p):
        return expect("SA", seq=lambda v: (v - base["theirs"]) & 0xffffffff >= 65537,
                      ack=lambda v: v == (base["ours"] + 1) & 0xffffffff)(p)

    def reset_the_new(p):
        return send("R", seq=base["ours"] + 1, ack=0, advance=False)(p)
    return [into_time_wait(), old_syn, expect("A"), new_syn, syn_ack_of_the_new,
            reset_the_new, silence(QUIET)]


# ---- running

def run_case(c, fam, link, src_ip, sport):
    """One case over one family: a result dict. A case the script itself
    was too late for (tcp_script.Late) runs again, twice at most, each
    time on a new connection; the result has every try's trace."""
    traces = []
    for attempt in range(3):
        r = run_case_once(c, fam, link, src_ip, sport + RETRY_PORTS[attempt])
        traces += r.pop("trace_lines")
        if not r.pop("late"):
            break
    r["trace"], r["tries"] = traces, attempt + 1
    return r


def run_case_once(c, fam, link, src_ip, sport):
    """One try of a case over one family on its own connection."""
    p = Peer(link, src_ip, sport, c.port)
    p.tcp.announce()
    start = time.monotonic()
    try:
        with ACTIVE_OPEN if c.active else contextlib.nullcontext():
            why = run_script(p, c.script(fam))
            if c.active:
                end_guest_client(p)
    except Exception:  # a bug in the script itself: said, not hidden
        why = "the script raised " + traceback.format_exc()
    # Leave nothing behind: a reset at our next byte (ignored if closed).
    send("R", ack=0)(p)
    if why and p.late:
        p.note("the script was late: tried again")
    return {"case": c.name, "family": fam.name, "ok": why is None, "why": why,
            "secs": round(time.monotonic() - start, 2), "deviation": c.deviation,
            "late": bool(why and p.late), "trace_lines": p.trace}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", default="tap0")
    ap.add_argument("--guest-ip", required=True)
    ap.add_argument("--guest-mac", required=True)
    ap.add_argument("--guest-ip6")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--case", help="only these cases (comma-separated names)")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    a = ap.parse_args()
    if a.list:
        for c in CASES:
            print(json.dumps({"case": c.name, "what": c.what, "deviation": c.deviation}))
        return 0
    src4 = a.guest_ip.rsplit(".", 1)[0] + ".%d" % PEER
    src6 = a.guest_ip6.rsplit(":", 1)[0] + ":%d" % PEER if a.guest_ip6 else None
    cases = [c for c in CASES if not a.case or c.name in a.case.split(",")]
    jobs = [(c, Family(v6)) for c in cases
            for v6 in ((False, True) if src6 and not c.active else (False,))]
    helper = Link(a.iface, a.guest_ip, a.guest_mac, a.guest_ip6)
    neighbour = Neighbour(helper, src4, src6)
    neighbour.start()
    start = time.monotonic()
    # A guest may outlive a run: each run its own ports (isn_spread adds
    # 10003 at most to a case's).
    base_port = random.randrange(20000, 50000)

    def one(k):
        c, fam = jobs[k]
        link = Link(a.iface, a.guest_ip, a.guest_mac, a.guest_ip6)
        try:
            return run_case(c, fam, link, src6 if fam.v6 else src4, base_port + k)
        finally:
            link.close()

    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(one, range(len(jobs))))
    neighbour.stop()
    print(json.dumps({"ok": all(r["ok"] for r in results),
                      "secs": round(time.monotonic() - start, 1), "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
