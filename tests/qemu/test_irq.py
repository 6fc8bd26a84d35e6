"""
NIC interrupts and the NAPI switch between polling and sleeping.

Each test boots a guest, exchanges real packets with it and reads
/stats.json: which interrupt each queue got (the driver's boot line says
so too), that every datagram of a quiet link (long gaps, so the queue's
CPU is asleep on its interrupt each time) was answered, and that the
queue's interrupt counter grew with it -- or, with net_irq=off, stayed 0.
No test asserts a time: the round-trip figures are in docs/interrupts.md.
"""
import json
import re
import socket
import time

import pytest

from test_net import NetVM, bad_value_line
from test_net_multiqueue import MqGuest, mq_netns, queues  # noqa: F401
from test_shell import ShellVM

# (qemu-run nic, kernel's boot line, expected mode)
NICS = [
    ("virtio", r"^virtio-net: eth0 queue 0: msix vector 0x[0-9a-f]+ cpu 0$", "msix"),
    ("virtio-legacy", r"^virtio-net: eth0 queue 0: intx vector 0x[0-9a-f]+ cpu 0$", "intx"),
    ("e1000", r"^e1000: eth0 queue 0: intx vector 0x[0-9a-f]+ cpu 0 \(line shared, level\)$",
     "intx"),
    ("e1000e", r"^e1000e: eth0 queue 0: msix vector 0x[0-9a-f]+ cpu 0 "
     r"\(rx 0x[0-9a-f]+ tx 0x[0-9a-f]+ link 0x[0-9a-f]+\)$", "msix"),
]


def udp_exchange(vm, n, gap):
    """n datagrams to the guest's UDP echo, one at a time, gap seconds
    apart; returns how many came back intact."""
    answered = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(10)
        for i in range(n):
            msg = b"quiet %d" % i
            s.sendto(msg, ("127.0.0.1", vm.uecho))
            try:
                data, _ = s.recvfrom(2048)
            except socket.timeout:
                continue
            answered += data == msg
            time.sleep(gap)
    return answered


def queue0(st):
    return st["nic"]["eth0"]["queues"][0]


def poll0(st):
    return st["poll"]["queues"][0]


@pytest.mark.parametrize("nic,line,mode", NICS, ids=[n[0] for n in NICS])
def test_quiet_link_echo_is_answered_on_interrupts(qemu, nic, line, mode):
    vm = NetVM(qemu, "native", nic=nic)
    assert re.search(line, vm.vm.log(), re.M), vm.vm.describe()
    before = vm.stats()
    assert queue0(before)["irq"] == mode, vm.vm.describe()
    # 300-500 ms apart: far past the busy-poll window, so the queue's CPU
    # has armed the interrupt and halted before each datagram.
    n = 8
    assert udp_exchange(vm, n, 0.3) == n, vm.vm.describe()
    after = vm.stats()
    grew = queue0(after)["interrupts"] - queue0(before)["interrupts"]
    assert grew >= n, "interrupts grew by %d for %d datagrams\n%s" % (
        grew, n, vm.vm.describe())
    assert poll0(after)["irq"] is True
    assert poll0(after)["irq_arms"] > poll0(before)["irq_arms"]
    assert poll0(after)["wakeups"] > poll0(before)["wakeups"]


def test_e1000_line_wired_by_the_mp_table_wakes_its_queue(qemu):
    """acpi=off: the e1000's INTx line (PCI IRQ 10 or 11) is routed to
    the IOAPIC the MP table lists, with the polarity of the table's PCI
    entry (SeaBIOS: active high, level). QEMU's IOAPIC model ignores the
    polarity bit, so what this checks is the route: the line's interrupts
    arrive and wake the queue, neither missing nor storming; the entry's
    flags are checked on SeaBIOS's bytes in tests/host/kernel/test_mptable.c."""
    vm = NetVM(qemu, "native", nic="e1000", append="acpi=off", smp="2,sockets=2")
    assert re.search(r"^mp: table .*: 2 cpus, 1 ioapics", vm.vm.log(), re.M), vm.vm.describe()
    assert re.search(NICS[2][1], vm.vm.log(), re.M), vm.vm.describe()
    before = vm.stats()
    n = 8
    assert udp_exchange(vm, n, 0.3) == n, vm.vm.describe()
    after = vm.stats()
    grew = queue0(after)["interrupts"] - queue0(before)["interrupts"]
    assert n <= grew < 20 * n, "interrupts grew by %d for %d datagrams\n%s" % (
        grew, n, vm.vm.describe())
    assert poll0(after)["wakeups"] > poll0(before)["wakeups"]


