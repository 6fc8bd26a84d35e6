"""tools/soak's arithmetic and report, on results written by hand: the
decay ratio, the verdict columns and the per-NIC hostile-frame totals."""
import types

from tool_loader import load_tool

tool = load_tool("soak")


def test_thirds_compares_the_last_third_with_the_first():
    a, b, ratio = tool.thirds([10, 10, 12, 11, 5, 5])
    assert (a, b) == (10, 5) and ratio == 0.5


def test_thirds_of_short_or_empty_series():
    assert tool.thirds([]) == (0.0, 0.0, 0.0)
    assert tool.thirds([4, 6]) == (5, 5, 1.0)


def result(nic, alloc, sent, crashed=False, leaked=None):
    return {"nic": nic, "alloc": alloc, "secs": 60, "crashed": crashed, "mute": False,
            "leaked": {} if leaked is None else leaked,
            "nic_delta": {"rx_packets": 100, "tx_packets": 90, "rx_dropped": 1},
            "pool_errors": {"TCP_PCB": 3},
            "loads": {"hostile frames": {"samples": [], "first_third": 0, "last_third": 0,
                                         "ratio": 0, "totals": {"sent": sent}, "errors": []},
                      "ping -f": {"samples": [], "first_third": 0, "last_third": 0,
                                  "ratio": 0, "totals": {"sent": 9, "received": 9},
                                  "errors": ["x"]}}}


def test_markdown_has_a_verdict_row_per_variant_and_totals_per_nic():
    args = types.SimpleNamespace(secs=60, hostile_rate=1000, hostile_frames=1000,
                                 hostile_max_rate=40000)
    staged = result("virtio", "native", 700)
    staged["hostile_stage"] = {"sent": 1000, "tap_dropped": 40, "guest_rx": 990,
                               "wall_secs": 12.0, "phases": {}}
    md = tool.markdown([result("virtio", "stock", 500), staged,
                        result("e1000", "native", 300, crashed=True,
                               leaked={"PBUF": (2, 0)})], args)
    assert "| virtio | stock | 0 | 0 | 0 | 0 + 500 | 100 / 90 | 1 | 3 |" in md
    assert "| virtio | native | 0 | 0 | 0 | 960 + 700 |" in md
    assert "| e1000 | native | 1 | 0 | 1 | 0 + 300 |" in md
    # per NIC, both modes: the stage counts what reached the guest (sent
    # less the tap's drops), the mixed load what was sent
    assert ("e1000 0 in the hostile stage (that reached the guest) + 300 sent during the "
            "mixed load") in md
    assert ("virtio 960 in the hostile stage (that reached the guest) + 1200 sent during "
            "the mixed load") in md
    assert "1000 frames sent, 40 dropped by the tap (the guest busy), 960 reached" in md
    # a phase the stage did not reach is said, not left out
    assert "| %s | not run |" % tool.HOSTILE_PHASES[0] in md
    assert "ping -f: x" in md
