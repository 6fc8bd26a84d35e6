"""Hostile segments inside an open connection's window: the tcp-window
phase of tests/qemu/hostile_frames.py. Run inside the tap's namespace.

Every other TCP phase aims at no connection, or at one that does not
exist: the guest answers with a reset or drops the segment before it
touches a connection's state. This one opens a real connection to the
echo port (tests/qemu/raw_tcp.py) and, one step at a time, puts segments
where they meet that state: resets and SYNs inside the window, data with
wrong checksums in order and out of order, data outside the window and
before it, data that overlaps what was received or what waits out of
order, flag mixes, an ACK for data never sent. After each step a marker
goes out in order, and the echo of everything the connection carried
must equal, byte for byte, what the guest should have accepted: a byte of
a segment that should have been dropped shows up in the echo, or moves
the guest's sequence so that the marker's echo comes back wrong.

What is asserted is what the RFCs ask where lwIP 2.1.3 does it:
- a reset inside the window but not at the next expected byte, and a SYN
  anywhere in the window, get a challenge ACK and leave the connection
  open (RFC 5961, sections 3.2 and 4.2); a reset at exactly the next byte
  closes it (then data gets a reset back);
- a segment with a wrong checksum is dropped, in order or out of order;
- data outside the window or wholly before it is dropped and answered
  with an ACK (RFC 793);
- of data that overlaps bytes already received only the new bytes count;
  two out-of-order segments that overlap each other fill their span once;
- urgent data is delivered in line, as ordinary data (RFC 6093);
- data without the ACK bit is dropped, and data whose ACK is for bytes
  the guest never sent is dropped and answered with an ACK (RFC 9293
  3.10.7.4, RFC 5961 section 5.2; net/lwip-patches/0011: lwIP 2.1.3 took
  both).
"""
import time

from raw_tcp import RawTcp, seq_add

ECHO_PORT = 7
ANSWER_SECS = 1.0  # how long a step waits for the guest's answer
ECHO_SECS = 5.0  # how long a marker's echo may take


class Conn:
    """One connection to the echo port and the bytes the guest should
    have accepted from it, in order (stream)."""

    def __init__(self, link, src_ip, sport):
        self.c = RawTcp(link, src_ip, sport, ECHO_PORT)
        self.stream = bytearray()
        self.sent = 0

    def send(self, *frames):
        self.sent += len(frames)
        self.c.send(*frames)

    def seg(self, payload=b"", off=0, **kw):
        """A segment at snd_nxt + off."""
        return self.c.segment(payload, seq=seq_add(self.c.snd_nxt, off), **kw)

    def answers(self):
        return self.c.collect(ANSWER_SECS)

    def echoed(self):
        """Waits until the echo is as long as the stream; True if equal."""
        end = time.monotonic() + ECHO_SECS
        while len(self.c.received) < len(self.stream) and time.monotonic() < end:
            self.c.collect(0.1)
        self.c.collect(0.1)  # anything more than expected
        return self.c.received == self.stream

    def accept(self, payload):
        """The guest took payload in order: it is part of the stream."""
        self.stream += payload
        self.c.snd_nxt = seq_add(self.c.snd_nxt, len(payload))

    def deliver(self, payload):
        """Sends payload in order; True if the echo then matches."""
        self.send(self.seg(payload))
        self.accept(payload)
        return self.echoed()

    def mismatch(self):
        got, want = bytes(self.c.received), bytes(self.stream)
        i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]),
                 min(len(got), len(want)))
        return "echo differs at byte %d: got %r, want %r" % (i, got[i:i + 24], want[i:i + 24])


def acked_at(segs, seq):
    """Did the guest send a bare ACK (no data, no reset) of exactly seq?"""
    return any("A" in s.flags and "R" not in s.flags and not s.payload and s.ack == seq
               for s in segs)


def marker(n):
    return b"<marker %03d>" % n


# ---- the steps: each takes a Conn and returns None (passed) or why not

def challenged(frame_of):
    """A reset or SYN inside the window: a challenge ACK, the connection
    stays open and nothing of the segment is taken."""
    def step(k):
        k.send(frame_of(k))
        if not acked_at(k.answers(), k.c.snd_nxt):
            return "no challenge ACK of %d" % k.c.snd_nxt
        return None
    return step


def dropped(frame_of, answered):
    """A segment whose data must not be taken; answered: the guest must
    send an ACK of what it has."""
    def step(k):
        k.send(frame_of(k))
        if not acked_at(k.answers(), k.c.snd_nxt) and answered:
            return "no ACK of %d" % k.c.snd_nxt
        return None
    return step


def bad_sum_out_of_order(k):
    """Ten bytes with a wrong checksum 20 bytes ahead, then the 20 right
    bytes before them: had the ten been queued, they would follow in the
    echo. (Right bytes over them would not tell: the bytes that arrive
    in order replace what waits out of order.)"""
    k.send(k.seg(b"B" * 10, off=20, bad_sum=True))
    k.answers()
    return None if k.deliver(b"L" * 20) else k.mismatch()


