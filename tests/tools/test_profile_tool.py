"""tools/profile's folding, tables and flame graph, on profiles written by
hand: what the kernel's /profile.txt looks like, and what the tool must
make of it."""
import xml.etree.ElementTree as ET

import pytest

from tool_loader import load_tool

tool = load_tool("profile")

FOLDED = """\
# profile session=2 running=0 hz=1000 cpus=2 capacity=8192 frames=31 alloc_failures=0 fold_table=ok
# cpu0 samples=60 idle=40 dropped=3 truncated=1 unfolded=0
# cpu1 samples=0 idle=100 dropped=0 truncated=0 unfolded=0
cpu0;kmain;poll_loop;net_poll;tcp_input 30
cpu0;kmain;poll_loop;net_poll;kmalloc 10
cpu0;kmain;poll_loop;net_poll 10
cpu0;(truncated);tcp_output;kmalloc 5
cpu0;kmain;poll_loop;f;g;f 5
cpu0;(idle) 40
cpu1;(idle) 100
"""


def test_parse_reads_header_counters_and_stacks():
    p = tool.parse_folded(FOLDED)
    assert p.meta["session"] == 2 and p.meta["hz"] == 1000
    assert p.cpus[0]["dropped"] == 3 and p.cpus[1]["idle"] == 100
    assert p.cpu_ids() == [0, 1]
    assert p.stacks[0] == (["cpu0", "kmain", "poll_loop", "net_poll", "tcp_input"], 30)
    assert len(p.stacks) == 7


def test_parse_puts_a_stack_without_cpu_frame_on_cpu0():
    p = tool.parse_folded("main;work 4\n")
    assert p.stacks == [(["cpu0", "main", "work"], 4)]


def test_parse_refuses_a_line_without_count():
    with pytest.raises(ValueError, match="line 2"):
        tool.parse_folded("a;b 1\na;b\n")


def test_select_leaves_idle_out_unless_asked():
    p = tool.parse_folded(FOLDED)
    assert sum(n for _, n in tool.select(p)) == 60
    assert sum(n for _, n in tool.select(p, cpu=1)) == 0
    assert sum(n for _, n in tool.select(p, cpu=1, idle=True)) == 100


def test_self_is_the_leaf_total_counts_each_stack_once():
    funcs = tool.top_functions(tool.select(tool.parse_folded(FOLDED)))
    assert funcs["tcp_input"] == [30, 30]
    assert funcs["kmalloc"] == [15, 15]      # two stacks end in it
    assert funcs["net_poll"] == [10, 50]
    assert funcs["poll_loop"] == [0, 55]
    assert funcs["f"] == [5, 5]              # recursion: once per stack
    assert "(truncated)" not in funcs and "cpu0" not in funcs


def test_source_paths_map_to_subsystems():
    s = tool.subsystem_of_path
    assert s("/w/third_party/lwip/src/core/tcp_in.c") == "lwIP"
    assert s(tool.ROOT + "/mm/slab.c") == "mm"
    assert s(tool.ROOT + "/kernel/mm_port/platform.c") == "kernel"
    assert s(tool.ROOT + "/drivers/virtio_net.c") == "drivers"
    assert s(tool.ROOT + "/net/netif_glue.c") == "net"
    assert s(tool.ROOT + "/apps/http_server.c") == "apps"
    assert s("/usr/lib/gcc/libgcc2.c") == "other"


def test_nm_line_listing_gives_each_symbol_its_subsystem():
    nm = ("0000000000111730 T kmalloc\t%s/mm/kmalloc.c:130\n"
          "00000000001000fd t start64\n"
          "0000000000120000 t tcp_input\t/x/third_party/lwip/src/core/tcp_in.c:99\n"
          "0000000000200000 B some_data\t%s/mm/slab.c:3\n" % (tool.ROOT, tool.ROOT))
    subs = tool.parse_nm_lines(nm)
    assert subs == {"kmalloc": "mm", "start64": "boot", "tcp_input": "lwIP"}


