"""Memory sizes of today's servers: RAM above 64 GiB is mapped (1 GiB
pages where the CPU has them, 2 MiB pages where not) with page tables
made as needed, the allocator gets all of it and selftest=mm passes; RAM
past the ceiling (lowered with mem_max=) is reported in one line and
never handed out; the network comes up on a 256 GiB machine; struct
pages past each node's first GiB are initialised after the boot report
(in the background, or by selftest=mm, which waits for all of them).

QEMU allocates guest RAM lazily, but every struct page the guest
initialises costs host memory (64 bytes per 4 KiB: 4 GiB at -m 256G), so
the big boots run one at a time (conftest.py SERIAL)."""
import re
import urllib.request

from conftest import free_port

EXIT = "exit_after_boot=1 selftest=mm nic=none"
BIG_TIMEOUT = 600  # a loaded host; a 256 GiB boot takes ~30 s alone
NET_TIMEOUT = 120


def ram_line(log):
    m = re.search(r"^boot: ram ceiling=(\d+)MiB \(([^)]*)\) direct_map=(1GiB|2MiB) pages "
                  r"page_tables=(\d+)\s*$", log, re.M)
    assert m, log
    return {"ceiling": int(m.group(1)), "why": m.group(2), "page": m.group(3),
            "tables": int(m.group(4))}


def total_mib(log):
    return int(re.search(r"^boot: cpus=\d+ nodes=\d+ memory=(\d+)MiB\s*$", log, re.M).group(1))


def selftest_mm_free(log):
    """The free pages selftest=mm counted (every deferred struct page
    initialised first), or None if it did not pass."""
    m = re.search(r"^selftest: mm PASS cpus=\d+ pages=\d+ free=(\d+) baseline=\1\s*$",
                  log, re.M)
    return int(m.group(1)) if m else None


def managed(log):
    return {int(n): int(m) for n, m in
            re.findall(r"^mm: node (\d+) free=\d+ pages managed=(\d+) pages", log, re.M)}


def assert_all_ram_used(log, mib):
    """Every MiB QEMU was given is counted, none skipped, and the page
    allocator got it: selftest=mm finds free all of it but the struct
    pages (1/64), the kernel and the firmware's holes."""
    assert total_mib(log) == mib, log
    assert "boot: ram skipped" not in log and "paging:" not in log, log
    free, pages = selftest_mm_free(log), mib * 256
    assert free and pages * 0.97 < free <= sum(managed(log).values()) <= pages, log


def test_72_gib_on_pc_uses_all_of_it_with_1_gib_pages(qemu):
    # The old static pool of 64 page tables ended at ~68 GiB: the RAM
    # past it went to the allocator unmapped and selftest=mm faulted.
    log = qemu.boot(append=EXIT, mem="72G", machine="pc", timeout=BIG_TIMEOUT)
    assert_all_ram_used(log, 72 * 1024)
    assert re.search(r"^node 0: range 0x100000000-0x1240000000\s*$", log, re.M), log
    ram = ram_line(log)
    # RAM up to 512 GiB: 1 GiB pages in the boot tables' one PDPT
    assert ram["page"] == "1GiB" and ram["tables"] == 0, log
    # one CPU, so nothing happens in the background before the report:
    # the first GiB at boot, the rest but the struct pages' 1.1 GiB
    # deferred
    deferred = int(re.search(r"^mm: init=\d+ms deferred=(\d+) pages", log, re.M).group(1))
    assert 69 * 1024 * 256 < deferred < 71 * 1024 * 256, log


def test_256_gib_on_q35_without_1_gib_pages_maps_with_2_mib_pages(qemu):
    log = qemu.boot(append=EXIT, mem="256G", machine="q35", cpu="qemu64",
                    timeout=BIG_TIMEOUT)
    assert_all_ram_used(log, 256 * 1024)
    # q35 keeps 2 GiB below 4 GiB: 254 GiB above it, one page directory
    # per GiB
    assert re.search(r"^node 0: range 0x100000000-0x4080000000\s*$", log, re.M), log
    ram = ram_line(log)
    assert ram["page"] == "2MiB" and ram["tables"] == 254, log


def test_256_gib_on_pc_brings_the_network_up(qemu):
    """The NIC's 64-bit BAR lies above the RAM, past 512 GiB (QEMU puts it
    at 768 GiB): its uncached mapping needs a page table of its own, from
    the page allocator."""
    http = free_port()
    vm = qemu.start(mem="256G", machine="pc", smp=2, nic="virtio", hostfwd=["%d:80" % http])
    vm.wait_for(r"^net: eth0 up ip=10\.0\.2\.15/24 ", BIG_TIMEOUT)
    vm.wait_for(r"^net: listening", NET_TIMEOUT)
    with urllib.request.urlopen("http://127.0.0.1:%d/" % http, timeout=NET_TIMEOUT) as r:
        assert r.status == 200
    log = vm.log()
    assert total_mib(log) == 256 * 1024, log
    assert ram_line(log)["page"] == "1GiB", log
    bar = re.search(r"^pci: 00:03\.0 1af4:1000 .*bar4=m64:([0-9a-f]+)/", log, re.M)
    assert bar and int(bar.group(1), 16) >= 512 << 30, log


