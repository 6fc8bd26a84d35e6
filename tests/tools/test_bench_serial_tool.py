"""tools/bench-serial's arithmetic, on counters written by hand: the
serial fraction is the core lock's hold over the busy time, per-request
figures divide by the requests served, and Amdahl's law is applied as
written."""
import pytest

from tool_loader import load_tool

tool = load_tool("bench-serial")


def snap(requests, busy, hold, acquired, queue_busy, rx, shared=None):
    return {"requests": requests, "busy_ns": busy, "hold_ns": hold, "acquired": acquired,
            "shared": acquired if shared is None else shared,
            "queue_busy_ns": queue_busy, "rx_packets": rx}


def test_figures_divide_the_differences():
    before = snap(10, 1000, 400, 20, [600, 400], [5, 5])
    after = snap(110, 2001000, 500400, 220, [1200600, 800400], [105, 305])
    f = tool.figures(before, after, 2)
    assert f["requests"] == 100
    assert f["instr_per_request"] == pytest.approx(20000)
    assert f["serial_instr_per_request"] == pytest.approx(5000)
    assert f["serial_fraction"] == pytest.approx(0.25)
    assert f["lock_acquisitions_per_request"] == pytest.approx(2.0)
    assert f["shared_lock_acquisitions_per_request"] == pytest.approx(2.0)
    assert f["busy_share_per_queue"] == pytest.approx([0.6, 0.4])
    assert f["rx_packets_per_queue"] == [100, 300]
    # s = 1/4: at most 4x however many CPUs
    assert f["amdahl"]["2"] == pytest.approx(1 / (0.25 + 0.75 / 2))
    assert f["amdahl"]["64"] == pytest.approx(1 / (0.25 + 0.75 / 64))
    assert all(v < 4 for v in f["amdahl"].values())


def test_counters_take_the_shared_locks_hold_not_every_hold():
    """A stack per CPU: each CPU's own lock is held for most of the work,
    but the serial fraction is the hold of locks shared between CPUs."""
    st = {"http": {"requests": 7}, "poll": {"busy_ns": 100, "queues": []},
          "core_lock": {"total": {"hold_ns": 90, "shared_hold_ns": 3, "acquired": 50,
                                  "shared": 2}},
          "nic": {"eth0": {"queues": [{"rx_packets": 1}]}}}
    c = tool.counters(st)
    assert c["hold_ns"] == 3 and c["shared"] == 2 and c["acquired"] == 50
    f = tool.figures(snap(0, 0, 0, 0, [], [0], 0), c, 2, "percpu")
    assert f["stack"] == "percpu"
    assert f["serial_fraction"] == pytest.approx(0.03)
    assert f["shared_lock_acquisitions_per_request"] == pytest.approx(2 / 7)


def test_exact_count_divides_every_function_by_the_requests():
    """The plugin's per-function instructions over the run, summed and
    divided by the requests served; the busiest functions kept by name."""
    import collections
    before = snap(0, 0, 0, 0, [], [0])
    after = snap(100, 10, 0, 1, [], [0])
    fns = collections.Counter({"tcp_input": 300_000, "memcpy": 500_000, "poll_loop": 200_000})
    f = tool.figures(before, after, 2, "percpu", fns, 0)
    assert f["exact_instr_per_request"] == pytest.approx(10_000)
    assert f["functions_per_request"] == pytest.approx(
        {"memcpy": 5000, "tcp_input": 3000, "poll_loop": 2000})
    assert f["poll_us"] == 0
    assert "exact_instr_per_request" not in tool.figures(before, after, 2)


def test_growth_is_against_the_fewest_vcpus_of_the_same_stack_and_poll_us():
    runs = [{"stack": s, "poll_us": p, "cpus": c, "exact_instr_per_request": x}
            for s, p, c, x in (("percpu", 0, 1, 8000), ("percpu", 0, 8, 8400),
                               ("percpu", 200, 1, 10000), ("percpu", 200, 8, 14000),
                               ("shared", 0, 2, 9000), ("shared", 0, 8, 9900))]
    assert tool.growth(runs) == pytest.approx([1.0, 1.05, 1.0, 1.4, 1.0, 1.1])


def test_biggest_changes_orders_by_the_size_of_the_change_either_way():
    first = {"functions_per_request": {"tcp_input": 800, "memcpy": 700, "poll_loop": 100}}
    last = {"functions_per_request": {"tcp_input": 300, "memcpy": 705, "poll_loop": 1300,
                                      "net_handoff_waiting": 190}}
    assert tool.biggest_changes(first, last, 3) == [
        ("poll_loop", 100, 1300), ("tcp_input", 800, 300), ("net_handoff_waiting", 0, 190)]


def test_amdahl_limits():
    assert tool.amdahl(0.0, 16) == pytest.approx(16)
    assert tool.amdahl(1.0, 16) == pytest.approx(1)
    # 1 % serial allows 13.9x at 16 CPUs; over 14x needs under 0.95 %
    assert tool.amdahl(0.01, 16) == pytest.approx(13.91, abs=0.01)
    assert tool.amdahl(0.009, 16) > 14


def test_a_run_that_served_nothing_is_an_error():
    before = snap(10, 1000, 400, 20, [], [0])
    with pytest.raises(ValueError):
        tool.figures(before, before, 1)
