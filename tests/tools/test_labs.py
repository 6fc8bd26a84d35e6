"""The allocator labs (labs/README.md): every lab passes with the
product's own file as the solution and fails, naming what is missing,
with its empty skeleton; a plausible wrong solution (a buddy allocator
that never merges) fails with the reason; a student's folder gets its
copy of the skeleton once and never again. Each run is make lab-NAME as a user types it, in
its quick form (LAB_QUICK=1: the plain tests and a short replay)."""
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABS = ["buddy", "pcp", "slab", "page_frag"]


def lab(name, *args):
    p = subprocess.run(["make", "--no-print-directory", "lab-" + name, "LAB_QUICK=1",
                        "LAB_PLOTS=0"] + list(args), cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    return p.returncode, p.stdout.decode(errors="replace")


@pytest.mark.parametrize("name", LABS)
def test_the_reference_passes_every_test_and_trace(name):
    rc, out = lab(name, "LAB_SOLUTION=reference")
    assert rc == 0, out
    assert "== lab %s: PASS" % name in out, out
    assert not re.search(r"^\s+(FAIL|SKIP)\b", out, re.M), out
    # The reference beside itself ends each trace in the same free blocks.
    rows = re.findall(r"^  (\w+) .* ((?:\d+ ){10}\d+) \| ((?:\d+ ){10}\d+)$", out, re.M)
    assert len(rows) >= 2, out
    for trace, yours, ref in rows:
        assert yours == ref, trace


@pytest.mark.parametrize("name", LABS)
def test_the_skeleton_fails_and_names_what_to_write(name):
    rc, out = lab(name, "LAB_SOLUTION=skeleton")
    assert rc != 0, out
    assert "== lab %s: FAIL" % name in out, out
    assert re.search(r"^  FAIL  plain  test_", out, re.M), out
    assert re.search(r"your file says: lab %s: \w+\(\) is not written yet" % name, out), out
    assert re.search(r"^  FAIL  \w+ +\d+ operations", out, re.M), out


def test_a_students_folder_gets_the_skeleton_once(tmp_path):
    work, build = tmp_path / "work", tmp_path / "build"
    where = ["LAB_WORK=%s" % work, "LAB_BUILD=%s" % build]
    skeleton = open(os.path.join(ROOT, "labs/skeletons/buddy.c")).read()
    make = ["make", "--no-print-directory"] + where
    out = subprocess.run(make + ["-n", "lab-buddy"], cwd=ROOT, stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    assert "cp labs/skeletons/buddy.c %s/buddy.c" % work in out, out
    subprocess.run(make + ["%s/buddy.c" % work], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    assert (work / "buddy.c").read_text() == skeleton
    (work / "buddy.c").write_text(skeleton + "/* the student's */\n")
    out = subprocess.run(make + ["-n", "lab-buddy"], cwd=ROOT, stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    assert "cp labs/skeletons" not in out, out
    assert re.search(r"-c %s/buddy.c -o %s/buddy/plain/lab.o" % (work, build), out), out
    assert (work / "buddy.c").read_text().endswith("/* the student's */\n")


def test_a_buddy_that_never_merges_fails_with_the_reason(tmp_path):
    # the reference with its merge loop switched off: a plausible student bug
    work, build = tmp_path / "work", tmp_path / "build"
    work.mkdir()
    src = open(os.path.join(ROOT, "mm/buddy.c")).read()
    loop = "\twhile (order < MAX_ORDER) {\n\t\tunsigned long buddy_pfn"
    assert loop in src
    (work / "buddy.c").write_text(src.replace(loop, loop.replace("(order", "(0 && order")))
    rc, out = lab("buddy", "LAB_WORK=%s" % work, "LAB_BUILD=%s" % build)
    assert rc != 0 and "== lab buddy: FAIL" in out, out
    assert re.search(r"FAIL  plain  test_page_buddy\n.*coalesces_to_max_order", out), out
    assert "the free-list check said: mm: verify:" in out and "buddy left unmerged" in out, out
    assert re.search(r"^  FAIL  checkerboard", out, re.M), out
