"""Scripted TCP conversations with the guest: the shape of packetdrill's
scripts, written for a stack on the far side of a tap rather than in the
same kernel. Run inside the tap's namespace (tests/qemu/raw_tcp.py says
how the frames get there and back).

A script is a list of steps, run in order against one connection (a
Peer) from an address the host does not own:

    send("S", seq=0, opts=[("MSS", 1400)])
    expect("SA", seq=0, ack=1, opts={"MSS": 1460})
    send("A", seq=1, ack=1)
    send("PA", data=5)                  # five bytes at our next sequence number
    expect("PA", data=5)                # the guest echoes them, acknowledged

Sequence numbers are relative, as packetdrill prints them: ours count
from our initial sequence number (our SYN is 0, our first byte 1), the
guest's from its own, learned from its SYN-ACK. A field that send()
leaves out is the conversation's next: seq our next byte, ack the next
byte we expect from the guest. A field that expect() leaves out must be
the same: seq the next byte we expect, ack our next byte, no payload;
win and opts are not checked unless given. ANY matches anything, a
function (at_most(1400), above(0)) is a predicate on the value.

Flags are letters as scapy prints them (S A F R P U E C); P is ignored
unless the expected flags name it, since lwIP sets it where its writes
end. Payload bytes are a function of their relative sequence number
(stream()), so data=N means "N bytes of the stream from here", on the
way out and on the way back: the echo service returns our bytes at the
same relative numbers, and a byte the guest took twice, out of place or
from a segment it should have dropped shows up as a mismatch.

A step is any function of the Peer that returns when it held and raises
Fail when it did not; run_script() runs a script and returns the trace
of every segment both ways, with times, for the failure message.
"""
import socket
import time
from collections import deque

from raw_tcp import RawTcp, seq_add

ANY = object()  # matches any value
WAIT = 2.0  # s an expected segment may take: generous for a loaded host
OUR_WINDOW = 65535

OPTION_NAMES = {2: "MSS", 3: "WScale", 4: "SAckOK", 5: "SAck", 8: "Timestamp"}


class Fail(Exception):
    """A step did not hold; the message says what was expected and seen."""


class Late(Fail):
    """The script itself was too late for a step to tell anything (a
    loaded host stalled it past a timer it races): the case may be run
    again; it says nothing of the guest."""


def stream(rel, n):
    """The n payload bytes at relative sequence number rel: byte k is
    k mod 251 (a prime, so a shifted copy does not line up again soon)."""
    return bytes((rel + i) % 251 for i in range(n))


def at_most(n):
    return lambda v: v <= n


def above(n):
    return lambda v: v > n


