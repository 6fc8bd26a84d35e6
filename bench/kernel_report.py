#!/usr/bin/env python3
"""Boot the kernel with bench=all under QEMU -icount and write the tables:
OUT.md (markdown) and OUT.json.

Usage: kernel_report.py --qemu-run tools/qemu-run --kernel build/kernel.elf
                        --out build/bench/kernel [--runs 2]

With -icount shift=0 the guest's clock (and TSC) advances one tick per
instruction, so "per_op" is instructions per operation: deterministic,
independent of this shared host's load, and blind to cache misses, atomics
and interrupt masking costs (every instruction counts 1). The kernel runs
the cases on the boot CPU with interrupts off (kernel/selftest/mm_bench.c). The
boot is run --runs times; differing figures are reported (they should
not differ).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^bench: kernel (\S+) ops=(\d+) ticks=(\d+) "
                  r"per_op=(\d+)\.(\d+)\s*$", re.M)

# (ratio name, numerator case, denominator case, what it says)
RATIOS = [
    ("page order-0: buddy / PCP", "page_order0_buddy", "page_order0_pcp",
     "what the per-CPU lists save on order 0"),
    ("page order-3: buddy / PCP", "page_order3_buddy", "page_order3_pcp",
     "the same for 32 KiB blocks"),
    ("page bulk-16 per page / single (PCP)", "page_bulk16_pcp",
     "page_order0_pcp", "alloc_pages_bulk against single calls"),
    ("slab bulk-16 per object / single", "slab_bulk16", "slab_reuse",
     "goal: at most 0.5"),
    ("slab N(256) / reuse", "slab_n256", "slab_reuse",
     "a ring's clean-up stays on the fast path"),
    ("kmalloc(256) / kmem_cache_alloc", "kmalloc256_reuse", "slab_reuse",
     "size constant (class folded at compile time) and kfree's page "
     "lookup; goal: at most 1.3"),
    ("kmalloc(n), n=256 at run time / kmem_cache_alloc",
     "kmalloc256_var_reuse", "slab_reuse",
     "the size-class table lookup as well"),
    ("slab / qmempool (reuse)", "slab_reuse", "qmempool_reuse",
     "goal: 2 (instructions, not time)"),
    ("slab / qmempool (N(256))", "slab_n256", "qmempool_n256",
     "goal: 3 (instructions, not time)"),
    ("qmempool guarded / softirq", "qmempool_reuse_guarded",
     "qmempool_reuse", "the cost of masking interrupts"),
    ("netdev_alloc_frag / napi_alloc_frag", "frag_netdev_reuse",
     "frag_napi_reuse", "the guard Duyck's NAPI cache saves"),
    ("page_frag / slab (reuse)", "frag_napi_reuse", "slab_reuse",
     "a 256-byte fragment against a 256-byte object"),
    ("ALF single: MPMC / SPSC", "alfq_mpmc_single", "alfq_spsc_single",
     "the CAS paths against the plain ones (a CAS counts 1 here)"),
    ("ALF bulk-16 per element / single (SPSC)", "alfq_spsc_bulk16",
     "alfq_spsc_single", "what one index update per bulk saves"),
    ("page_frag / order-0 page (PCP)", "frag_napi_reuse", "page_order0_pcp",
     "a fragment against a whole page"),
]


def boot(qemu_run, kernel, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        cmd = [qemu_run, "--accel", "tcg", "--icount", "--smp", "1",
               "--nic", "none", "--kernel", kernel, "--serial-log", log,
               "--timeout", str(timeout), "--append",
               "exit_after_boot=1 bench=all"]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        text = open(log, errors="replace").read()
    if r.returncode != 0:
        sys.exit("kernel bench: qemu-run status %d\n%s\n%s"
                 % (r.returncode, text, r.stdout + r.stderr))
    cases = {}
    for name, ops, ticks, whole, frac in LINE.findall(text):
        cases[name] = {"ops": int(ops), "ticks": int(ticks),
                       "per_op": int(ticks) / int(ops)}
    if not cases:
        sys.exit("kernel bench: no figures in the serial log\n" + text)
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qemu-run", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()

    runs = [boot(a.qemu_run, a.kernel, a.timeout) for _ in range(a.runs)]
    cases = runs[0]
    unstable = sorted(n for n in cases
                      if any(r.get(n, {}).get("ticks") != cases[n]["ticks"]
                             for r in runs[1:]))
    ratios = []
    for title, num, den, note in RATIOS:
        if num in cases and den in cases:
            ratios.append({"ratio": title, "value":
                           cases[num]["per_op"] / cases[den]["per_op"],
                           "numerator": num, "denominator": den,
                           "note": note})

    md = ["## Kernel (in-guest, QEMU -icount)", "",
          "Booted with `tools/qemu-run --icount --smp 1 --append "
          "'exit_after_boot=1 bench=all'` (kernel/selftest/mm_bench.c): one CPU, "
          "interrupts off, each case warmed up then timed over its ops. "
          "Under `-icount shift=0` a tick is one guest instruction, so these "
          "are **instructions per operation**, the same on every run; they "
          "ignore cache misses, atomic and interrupt-masking costs, so they "
          "rank code paths, not wall-clock speed. %d boots, %s." %
          (len(runs), "identical figures" if not unstable else
           "figures differed for: " + ", ".join(unstable)), "",
          "| case | ops | instructions/op |", "| --- | ---: | ---: |"]
    for name, c in cases.items():
        md.append("| %s | %d | %.2f |" % (name, c["ops"], c["per_op"]))
    md += ["", "| ratio (same boot) | value | note |",
           "| --- | ---: | --- |"]
    for r in ratios:
        md.append("| %s | %.2f | %s |" % (r["ratio"], r["value"], r["note"]))
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(a.out + ".json", "w") as f:
        json.dump({"unit": "guest instructions per operation (-icount)",
                   "runs": len(runs), "unstable": unstable,
                   "cases": cases,
                   "ratios": {r["ratio"]: r["value"] for r in ratios}},
                  f, indent=1)
    print("kernel bench: wrote %s.md and %s.json" % (a.out, a.out))


if __name__ == "__main__":
    main()
