"""tools/experiment-numa's --scaling arithmetic and report on inputs
written by hand: hand-offs and shared-lock acquisitions from two
/stats.json, the host CPU of a workload's window, and the report's
table per workload with its ratios."""
import types

from tool_loader import load_tool

numa = load_tool("experiment-numa")


def stats(rx, sent, shared):
    return {"nic": {"eth0": {"rx_packets": rx}}, "stacks": {"sent": sent},
            "core_lock": {"total": {"shared": shared}}}


def test_stack_figures_per_request_or_per_received_frame():
    s0, s1 = stats(1000, 10, 7), stats(3000, 110, 11)
    assert numa.stack_figures("udp", s0, s1, 400) == {
        "udp_handoff": 0.05, "udp_shared_per_req": 0.01, "udp_rx_frames": 2000}
    # no request count (iperf): per received frame
    assert numa.stack_figures("iperf", s0, s1, None)["iperf_shared_per_req"] == 0.002
    assert numa.stack_figures("x", s0, s0, 0) == {
        "x_handoff": 0.0, "x_shared_per_req": 0.0, "x_rx_frames": 0}


def test_window_figures_give_percent_of_one_core_and_skip_stacks_for_linux():
    before = {"t": 10.0, "client_s": 3.0, "stats": None,
              "threads": {1: ("qemu-system-x86", 1.0), 2: ("CPU 0/TCG", 1.0)}}
    after = {"t": 12.0, "client_s": 4.0, "stats": None,
             "threads": {1: ("qemu-system-x86", 1.5), 2: ("CPU 0/TCG", 2.5)}}
    assert numa.window_figures("http_ka", before, after, 100) == {
        "http_ka_cpu_vcpus_pct": 75.0, "http_ka_cpu_vcpu_max_pct": 75.0,
        "http_ka_cpu_main_pct": 25.0,
        "http_ka_cpu_other_pct": 0.0, "http_ka_cpu_client_pct": 50.0}
    before["stats"], after["stats"] = stats(0, 0, 0), stats(100, 1, 0)
    assert numa.window_figures("http_ka", before, after, 100)["http_ka_handoff"] == 0.01


def test_ratio_of_medians():
    assert numa.ratio({"median": 3.0}, {"median": 2.0}) == "1.50"
    assert numa.ratio(None, {"median": 2.0}) == "-"
    assert numa.ratio({"median": 3.0}, {"median": 0}) == "-"


def test_scaling_tables_one_per_workload_with_the_ratios_of_the_kinds_run():
    one = {"h2g_mbps": 100.0, "udp_echo_per_s": 1000.0, "queues_used": 2,
           "queues_offered": 2, "udp_loss": 0.25}
    runs = {"shared-q2": [dict(one)], "percpu-q2": [dict(one, h2g_mbps=150.0)],
            "linux-q2": [dict(one, h2g_mbps=300.0)]}
    table = numa.summarise(runs)
    a = types.SimpleNamespace(kinds=["percpu", "linux", "shared"], pairs=[2])
    text = "\n".join(numa.scaling_tables(table, a))
    assert "| queue pairs | shared | percpu | Linux | percpu/shared | percpu/Linux |" in text
    assert "| 2 | 100 (100-100) | 150 (150-150) | 300 (300-300) | 1.50 | 0.50 |" in text
    # a figure no run has: "failed" cells, no ratio
    assert "| 2 | failed | failed | failed | - | - |" in text
    assert "| udp | 2 | percpu | - | - | - | - | - | - | - | 0.25 |" in text
    # without Linux, no percpu/Linux column
    a.kinds = ["shared", "percpu"]
    assert "| queue pairs | shared | percpu | percpu/shared |" in \
        "\n".join(numa.scaling_tables(table, a))
