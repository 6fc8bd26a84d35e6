#!/usr/bin/env python3
"""Checks a trace document against the rules of Chrome's trace-event
format (JSON Object Format) that viewers rely on, and prints what it
breaks:

    tools/trace_check.py build/trace.json      # exit 1 and a line a problem

The rules checked: the document is one JSON object whose traceEvents is a
list; every event has a name, a phase ph among those we write (B, E, i,
M), a pid and a tid; every event but metadata has a ts, a number; an
instant event has a scope s; on each thread (pid, tid) the timestamps
never go back, every E ends the innermost open B of the same name, and no
B is left open at the end. problems(doc) is the same for a parsed
document (the QEMU tests import it)."""
import json
import sys

PHASES = {"B", "E", "i", "M"}


def problems(doc):
    """A list of sentences, one per rule the document breaks (at most
    one per thread and rule, so a broken trace gives a short list)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["the document is not an object with a traceEvents list"]
    out = []
    last_ts, stacks, said = {}, {}, set()

    def once(key, msg):
        if key not in said:
            said.add(key)
            out.append(msg)

    for n, ev in enumerate(doc["traceEvents"]):
        where = "event %d (%s)" % (n, ev.get("name") if isinstance(ev, dict) else ev)
        if not isinstance(ev, dict) or not all(k in ev for k in ("name", "ph", "pid", "tid")):
            once(("fields", n), "%s lacks one of name, ph, pid, tid" % where)
            continue
        ph, thread = ev["ph"], (ev["pid"], ev["tid"])
        if ph not in PHASES:
            once(("ph", ph), "%s has phase %r" % (where, ph))
            continue
        if ph == "M":
            continue
        ts = ev.get("ts")
        if not isinstance(ts, (int, float)):
            once(("ts", thread), "%s has no numeric ts" % where)
            continue
        if ts < last_ts.get(thread, ts):
            once(("order", thread), "%s on thread %s goes back in time (%s after %s)"
                 % (where, thread, ts, last_ts[thread]))
        last_ts[thread] = ts
        stack = stacks.setdefault(thread, [])
        if ph == "i" and ev.get("s") not in ("t", "p", "g"):
            once(("scope", thread), "%s is an instant without a scope s" % where)
        elif ph == "B":
            stack.append(ev["name"])
        elif ph == "E":
            if not stack or stack[-1] != ev["name"]:
                once(("end", thread), "%s on thread %s ends %r, but the open span is %r"
                     % (where, thread, ev["name"], stack[-1] if stack else None))
            else:
                stack.pop()
    for thread, stack in stacks.items():
        if stack:
            out.append("thread %s ends with spans open: %s" % (thread, ", ".join(stack)))
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: trace_check.py TRACE.json", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            doc = json.load(f)
    except ValueError as e:
        print("%s: not JSON: %s" % (argv[1], e))
        return 1
    found = problems(doc)
    for p in found:
        print("%s: %s" % (argv[1], p))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
