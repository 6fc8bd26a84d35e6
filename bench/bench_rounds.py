"""What the bench report scripts share (bench/slab_report.py,
bench/churn_report.py): running the benchmark binaries in interleaved
rounds, formatting a figure, and writing OUT.md and OUT.json.

Each binary prints "RESULT <alloc> <case> <n> <ns>" lines. A round runs
every binary once, in turn, so slow drifts of this shared machine hit
every allocator alike; a figure is the median over rounds of the binary's
own median over runs.
"""
import json
import statistics
import subprocess
import sys


def run_rounds(bins, rounds, label):
    """{(alloc, case, n): median ns} over rounds of every binary."""
    samples = {}
    for r in range(rounds):
        for b in bins:
            out = subprocess.run([b], check=True, capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                f = line.split()
                if len(f) == 5 and f[0] == "RESULT":
                    key = (f[1], f[2], int(f[3]))
                    samples.setdefault(key, []).append(float(f[4]))
        print(f"{label}: round {r + 1}/{rounds} done", file=sys.stderr)
    return {k: statistics.median(v) for k, v in samples.items()}


def fmt(x):
    """A figure: '–' when missing, 1 decimal from 10 up, else 2."""
    return "–" if x is None else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def write_report(out, md, doc):
    """OUT.md from the markdown lines, OUT.json from doc; prints the md."""
    with open(out + ".md", "w") as f:
        f.write("\n".join(md) + "\n")
    with open(out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    print("\n".join(md))
