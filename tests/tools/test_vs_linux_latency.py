"""bench-vs-linux's cold and host-loaded UDP echo rows
(tools/vs_linux_latency.py), against a real echo server in another host
process: the load really runs on every core and stops, the rows take real
round trips, and the report judges their p99 against Linux's."""
import os
import time

from tool_loader import load_tool

tool = load_tool("bench-vs-linux")
lat = tool.vs_linux_latency
irq_figures = tool.irq_figures


class EchoGuest:
    """What the rows use of a guest: its UDP echo address."""

    def __init__(self, addr):
        self.addr = addr

    def address(self, name):
        assert name == "uecho"
        return self.addr


def test_the_load_spins_one_process_per_core_and_stops():
    with lat.CpuLoad() as load:
        assert len(load.procs) == os.cpu_count()
        time.sleep(0.5)
        assert all(p.poll() is None for p in load.procs)
    assert all(p.poll() is not None for p in load.procs), "a spinner outlived the row"
    # Each spinner is runnable all the time, so together they got a good
    # part of half a second (the host is shared: not all of it).
    assert load.cpu_s > 0.1, load.cpu_s


def test_cold_and_loaded_rows_take_real_round_trips():
    args = type("A", (), {"cold": 50, "loaded": 50})()
    with irq_figures.HostEchoServer() as srv:
        g = EchoGuest(srv.addr)
        cold = lat.cold_udp(g, args)
        loaded = lat.loaded_udp(g, args)
    assert cold["cold_lost"] == 0 and loaded["loaded_lost"] == 0
    assert 0 < cold["cold_rtt_median_us"] <= cold["cold_rtt_p99_us"] < 1e6
    assert 0 < loaded["loaded_rtt_median_us"] <= loaded["loaded_rtt_p99_us"] < 1e6
    assert loaded["loaded_load_cpu_s"] > 0


def test_the_rows_judge_p99_against_linux_and_name_their_step():
    runs = {"e1000": {
        "linux": [{"cold_rtt_p99_us": 600.0, "cold_rtt_median_us": 300.0, "cold_lost": 0,
                   "loaded_rtt_p99_us": 5000.0, "loaded_rtt_median_us": 400.0}],
        "native": [{"cold_rtt_p99_us": 900.0, "cold_rtt_median_us": 100.0, "cold_lost": 0,
                    "loaded_rtt_p99_us": 700.0, "loaded_rtt_median_us": 90.0}]}}
    table = {r["label"]: r for r in tool.summarise(runs, ["linux", "native"])["e1000"]}
    assert table["UDP echo RTT p99, cold"]["goal_met"] is False
    assert table["UDP echo RTT p99, host loaded"]["goal_met"] is True
    assert table["UDP echo RTT median, cold (first echoes after boot, no warm-up)"][
        "goal_met"] is None
    steps = [n for n, _ in tool.STEPS]
    assert steps[0] == "cold_udp", "the cold row must be the fresh guest's first traffic"
    del runs["e1000"]["native"][0]["loaded_rtt_p99_us"]
    skipped = {r["label"]: r for r in tool.summarise(runs, ["linux", "native"],
                                                     {"loaded_udp"})["e1000"]}
    assert skipped["UDP echo RTT p99, host loaded"]["spread"]["native"] == tool.SKIPPED
