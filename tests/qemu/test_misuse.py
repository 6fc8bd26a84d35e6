"""selftest=misuse with mm_debug=1: the kernel commits each classic
allocator misuse once (kernel/selftest/misuse.c) and must print one
"mm: BUG" line of the right kind for each, naming the function that did
it, and keep running with every page back; without mm_debug the test
refuses to run rather than pass."""
import re

EXIT = "exit_after_boot=1"

# case -> (kind as printed, what the line must also say)
EXPECTED = {
    "double_free": ("double free", r"kmalloc-64: double free of 0x[0-9a-f]+"),
    "invalid_free": ("free of a pointer that is not a block start",
                     r"not an object start"),
    "not_allocated": ("free of memory not allocated",
                      r"kfree: 0x1 was not returned by kmalloc"),
    "overflow": ("red zone overwritten",
                 r"overflowed: red zone written 64 bytes past its end"),
    "underflow": ("red zone overwritten",
                  r"underflowed: red zone written 8 bytes before its start"),
    "write_after_free": ("write after free",
                         r"kmalloc-64: object 0x[0-9a-f]+ written after free "
                         r"\(byte 10; freed by case_write_after_free_small"),
    "page_write_after_free": ("write after free",
                              r"pfn 0x[0-9a-f]+ \(address 0x[0-9a-f]+\) "
                              r"written after free at offset 100 of the page"
                              r".*freed by case_write_after_free_page\+"),
    "large_write_after_free": ("write after free",
                               r"written after free at offset 808 of the page"
                               r".*block order 2\); freed by "
                               r"case_write_after_free_large\+"),
    "large_overflow": ("red zone overwritten",
                       r"large block 0x[0-9a-f]+ \(10000 bytes\) overflowed: "
                       r"red zone written 64 bytes past its end"),
    "page_double_free": ("double free", r"order 0 is already free"),
}


def case_lines(log):
    """The console lines of each case: from its "selftest: misuse NAME"
    line to the next selftest line."""
    out, name = {}, None
    for line in log.splitlines():
        m = re.match(r"^selftest: misuse (\w+)\s*$", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif line.startswith("selftest:"):
            name = None
        elif name:
            out[name].append(line)
    return out


def test_each_misuse_is_reported_once_with_its_kind_and_caller(qemu):
    log = qemu.boot(append=EXIT + " selftest=misuse mm_debug=1", smp=2)
    m = re.search(r"^selftest: misuse PASS cases=(\d+) reports=(\d+) "
                  r"free=(\d+) baseline=(\d+)\s*$", log, re.M)
    assert m, log
    cases, reports, free, base = map(int, m.groups())
    assert cases == len(EXPECTED) and reports == cases, log
    assert free == base, log  # every page back after the refused frees
    lines = case_lines(log)
    assert sorted(lines) == sorted(EXPECTED), log
    for name, (kind, says) in EXPECTED.items():
        bugs = [l for l in lines[name] if l.startswith("mm: BUG: ")]
        assert len(bugs) == 1, (name, lines[name])
        assert bugs[0].startswith("mm: BUG: %s: " % kind), bugs[0]
        assert re.search(says, bugs[0]), bugs[0]
        # the caller is named from the kernel's symbol table
        assert re.search(r"\(caller case_\w+\+0x[0-9a-f]+, cpu 0\)$",
                         bugs[0]), bugs[0]
    assert len(re.findall(r"^mm: BUG: ", log, re.M)) == len(EXPECTED), log


def test_misuse_needs_mm_debug(qemu):
    log = qemu.boot(append=EXIT + " selftest=misuse", expect_status=1)
    assert re.search(r"^selftest: misuse FAIL \(needs mm_debug=1\)\s*$",
                     log, re.M), log
    assert "mm: BUG" not in log, log