def parse_options(raw):
    """TCP option bytes as {name: value} (NOP and EOL left out); an
    unknown kind is named by its number."""
    out, i = {}, 0
    while i < len(raw):
        kind = raw[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        if i + 1 >= len(raw) or raw[i + 1] < 2:
            out["bad"] = raw[i:].hex()
            break
        body = raw[i + 2:i + raw[i + 1]]
        name = OPTION_NAMES.get(kind, str(kind))
        if kind in (2, 3):
            out[name] = int.from_bytes(body, "big")
        elif kind == 8 and len(body) == 8:
            out[name] = (int.from_bytes(body[:4], "big"), int.from_bytes(body[4:], "big"))
        else:
            out[name] = body.hex() or True
        i += raw[i + 1]
    return out


def same_flags(want, got):
    """want and got as sets of letters, P left out unless want names it."""
    g = set(got) if "P" in want else set(got) - {"P"}
    return set(want) == g


def matches(want, got):
    if want is ANY:
        return True
    if callable(want):
        return bool(want(got))
    return want == got


class Peer:
    """One connection to the guest's port as the script sees it: the
    frames (raw_tcp.RawTcp), both initial sequence numbers, the next
    byte each way, the guest's segments not yet consumed by a step, and
    the trace. dport None: the guest opens the connection, from the
    port its first segment to ours comes from."""

    def __init__(self, link, src_ip, sport, dport):
        family = socket.AF_INET6 if ":" in src_ip else socket.AF_INET
        src_ip = socket.inet_ntop(family, socket.inet_pton(family, src_ip))  # as parsed
        self.tcp = RawTcp(link, src_ip, sport, dport)
        self.link, self.dport = link, dport
        self.v6 = self.tcp.v6
        self.iss = self.tcp.iss
        self.snd_nxt = self.iss  # absolute, as RawTcp keeps it
        self.giss = None  # the guest's initial sequence number
        self.rcv_nxt = None  # absolute next byte expected from the guest
        self.inbox = deque()
        self.trace = []
        self.t0 = time.monotonic()
        self.marks = {}  # step-defined times and values
        self.received = bytearray()  # the guest's payload, in order

    # ---- numbers

    def ours(self, rel):
        return seq_add(self.iss, rel)

    def theirs(self, rel):
        return seq_add(self.giss, rel)

    def rel_ours(self, a):
        return (a - self.iss) & 0xffffffff

    def rel_theirs(self, a):
        return (a - self.giss) & 0xffffffff if self.giss is not None else a

    # ---- frames

    def note(self, line, at=None):
        self.trace.append("%7.3f %s" % ((at or time.monotonic()) - self.t0, line))

    def send_frames(self, frames, lines):
        now = time.monotonic()
        self.link.send(frames)
        for line in lines:
            self.note(line, now)

    def pull(self, timeout):
        """Moves the guest's segments of this connection that arrive
        within timeout s (returning as soon as one has) to the inbox;
        with segments already there, only those that have come."""
        end = time.monotonic() + (0.0 if self.inbox else timeout)
        while True:
            for sport, dst, dport, s in self.link.tcp_in(max(0.0, end - time.monotonic()),
                                                         first=True):
                if (dst, dport) != (self.tcp.src_ip, self.tcp.sport):
                    continue
                if self.dport is None:  # the guest opens: its first segment names its port
                    self.dport = self.tcp.dport = sport
                if sport == self.dport:
                    self.inbox.append(s)
            if self.inbox or time.monotonic() >= end:
                return

    def next_segment(self, timeout):
        """The guest's next segment of this connection, or None."""
        self.pull(timeout)
        return self.inbox.popleft() if self.inbox else None

    def describe(self, s):
        """A guest segment in relative numbers, as the trace shows it."""
        opts = parse_options(s.opts)
        return "< %-3s %d:%d(%d) ack %d win %d%s" % (
            s.flags, self.rel_theirs(s.seq), self.rel_theirs(s.seq) + len(s.payload),
            len(s.payload), self.rel_ours(s.ack), s.win,
            " <%s>" % opts if opts else "")

    def take(self, s):
        """Follows a guest segment accepted by a step: its SYN teaches the
        guest's initial sequence number, and what starts at the next
        expected byte moves it on (and is kept in received)."""
        if "S" in s.flags and self.giss is None:
            self.giss = s.seq
            self.rcv_nxt = s.seq
        if self.rcv_nxt is not None and s.seq == self.rcv_nxt:
            self.received += s.payload
            n = len(s.payload) + ("S" in s.flags) + ("F" in s.flags)
            self.rcv_nxt = seq_add(self.rcv_nxt, n)


def send(flags, seq=None, ack=None, win=OUR_WINDOW, data=b"", opts=None, bad_sum=False,
         repeat=1, advance=True):
    """A step: one segment to the guest (repeat > 1: that many copies in
    one burst). seq, ack relative, or functions of the Peer that return
    them; data bytes, or N for N bytes of the stream at seq. Our next
    sequence number moves past whatever this sends beyond it, unless
    advance is False (a segment the guest must not take)."""
    def step(p):
        p.send_frames(*segments(p, [(flags, seq, ack, win, data, opts, bad_sum, advance)]
                                * repeat))
    return step


def burst(*specs):
    """A step: several segments in one burst (one after the other on the
    socket, as fast as it takes them: what coalescing joins), each a
    dict of send()'s keywords with "flags"."""
    def step(p):
        p.send_frames(*segments(p, [(d["flags"], d.get("seq"), d.get("ack"),
                                     d.get("win", OUR_WINDOW), d.get("data", b""),
                                     d.get("opts"), d.get("bad_sum", False),
                                     d.get("advance", True)) for d in specs]))
    return step


def segments(p, specs):
    """The frames and trace lines of send() specs, in order, following
    our next sequence number."""
    frames, lines = [], []
    for flags, seq, ack, win, data, opts, bad_sum, advance in specs:
        s = p.snd_nxt if seq is None else p.ours(seq(p) if callable(seq) else seq)
        rel = p.rel_ours(s)
        payload = stream(rel, data) if isinstance(data, int) else data
        if ack is not None:
            a = ack(p) if callable(ack) else ack
            a = p.theirs(a) if p.giss is not None else a
        else:
            a = p.rcv_nxt if (p.rcv_nxt is not None and "A" in flags) else 0
        frames.append(p.tcp.segment(payload, seq=s, flags=flags, ack=a, window=win,
                                    bad_sum=bad_sum, options=opts))
        end = seq_add(s, len(payload) + ("S" in flags) + ("F" in flags))
        if advance and ((end - p.snd_nxt) & 0xffffffff) < 1 << 31:
            p.snd_nxt = end
        lines.append("> %-3s %d:%d(%d) ack %d win %d%s%s" % (
            flags, rel, rel + len(payload), len(payload), p.rel_theirs(a), win,
            " <%s>" % opts if opts else "", " (bad sum)" if bad_sum else ""))
    p.tcp.snd_nxt = p.snd_nxt
    return frames, lines


def expect(flags, seq=None, ack=None, win=ANY, data=None, opts=ANY, within=WAIT,
           ignore=None):
    """A step: the guest's next segment must come within `within` s and
    match. data: None (no payload), N (the N stream bytes at its
    sequence number: an echo), bytes (exactly those), or ANY. ignore: a
    predicate on segments that may come first and are passed over."""
    def step(p):
        end = time.monotonic() + within
        while True:
            s = p.next_segment(max(0.0, end - time.monotonic()))
            if s is None:
                raise Fail("expected %s within %.1f s, got nothing" % (flags, within))
            if ignore and ignore(p, s):
                p.note(p.describe(s) + "  (passed over)", s.at)
                continue
            p.note(p.describe(s), s.at)
            why = mismatch(p, s, flags, seq, ack, win, data, opts)
            if why:
                raise Fail("expected %s: %s" % (flags, why))
            p.take(s)
            p.marks["last"] = s
            return
    return step


def want_rel(spec, nxt):
    """An expect() field as a relative number, ANY or a predicate: None
    is nxt (the conversation's next), an int is taken modulo 2^32."""
    if spec is None:
        return nxt
    if spec is ANY or callable(spec):
        return spec
    return spec & 0xffffffff


def mismatch(p, s, flags, seq, ack, win, data, opts):
    """Why guest segment s does not match an expect(), or None. Numbers
    are compared relative."""
    if not same_flags(flags, s.flags):
        return "flags %s" % s.flags
    got_seq, got_ack = p.rel_theirs(s.seq), p.rel_ours(s.ack)
    if p.giss is not None and not matches(want_rel(seq, p.rel_theirs(p.rcv_nxt)), got_seq):
        return "seq %d" % got_seq
    if "A" in flags and not matches(want_rel(ack, p.rel_ours(p.snd_nxt)), got_ack):
        return "ack %d" % got_ack
    if not matches(win, s.win):
        return "win %d" % s.win
    if not matches(opts, parse_options(s.opts)):
        return "options %s" % parse_options(s.opts)
    if data is None and s.payload:
        return "%d bytes of payload" % len(s.payload)
    if isinstance(data, int) and s.payload != stream(got_seq, data):
        return "payload %r (%d bytes), not the %d stream bytes from %d" % (
            s.payload[:16], len(s.payload), data, got_seq)
    if isinstance(data, bytes) and s.payload != data:
        return "payload %r" % s.payload[:32]
    return None


def silence(secs, ignore=None):
    """A step: no segment from the guest for secs (ignore: a predicate
    on segments that may come and are passed over). A retransmission of
    bytes already taken passes over too: on a loaded host the guest's
    timer may run out before the script's ACK of them reaches it."""
    def step(p):
        end = time.monotonic() + secs
        while True:
            s = p.next_segment(max(0.0, end - time.monotonic()))
            if s is None:
                return
            if (ignore and ignore(p, s)) or already_taken(p, s):
                p.note(p.describe(s) + "  (passed over)", s.at)
                continue
            p.note(p.describe(s), s.at)
            raise Fail("expected nothing for %.1f s, got %s" % (secs, s.flags))
    return step


def already_taken(p, s):
    """Is s a retransmission of bytes already taken: does it end at or
    before the next expected byte and carry the very bytes taken there
    (received holds the guest's bytes from relative number 1)?"""
    rel = p.rel_theirs(s.seq)
    if not s.payload or "R" in s.flags or rel < 1:
        return False
    return bytes(p.received[rel - 1:rel - 1 + len(s.payload)]) == s.payload


def sleep(secs):
    """A step: wait; what the guest sends meanwhile stays for the next
    step."""
    def step(p):
        time.sleep(secs)
    return step


def pure_ack(p, s):
    """An ACK with nothing else (an ignore= predicate)."""
    return s.flags == "A" and not s.payload


def mark(name):
    """A step: record the time now as marks[name]."""
    def step(p):
        p.marks[name] = time.monotonic()
    return step


def run_script(peer, steps):
    """Runs the steps in order; returns None, or why the first that
    failed did not hold (the trace stays on the peer; peer.late says
    whether that was the script's own lateness)."""
    peer.late = False
    for n, step in enumerate(flatten(steps), 1):
        try:
            step(peer)
        except Fail as e:
            peer.late = isinstance(e, Late)
            return "step %d: %s" % (n, e)
    return None


def flatten(steps):
    for s in steps:
        if isinstance(s, (list, tuple)):
            yield from flatten(s)
        else:
            yield s