@pytest.mark.parametrize("nic", ["virtio", "e1000"])
def test_net_irq_off_polls_only_and_still_answers(qemu, nic):
    vm = NetVM(qemu, "native", nic=nic, append="net_irq=off")
    log = vm.vm.log()
    assert re.search(r"^net: net_irq=off, queues polled only$", log, re.M), vm.vm.describe()
    assert not re.search(r"queue 0: (msix|msi|intx) vector", log, re.M), vm.vm.describe()
    assert udp_exchange(vm, 4, 0.3) == 4, vm.vm.describe()
    assert vm.tcp_echo(b"polled\n") == b"polled\n"
    st = vm.stats()
    assert queue0(st)["irq"] == "poll"
    assert queue0(st)["interrupts"] == 0
    assert poll0(st)["irq"] is False
    assert poll0(st)["irq_arms"] == 0


@pytest.mark.parametrize("nic", ["virtio", "e1000"])
def test_send_as_the_poller_goes_to_sleep_loses_nothing(qemu, nic):
    """poll_us=0: the queue arms its interrupt on the first empty round,
    which is right after it sent each answer. Each next datagram leaves
    the host the moment the previous answer arrives, so it reaches the
    guest while the poller is between its last round, the arm and the
    halt. All must be answered. (While the periodic tick still runs a
    lost wake-up would cost up to a tick, not the packet, so this counts
    answers; the exact race is proven by the host test
    test_irq_arm_sees_a_frame_that_came_before_it.)"""
    vm = NetVM(qemu, "native", nic=nic, append="poll_us=0")
    before = vm.stats()
    n = 300
    assert udp_exchange(vm, n, 0) == n, vm.vm.describe()
    after = vm.stats()
    assert poll0(after)["irq_arms"] - poll0(before)["irq_arms"] >= n // 2, (
        "the poller did not go to sleep between datagrams: %s" % poll0(after))
    assert queue0(after)["interrupts"] > queue0(before)["interrupts"]


# The busy-poll test's longest window: far above a busy echo's round trip
# on this host (80-300 us, up to a few ms loaded), far below its gaps.
SPIN_POLL_US = 5000
SPARSE_GAP_S = 0.05


@pytest.mark.parametrize("adapt", ["on", "off"])
def test_busy_polling_stops_when_it_finds_nothing_and_traffic_still_flows(qemu, adapt):
    """poll_adapt=on: a queue spins after a frame only while spinning
    finds frames (net/busy_poll.h). Datagrams 50 ms apart, ten times
    poll_us=, are each followed by a wasted spin until the misses have
    used up the credits (8), then by none; an idle guest spins no more at
    all; back-to-back datagrams, each a round trip after the last answer,
    start the spinning again and are all answered. With poll_adapt=off
    every gap costs a whole spin of poll_us=. Counted over the serial
    shell, which sends no frame."""
    vm = NetVM(qemu, "native", append="poll_us=%d poll_adapt=%s" % (SPIN_POLL_US, adapt),
               serial_socket=True)
    n = 30
    assert udp_exchange(vm, 3, 0) == 3, vm.vm.describe()
    before = poll0(vm.shell_stats())
    assert udp_exchange(vm, n, SPARSE_GAP_S) == n, vm.vm.describe()
    sparse = poll0(vm.shell_stats())
    time.sleep(2)
    idle = poll0(vm.shell_stats())
    assert udp_exchange(vm, 200, 0) == 200, vm.vm.describe()
    busy = poll0(vm.shell_stats())
    print("poll_adapt=%s\n sparse %s\n idle %s\n busy %s" % (adapt, sparse, idle, busy))
    misses = sparse["spin_misses"] - before["spin_misses"]
    if adapt == "off":
        assert misses >= n - 2, sparse
        assert sparse["spin_window_ns"] == SPIN_POLL_US * 1000, sparse
        return
    assert misses <= 12, (before, sparse)
    assert sparse["spin_window_ns"] == 0, sparse
    # idle: not one more spin
    assert idle["spin_rounds"] == sparse["spin_rounds"], (sparse, idle)
    assert idle["spin_ns"] == sparse["spin_ns"], (sparse, idle)
    # busy: a short sleep started the spinning again, and it found frames
    assert busy["short_sleeps"] > idle["short_sleeps"], (idle, busy)
    assert busy["spin_hits"] > idle["spin_hits"], (idle, busy)
    assert busy["spin_window_ns"] > 0, busy


EVENT_IDX = [("virtio", "1", "on"), ("virtio", "0", "off(switch)"),
             ("virtio-legacy", "1", "on"), ("virtio-legacy", "0", "off(switch)")]