def rects(svg):
    """[(title, width)] of the flame graph's frames."""
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.fromstring(svg)
    out = []
    for g in root.findall("s:g", ns):
        title = g.find("s:title", ns).text
        out.append((title.split(" (")[0], float(g.find("s:rect", ns).get("width"))))
    return out


def test_flame_graph_widths_are_proportional_to_samples():
    stacks = [(["cpu0", "a", "b"], 30), (["cpu0", "a", "c"], 10), (["cpu1", "a", "b&<"], 20)]
    svg = tool.flame_svg(stacks, {"a": "kernel", "b": "mm"}, title="t & <x>")
    frames = dict(rects(svg))
    assert frames["all"] == pytest.approx(frames["a"], abs=0.05)
    assert frames["b"] == pytest.approx(3 * frames["c"], abs=0.05)
    assert frames["b&<"] == pytest.approx(2 * frames["c"], abs=0.05)  # escaped, still parsed
    assert "cpu0" not in frames  # CPUs merged unless per_cpu


def test_flame_graph_per_cpu_keeps_the_cpu_frames():
    stacks = [(["cpu0", "a"], 3), (["cpu1", "a"], 1)]
    frames = rects(tool.flame_svg(stacks, {}, per_cpu=True))
    widths = {name: w for name, w in frames if name.startswith("cpu")}
    assert widths["cpu0"] == pytest.approx(3 * widths["cpu1"], abs=0.05)


def test_table_gives_shares_and_cost_per_packet():
    p = tool.parse_folded(FOLDED)
    run = {"hz": 1000, "rx_packets": 1000, "icount": True}
    md = tool.table_md(p, {"tcp_input": "lwIP", "kmalloc": "mm"}, run)
    # 30 of 60 busy samples; a sample is 10^9/1000 instructions, so 30
    # samples over 1000 packets are 30000 instructions per packet.
    assert "| `tcp_input` | lwIP | 50.0 | 50.0 | 30 | 30000 | 30000 |" in md
    assert "| `kmalloc` | mm | 25.0 | 25.0 | 15 | 15000 | 15000 |" in md
    assert "| 0 | 60 | 40 | 40.0 | 3 | 1 |" in md    # cpu row: idle share, drops
    assert "| 1 | 0 | 100 | 100.0 | 0 | 0 |" in md
    assert "| lwIP | 50.0 | 30000 |" in md


def test_paths_split_busy_samples_by_their_first_entry_point():
    stacks = [(["cpu0", "poll_loop", "netif_glue_input", "tcp_input", "glue_linkoutput"], 5),
              (["cpu0", "poll_loop", "netif_glue_rx_poll", "vnet_rx_poll"], 1),
              (["cpu0", "poll_loop", "glue_linkoutput"], 2),
              (["cpu0", "poll_loop", "sys_check_timeouts", "tcp_tmr"], 1),
              (["cpu0", "poll_loop", "net_poll_queue"], 1)]
    md = "\n".join(tool.paths_block(stacks, 1e6, "instr/rx frame", 100))
    assert "| receive: netif_glue_input (lwIP -> app, and what they send back) | 50.0 | 50000 |" in md
    assert "| receive, driver half: netif_glue_rx_poll (reap, refill, park) | 10.0 | 10000 |" in md
    assert "| transmit outside receive: glue_linkoutput | 20.0 | 20000 |" in md
    assert "| lwIP timers: sys_check_timeouts | 10.0 | 10000 |" in md
    assert "| polling between frames (none of the above) | 10.0 | 10000 |" in md


def test_guest_to_host_costs_are_per_frame_sent():
    p = tool.parse_folded(FOLDED)
    run = {"hz": 1000, "rx_packets": 10, "tx_packets": 1000, "per": "tx"}
    md = tool.table_md(p, {}, run)
    assert "self ns/tx frame" in md
    assert "| `tcp_input` | other | 50.0 | 50.0 | 30 | 30000 | 30000 |" in md
    assert "1000 frames sent" in tool.describe_run(dict(run, load="iperf-g2h"))
