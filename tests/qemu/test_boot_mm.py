"""The page allocator in the kernel: boot hands memory to
mm_init per node, the report shows free pages per node, mm_debug=1 turns on
the checks, and selftest=mm allocates and frees on every CPU."""
import re

EXIT = "exit_after_boot=1"


def node_free(log):
    return {int(n): int(f) for n, f in
            re.findall(r"^mm: node (\d+) free=(\d+) pages", log, re.M)}


def test_boot_report_shows_free_pages_per_node(qemu):
    log = qemu.boot(append=EXIT, smp=2, numa=["0:256M", "1:256M"])
    free = node_free(log)
    assert sorted(free) == [0, 1]
    # each 256 MiB node keeps most of its 65536 pages (mem_map, kernel,
    # first MiB and firmware areas are not free)
    for n in (0, 1):
        assert 55000 < free[n] <= 65536, log


def test_mm_debug_on_the_command_line_switches_debug_checks_on(qemu):
    log = qemu.boot(append=EXIT + " mm_debug=1")
    assert re.search(r"^mm: free=\d+ pages debug=on\s*$", log, re.M)
    log = qemu.boot(append=EXIT)
    assert re.search(r"^mm: free=\d+ pages debug=off\s*$", log, re.M)


def test_selftest_mm_gets_every_page_back_across_four_cpus_and_two_nodes(qemu):
    log = qemu.boot(append=EXIT + " selftest=mm mm_debug=1", smp=4,
                    numa=["0-1:256M", "2-3:256M"])
    m = re.search(r"^selftest: mm PASS cpus=4 pages=(\d+) free=(\d+) "
                  r"baseline=(\d+)\s*$", log, re.M)
    assert m, log
    assert int(m.group(1)) > 0
    assert m.group(2) == m.group(3)
    assert "mm: BUG" not in log  # no debug detection reported


def test_selftest_mm_on_one_cpu(qemu):
    log = qemu.boot(append=EXIT + " selftest=mm", smp=1)
    assert re.search(r"^selftest: mm PASS cpus=1 ", log, re.M)


def test_selftest_mm_fails_when_an_allocation_fails(qemu):
    # 16 MiB leaves ~2,400 free pages; four CPUs ask for ~725 pages each
    # (256 blocks of orders 0-3), so some allocations must fail, and a
    # failed allocation is a failed test, not a skipped block.
    log = qemu.boot(append=EXIT + " selftest=mm", smp=4, mem="16M",
                    expect_status=1)
    free = int(re.search(r"^mm: free=(\d+) pages", log, re.M).group(1))
    assert free < 4 * 725, log
    m = re.search(r"^selftest: mm FAIL cpus=4 pages=(\d+) failed=(\d+) "
                  r"free=(\d+) baseline=(\d+) verified=(-?\d+) "
                  r"errors=(\d+)\s*$", log, re.M)
    assert m, log
    pages, failed, after, base, verified, errors = map(int, m.groups())
    assert failed > 0 and pages <= free, log
    # the failed allocations are the only fault: every page came back
    assert after == base == verified and errors == 0, log
    assert re.search(r"^selftest: 1 failed\s*$", log, re.M), log