@pytest.mark.parametrize("nic,value,word", EVENT_IDX,
                         ids=["%s-event_idx=%s" % (n, v) for n, v, _ in EVENT_IDX])
def test_traffic_with_event_idx_on_and_off(qemu, nic, value, word):
    """VIRTIO_F_EVENT_IDX (QEMU offers it on both transports) or the ring
    flags: a quiet link (the queue asleep on its interrupt before each
    datagram), a busy one and TCP all answered; the interrupts grew; the
    kicks are counted, sent or suppressed, per ring."""
    vm = NetVM(qemu, "native", nic=nic, append="virtio_event_idx=" + value)
    assert re.search(r"^virtio-net: eth0 event_idx=%s$" % re.escape(word), vm.vm.log(),
                     re.M), vm.vm.describe()
    before = vm.stats()
    assert udp_exchange(vm, 6, 0.3) == 6, vm.vm.describe()
    assert udp_exchange(vm, 200, 0) == 200, vm.vm.describe()
    assert vm.tcp_echo(b"event_idx\n") == b"event_idx\n"
    after = vm.stats()
    b, a = queue0(before), queue0(after)
    assert a["interrupts"] - b["interrupts"] >= 6, (b, a)
    assert a["tx_notifies"] > b["tx_notifies"], (b, a)
    kicks = lambda q: q["rx_notifies"] + q["rx_notifies_suppressed"]  # noqa: E731
    assert kicks(a) > kicks(b), (b, a)
    # one kick decision per flush, which may carry several frames
    tx_kicks = (a["tx_notifies"] + a["tx_notifies_suppressed"]
                - b["tx_notifies"] - b["tx_notifies_suppressed"])
    assert 0 < tx_kicks <= a["tx_packets"] - b["tx_packets"], (b, a)
    print("event_idx=%s %s: interrupts %d, tx kicks %d sent %d suppressed, rx kicks %d sent "
          "%d suppressed" % (value, nic, a["interrupts"] - b["interrupts"],
                             a["tx_notifies"] - b["tx_notifies"],
                             a["tx_notifies_suppressed"] - b["tx_notifies_suppressed"],
                             a["rx_notifies"] - b["rx_notifies"],
                             a["rx_notifies_suppressed"] - b["rx_notifies_suppressed"]))


def test_bad_interrupt_values_are_reported_and_defaults_used(qemu):
    vm = NetVM(qemu, "native", append="net_irq=maybe poll_us=-5 virtio_event_idx=2")
    log = vm.vm.log()
    assert bad_value_line(log, "net_irq", "maybe", "on"), vm.vm.describe()
    assert bad_value_line(log, "poll_us", "-5", "200"), vm.vm.describe()
    assert bad_value_line(log, "virtio_event_idx", "2", "1"), vm.vm.describe()
    assert re.search(r"^virtio-net: eth0 event_idx=on$", log, re.M), vm.vm.describe()
    assert udp_exchange(vm, 3, 0.3) == 3, vm.vm.describe()
    assert queue0(vm.stats())["irq"] == "msix"


def test_four_queues_each_get_their_msix_vector_on_their_cpu(qemu, mq_netns):
    g = MqGuest(qemu, mq_netns, smp=4, queues=4)
    log = g.vm.log()
    vectors = set()
    for q in range(4):
        m = re.search(r"^virtio-net: eth0 queue %d: msix vector (0x[0-9a-f]+) cpu %d$" % (q, q),
                      log, re.M)
        assert m, g.vm.describe()
        vectors.add(m.group(1))
    assert len(vectors) == 4, vectors
    before = g.stats()
    g.clients()
    after = g.stats()
    for b, a in zip(queues(before), queues(after)):
        assert a["irq"] == "msix"
        assert a["interrupts"] > b["interrupts"], (a["queue"], a["interrupts"])


@pytest.mark.parametrize("irq", ["on", "off"])
def test_legacy_virtio_on_four_cpus_user_net(qemu, irq):
    """smp 4, legacy transport, user-net (one pair, on CPU 0; CPUs 1-3
    own no queue): a quiet link, a busy one and TCP answered, with its
    INTx line (interrupts grow) or polled only (they stay 0)."""
    vm = NetVM(qemu, "native", nic="virtio-legacy", smp=4, append="net_irq=" + irq)
    log = vm.vm.log()
    assert re.search(r"^boot: cpus=4 ", log, re.M), vm.vm.describe()
    before = vm.stats()
    assert udp_exchange(vm, 4, 0.3) == 4, vm.vm.describe()
    assert udp_exchange(vm, 100, 0) == 100, vm.vm.describe()
    assert vm.tcp_echo(b"legacy smp4\n") == b"legacy smp4\n"
    after = vm.stats()
    grew = queue0(after)["interrupts"] - queue0(before)["interrupts"]
    if irq == "on":
        assert queue0(after)["irq"] == "intx"
        assert grew >= 4, (queue0(before), queue0(after))
    else:
        assert queue0(after)["irq"] == "poll"
        assert queue0(after)["interrupts"] == 0


