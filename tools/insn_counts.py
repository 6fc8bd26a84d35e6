"""Exact guest instruction counts from the insn_profile TCG plugin.

The plugin (tools/insn-profile/insn_profile.c, `make insn-profile`) adds
each translation block's instruction count to a per-vCPU counter every
time the block runs; a snapshot writes the counters summed over the
vCPUs, one line per block start address. Two snapshots around a workload
give the instructions every vCPU executed during it, by function: under
TCG there is no PMU, and -icount's virtual clock gives one total that
also moves while vCPUs are halted.

Used by tools/insn-profile (a per-function table of one workload) and
tools/bench-serial (instructions per request at 1 to 8 vCPUs).
"""
import bisect
import collections
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN = os.path.join(ROOT, "build", "tools", "insn_profile.so")


def symbols(elf):
    """Sorted (start addresses, names) of the ELF's function symbols."""
    out = subprocess.run(["nm", "-n", "--defined-only", elf], capture_output=True,
                         text=True, check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    return addrs, names


class Counter:
    """The plugin's control FIFO in tmp: qemu_args to load it, snapshot()
    to read its counters."""

    def __init__(self, tmp, plugin=PLUGIN):
        if not os.path.exists(plugin):
            raise FileNotFoundError("%s missing: run make insn-profile" % plugin)
        self.tmp = tmp
        self.fifo = os.path.join(tmp, "insn-ctl.fifo")
        os.mkfifo(self.fifo)
        self.qemu_args = ["-plugin", "%s,fifo=%s" % (plugin, self.fifo)]
        self.taken = 0

    def snapshot(self, timeout=60):
        """The counters now: {translation block start address: instructions}."""
        self.taken += 1
        path = os.path.join(self.tmp, "insn-snap-%d" % self.taken)
        with open(self.fifo, "w") as f:
            f.write("snap %s\n" % path)
        end = time.monotonic() + timeout
        while not os.path.exists(path + ".done"):
            if time.monotonic() > end:
                raise TimeoutError("the insn_profile plugin wrote no snapshot")
            time.sleep(0.05)
        counts = {}
        with open(path) as f:
            for line in f:
                addr, n = line.split()
                counts[int(addr, 16)] = int(n)
        return counts


def per_function(before, after, syms, blocks_of=()):
    """{function: instructions} between two snapshots; with blocks_of, also
    {function: [(block address, instructions)]} for those functions."""
    addrs, names = syms
    per = collections.Counter()
    blocks = collections.defaultdict(list)
    for addr, n in after.items():
        d = n - before.get(addr, 0)
        if d > 0:
            i = bisect.bisect_right(addrs, addr) - 1
            name = names[i] if i >= 0 else hex(addr)
            per[name] += d
            if name in blocks_of:
                blocks[name].append((addr, d))
    return per, blocks
