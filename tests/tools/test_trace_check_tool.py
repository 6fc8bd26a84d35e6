"""tools/trace_check.py on trace documents written by hand: a well-formed
one passes, and each rule a viewer relies on is caught when broken."""
import json
import subprocess
import sys

from tool_loader import ROOT, load_tool

check = load_tool("trace_check.py")


def ev(name, ph, ts, tid=0, pid=0, **more):
    e = {"name": name, "ph": ph, "ts": ts, "pid": pid, "tid": tid}
    if ph == "i":
        e["s"] = "t"
    e.update(more)
    return e


META = {"name": "thread_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "cpu 0"}}


def doc(*events):
    return {"traceEvents": [META] + list(events)}


def test_a_well_formed_trace_passes():
    d = doc(ev("poll", "B", 1.0), ev("page_alloc", "i", 1.5), ev("irq", "B", 2.0),
            ev("irq", "E", 2.5), ev("poll", "E", 3.0),
            ev("page_free", "i", 0.5, tid=1))  # another thread's own clock
    assert check.problems(d) == []


def test_not_an_object_with_a_list_is_refused():
    assert check.problems([]) != []
    assert check.problems({"traceEvents": {}}) != []


def test_time_going_back_on_one_thread_is_caught():
    found = check.problems(doc(ev("a", "i", 2.0), ev("b", "i", 1.0)))
    assert len(found) == 1 and "goes back in time" in found[0]


def test_an_end_of_another_span_than_the_open_one_is_caught():
    found = check.problems(doc(ev("poll", "B", 1.0), ev("irq", "B", 2.0),
                               ev("poll", "E", 3.0), ev("irq", "E", 4.0)))
    assert found and "ends 'poll', but the open span is 'irq'" in found[0]


def test_an_end_without_a_begin_and_a_span_left_open_are_caught():
    assert check.problems(doc(ev("poll", "E", 1.0))) != []
    found = check.problems(doc(ev("poll", "B", 1.0)))
    assert found == ["thread (0, 0) ends with spans open: poll"]


def test_missing_fields_unknown_phases_and_scopeless_instants_are_caught():
    assert check.problems(doc({"name": "x", "ph": "i", "ts": 1})) != []
    assert check.problems(doc(ev("x", "X", 1.0))) != []
    assert check.problems(doc(ev("x", "i", "1.0"))) != []
    bare = ev("x", "i", 1.0)
    del bare["s"]
    assert check.problems(doc(bare)) != []


def test_the_command_exits_1_on_a_broken_file_and_0_on_a_good_one(tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(doc(ev("a", "i", 1.0))))
    bad.write_text('{"traceEvents": [')
    tool = [sys.executable, "%s/tools/trace_check.py" % ROOT]
    assert subprocess.run(tool + [str(good)]).returncode == 0
    r = subprocess.run(tool + [str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and "not JSON" in r.stdout