@pytest.mark.parametrize("irq", ["on", "off"])
def test_legacy_virtio_four_queues_share_one_intx_line(qemu, mq_netns, irq):
    """smp 4 with four pairs on the legacy transport (a multiqueue tap):
    one shared, level-triggered INTx line for all of them, whose handler
    (on CPU 0) reads the ISR byte and wakes every pair's CPU. Every queue
    carries traffic; with net_irq=on each queue's interrupt counter grows,
    with net_irq=off all stay 0."""
    g = MqGuest(qemu, mq_netns, smp=4, queues=4, nic="virtio-legacy",
                append="net_irq=" + irq)
    log = g.vm.log()
    if irq == "on":
        vectors = set()
        for q in range(4):
            m = re.search(r"^virtio-net: eth0 queue %d: intx vector (0x[0-9a-f]+) cpu %d$"
                          % (q, q), log, re.M)
            assert m, g.vm.describe()
            vectors.add(m.group(1))
        assert len(vectors) == 1, vectors  # one line, one vector
    else:
        assert re.search(r"^net: net_irq=off, queues polled only$", log, re.M), g.vm.describe()
    before = g.stats()
    g.clients()
    after = g.stats()
    assert len(queues(after)) == 4, g.vm.describe()
    for b, a in zip(queues(before), queues(after)):
        assert a["rx_packets"] > b["rx_packets"], (a["queue"], a["rx_packets"])
        if irq == "on":
            assert a["irq"] == "intx"
            assert a["interrupts"] > b["interrupts"], (a["queue"], a["interrupts"])
        else:
            assert a["irq"] == "poll"
            assert a["interrupts"] == 0


def test_idle_cpus_are_tickless_and_count_their_halts(qemu):
    """An idle CPU halts on a one-shot timer, not the 100 Hz tick: over 3 s
    of wall time without traffic (guest time can only be shorter) a CPU
    that owns no queue takes a handful of timer interrupts, not 300; it
    counts its halts, the time halted and the tick <-> one-shot switches."""
    vm = NetVM(qemu, "native")
    assert re.search(r"^boot: tsc=.* idle=(lapic one-shot|tsc-deadline)$", vm.vm.log(),
                     re.M), vm.vm.describe()
    before = vm.stats()["cpus"]["cpu1"]
    time.sleep(3)
    after = vm.stats()["cpus"]["cpu1"]
    ticks = after["ticks"] - before["ticks"]
    assert ticks < 50, "cpu1 took %d timer interrupts in 3 s idle" % ticks
    assert after["idle_halts"] > before["idle_halts"]
    assert after["halted_ns"] > before["halted_ns"]
    assert after["timer_reprograms"] > before["timer_reprograms"]
    # and the queue's CPU still answers at once on its interrupt
    assert udp_exchange(vm, 2, 0.3) == 2, vm.vm.describe()


IDLE_S = 6


def test_an_idle_guest_wakes_only_for_timers_with_work(qemu):
    """An idle guest halts until a timer has work: lwIP's MLD timer runs
    only while a membership report is delayed (net/lwip-patches/0003-*)
    and the OOM watch looks once a second while no refill fails. Before,
    MLD's cyclic 100 ms timer and the watch's 250 ms one woke CPU 0 14-17
    times a second. Counted through the serial shell's `stats`, so no TCP
    connection (and no TIME_WAIT timer) is left in the guest; what is left
    is the 1 s timers (ARP, ND, reassembly), DHCP's 500 ms one, the OOM
    watch and the keys typed for the second `stats`."""
    sh = ShellVM(qemu)
    time.sleep(3)  # the join reports of the addresses are sent by now

    def cpu0():
        return json.loads(sh.con.command("stats"))["cpus"]["cpu0"]

    before = cpu0()
    time.sleep(IDLE_S)
    after = cpu0()
    rate = (after["idle_halts"] - before["idle_halts"]) / IDLE_S
    print("# cpu0: %.1f idle wake-ups a second" % rate)
    assert 0 < rate < 8, "cpu0 woke %.1f times a second idle\n%s" % (rate, sh.vm.describe())