def test_two_40_gib_nodes_each_get_their_own_memory(qemu):
    log = qemu.boot(append=EXIT, smp=2, numa=["0:40G", "1:40G"], timeout=BIG_TIMEOUT)
    assert_all_ram_used(log, 80 * 1024)
    for n in (0, 1):
        assert re.search(r"^node %d: cpus=%d memory=40960MiB\s*$" % (n, n), log, re.M), log
    # node 1 starts where node 0's 40 GiB end: 3 GiB below 4 GiB, 37 above
    assert re.search(r"^node 1: range 0xa40000000-0x1440000000\s*$", log, re.M), log
    assert all(managed(log)[n] > 40 * 1024 * 256 * 0.97 for n in (0, 1)), log


def test_ram_past_a_lowered_ceiling_is_reported_once_and_never_handed_out(qemu):
    # pc -m 8G: RAM at [0, 3G) and [4G, 9G); a 6 GiB ceiling leaves 3 GiB
    log = qemu.boot(append=EXIT + " mem_max=6G", mem="8G")
    ram = ram_line(log)
    assert ram["ceiling"] == 6144 and ram["why"] == "mem_max", log
    skipped = re.findall(r"^boot: ram skipped=.*$", log, re.M)
    assert skipped == ["boot: ram skipped=3072MiB from 0x180000000 (past the ceiling): "
                       "never given to the allocator"], log
    assert total_mib(log) == 5 * 1024, log
    assert re.search(r"^node 0: range 0x100000000-0x180000000\s*$", log, re.M), log
    # every page the allocator has is one it can hand out and take back
    assert selftest_mm_free(log) <= 5 * 1024 * 256, log


def test_without_mem_max_the_ceiling_is_the_cpus_address_width(qemu):
    # QEMU's TCG CPUs have 40 physical address bits: 1 TiB, below the
    # design's 64 TiB
    log = qemu.boot(append="exit_after_boot=1", mem="1G")
    ram = ram_line(log)
    assert ram["ceiling"] == 1 << 20 and ram["why"] == "the CPU's address width", log
    assert "boot: ram skipped" not in log


def test_qemu64_maps_with_2_mib_pages_and_max_with_1_gib_pages(qemu):
    # pc -m 8G: 5 GiB above 4 GiB, [4G, 9G)
    log = qemu.boot(append=EXIT, mem="8G", cpu="qemu64")
    ram = ram_line(log)
    assert ram["page"] == "2MiB" and ram["tables"] == 5, log
    assert selftest_mm_free(log), log
    log = qemu.boot(append=EXIT, mem="8G", cpu="max")
    ram = ram_line(log)
    assert ram["page"] == "1GiB" and ram["tables"] == 0, log
    assert selftest_mm_free(log), log


def test_a_bad_mem_max_is_refused_and_nothing_is_skipped(qemu):
    log = qemu.boot(append="exit_after_boot=1 mem_max=1G5", mem="1G")
    assert re.search(r"^cmdline: bad value '1G5' for mem_max", log, re.M), log
    assert "boot: ram skipped" not in log
    log = qemu.boot(append="exit_after_boot=1 mem_max=8M", mem="1G")
    assert re.search(r"^cmdline: bad value '8M' for mem_max", log, re.M), log


def test_deferred_struct_pages_reach_the_free_lists_in_the_background(qemu):
    """-m 8G: the boot report comes with the first GiB on the free lists
    and the rest deferred; both CPUs' pollers bring the rest, and the
    kernel says when all of it is free."""
    vm = qemu.start(append="nic=none shell=0", mem="8G", smp=2)
    vm.wait_for(r"^boot: ready")
    log = vm.log()
    deferred = int(re.search(r"^mm: init=\d+ms deferred=(\d+) pages \(mm_deferred_init=on\)",
                             log, re.M).group(1))
    total = sum(managed(log).values())
    # the first GiB at boot; of the rest, CPU 1 may have done some by
    # the report
    assert 0 < deferred <= total - 1024 * 256, log
    m = vm.wait_for(r"^mm: deferred struct pages done: all (\d+) pages free (\d+) ms after "
                    r"mm_init\s*$", BIG_TIMEOUT)
    # free: all of it but what the boot took and the per-CPU lists hold
    assert total - 16 * 1024 < int(m.group(1)) <= total, vm.log()


def test_with_mm_deferred_init_off_every_struct_page_is_written_at_boot(qemu):
    log = qemu.boot(append="exit_after_boot=1 mm_deferred_init=off", mem="8G")
    assert re.search(r"^mm: init=\d+ms deferred=0 pages \(mm_deferred_init=off\)\s*$",
                     log, re.M), log
    free = int(re.search(r"^mm: free=(\d+) pages", log, re.M).group(1))
    assert free > sum(managed(log).values()) - 16 * 1024, log
    assert "mm: deferred struct pages done" not in log
