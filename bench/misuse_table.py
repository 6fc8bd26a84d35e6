#!/usr/bin/env python3
"""The misuse comparison (bench/misuse.c): run each allocator's program,
collect its RESULT lines, write one markdown table (a row per case, a
column per allocator) and the raw results as JSON."""
import argparse
import json
import subprocess

NOTE = {
    "aborted": "aborted",
    "reported": "**reported**",
    "two-owners": "*two owners*",
    "silent": "silent",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="path without extension")
    ap.add_argument("programs", nargs="+")
    args = ap.parse_args()
    results, allocs, cases = {}, [], []
    for prog in args.programs:
        out = subprocess.run([prog], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) != 4 or parts[0] != "RESULT":
                continue
            _, alloc, case, outcome = parts
            if alloc not in allocs:
                allocs.append(alloc)
            if case not in cases:
                cases.append(case)
            results.setdefault(case, {})[alloc] = outcome
    rows = ["| case | " + " | ".join(allocs) + " |",
            "| --- |" + " --- |" * len(allocs)]
    for case in cases:
        rows.append("| %s | %s |" % (case, " | ".join(
            NOTE.get(results[case].get(a, "?"), "?") for a in allocs)))
    with open(args.out + ".md", "w") as f:
        f.write("\n".join(rows) + "\n")
    with open(args.out + ".json", "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
