"""labs/traces/from-kernel-trace on a kernel trace written by hand: both
views come out line for line as the lab trace format wants them, frees
found by address (a fragment's by any byte inside it, a large kmalloc's
page free absorbed), frees from before the session skipped and counted,
the events no view replays counted by name."""
import json
import os
import subprocess

from tool_loader import ROOT

TOOL = os.path.join(ROOT, "labs", "traces", "from-kernel-trace")


def ev(name, ts, cpu, ph="i", **args):
    return {"name": name, "cat": "mm", "ph": ph, "s": "t", "ts": ts, "pid": cpu, "tid": cpu,
            "args": args}


# Two CPUs, each its own node; listed per CPU, as the kernel writes them,
# so that the converter must merge them by time.
CPU0 = [
    ev("page_alloc", 1.0, 0, page="0x1000", caller="rx_refill+0x10", order=2, node=0),
    ev("page_alloc", 2.0, 0, page="0x8000", caller="slab_new+0x34", order=0, node=0),
    ev("slab_alloc", 3.0, 0, obj="0x8040", caller="f+0x1", cache="kmalloc-64", size=64),
    ev("page_frag_free", 6.0, 0, addr="0x20010", caller="pbuf_free+0x32"),
    ev("qmempool_alloc", 7.0, 0, obj="0x50000", caller="g+0x2", cache="lwip_PBUF", pool=1),
    ev("page_frag_free", 13.0, 0, addr="0x30000", caller="pbuf_free+0x32"),
    ev("page_free", 14.0, 0, page="0x1000", caller="rx_done+0x4", order=2, node=0),
    ev("drain_all_pages", 15.0, 0, ph="B", caller="h+0x3"),
    ev("drain_all_pages", 16.0, 0, ph="E", caller="h+0x3"),
]
CPU1 = [
    ev("page_frag_alloc", 4.0, 1, addr="0x20000", caller="vnet_rx_poll+0x74b", size=2048),
    ev("slab_free", 5.0, 1, obj="0x9990", caller="f+0x9", cache="kmalloc-64", size=64),
    ev("page_alloc", 8.0, 1, page="0x40000", caller="big+0x8", order=1, node=1),
    ev("kmalloc_large", 9.0, 1, ptr="0x40000", caller="big+0x8", size=5000, order=1),
    ev("slab_free", 10.0, 1, obj="0x8040", caller="f+0x9", cache="kmalloc-64", size=64),
    ev("kfree_large", 11.0, 1, ptr="0x40000", caller="big+0x20", size=8192, order=1),
    ev("page_free", 12.0, 1, page="0x40000", caller="big+0x20", order=1, node=1),
]
META = [
    {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "node 0"}},
    {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "cpu 0"}},
    {"name": "process_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "node 1"}},
    {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "cpu 1"}},
]
DOC = {"traceEvents": META + CPU0 + CPU1,
       "otherData": {"session": "7", "events": "16", "dropped": "0"}}

OBJECTS = """\
# hand-made
# kernel trace: session 7, 16 events, 0 dropped; view objects (labs/traces/from-kernel-trace)
# 4 allocations, 4 frees; 0 objects live at the end
# frees of objects allocated before the session, skipped: 2 (page_frag_free 1, slab_free 1)
# events left out of this view: 2 (page_alloc 1, qmempool_alloc 1)
machine 2 32 2 0,1
c 0
p 2
k 64
c 1
f 2048
c 0
x 1
c 1
k 5000
x 3
x 1
c 0
x 4
D
"""

PAGES = """\
# kernel trace: session 7, 16 events, 0 dropped; view pages (labs/traces/from-kernel-trace)
# 3 allocations, 2 frees; 1 objects live at the end
# frees of objects allocated before the session, skipped: 0
# events left out of this view: 9 (kfree_large 1, kmalloc_large 1, page_frag_alloc 1, \
page_frag_free 2, qmempool_alloc 1, slab_alloc 1, slab_free 2)
machine 2 64 2 0,1
c 0
p 2
p 0
c 1
p 1
x 1
c 0
x 3
D
"""


def convert(tmp_path, *args):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(DOC))
    return subprocess.run([TOOL, str(path)] + list(args), check=True, stdout=subprocess.PIPE,
                          text=True).stdout


def test_the_objects_view_replays_what_the_callers_asked(tmp_path):
    assert convert(tmp_path, "--title", "hand-made", "--mib-per-node", "32") == OBJECTS


def test_the_pages_view_replays_what_the_page_allocator_saw(tmp_path):
    assert convert(tmp_path, "--view", "pages") == PAGES