def overlap_old_and_new(k):
    """Three bytes already received (different now) and five new ones:
    only the new ones count."""
    k.send(k.seg(b"zzzNEW45", off=-3))
    k.accept(b"NEW45")
    return None if k.echoed() else k.mismatch()


def overlapping_out_of_order(k):
    """Two out-of-order segments overlapping each other by five bytes,
    then the bytes before them: 25 bytes, each position filled once from
    one of the two (which one, where they overlap, is the stack's
    choice)."""
    k.send(k.seg(b"a" * 10, off=10), k.seg(b"b" * 10, off=15))
    k.answers()
    k.send(k.seg(b"0123456789"))
    start = len(k.stream)
    end = time.monotonic() + ECHO_SECS
    while len(k.c.received) < start + 25 and time.monotonic() < end:
        k.c.collect(0.1)
    k.c.collect(0.1)
    got = bytes(k.c.received[start:])
    if (len(got) != 25 or got[:15] != b"0123456789aaaaa" or got[20:] != b"bbbbb"
            or got[15:20] not in (b"aaaaa", b"bbbbb")):
        return "25 bytes expected from the overlapping pair, echo %r" % got
    k.accept(got)
    return None


def urgent_in_line(k):
    """Urgent data with the pointer past it: ordinary data in line."""
    k.send(k.seg(b"URGENT", flags="AUP", urgptr=0xffff))
    k.accept(b"URGENT")
    return None if k.echoed() else k.mismatch()


# (name, step), in order. Offsets are from the next byte the guest
# expects; c.wnd is the window it advertised last.
STEPS = [
    ("rst-in-window", challenged(lambda k: k.seg(off=1000, flags="R", ack=0))),
    ("rst-ack-in-window", challenged(lambda k: k.seg(off=1, flags="RA"))),
    ("syn-in-window", challenged(lambda k: k.seg(off=10, flags="S", ack=0))),
    ("syn-at-next-byte", challenged(lambda k: k.seg(flags="SA"))),
    ("syn-fin-with-data", challenged(lambda k: k.seg(b"SYNFIN", flags="SFA"))),
    ("syn-rst-in-window", challenged(lambda k: k.seg(off=5, flags="SR"))),
    ("all-flags-in-window", challenged(lambda k: k.seg(b"x", off=7, flags="FSRPAUEC"))),
    ("bad-sum-in-order", dropped(lambda k: k.seg(b"bad sum", bad_sum=True), False)),
    ("bad-sum-out-of-order", bad_sum_out_of_order),
    ("past-the-window", dropped(lambda k: k.seg(b"far", off=k.c.wnd + 100), True)),
    ("before-the-window", dropped(lambda k: k.seg(b"old..", off=-20), True)),
    ("overlap-old-and-new", overlap_old_and_new),
    ("overlapping-out-of-order", overlapping_out_of_order),
    ("urgent-in-line", urgent_in_line),
    ("data-without-ack", dropped(lambda k: k.seg(b"NOACK", flags="P"), False)),
    ("ack-past-snd-nxt",
     dropped(lambda k: k.seg(b"ACKX", ack=seq_add(k.c.rcv_nxt, 100000)), True)),
]


FIRST = b"the first bytes, for the steps that look back"


def run(link, src_ip, sport, log=lambda line: None):
    """One connection through every step, in order, then the reset that
    closes it. Returns {"ok", "sent": frames, "steps": {name: "ok" or why
    not}}. A failed step ends
    the run: the guest's idea of the stream is then not ours."""
    k = Conn(link, src_ip, sport)
    steps = {}
    if not k.c.open():
        steps["open"] = "no SYN-ACK"
    elif not k.deliver(FIRST):
        steps["open"] = k.mismatch()
    else:
        for n, (name, step) in enumerate(STEPS, 1):
            why = step(k)
            if why is None and not k.deliver(marker(n)):
                why = k.mismatch()
            steps[name] = why or "ok"
            log("%s: %s" % (name, steps[name]))
            if why:
                k.c.reset()
                break
        else:
            steps["rst-at-next-byte"] = closed_by_reset(k) or "ok"
    return {"ok": all(v == "ok" for v in steps.values()), "sent": k.sent,
            "steps": steps}


def closed_by_reset(k):
    """A reset at exactly the next byte closes the connection: data then
    gets a reset back. None, or why not."""
    k.send(k.seg(flags="R", ack=0))
    time.sleep(ANSWER_SECS / 2)
    k.c.link.drain()
    k.send(k.seg(b"after the reset"))
    if not any("R" in s.flags for s in k.answers()):
        return "no reset for data after an acceptable reset"
    return None
