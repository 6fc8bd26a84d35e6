"""The labs' skeletons (labs/skeletons/NAME.c) give every function but the
ones the student writes (marked LAB_TODO), and the given ones must be
mm/NAME.c's own: a student reads them as the product's code, and the
grader compares the student's allocator with mm/'s. When mm/ changes a
given function (tracing was added after the labs), the skeleton follows.

Comments and layout may differ (a skeleton says "Given:"); the code may
not, unless the function says why it differs with "Not in mm/".
"""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABS = ["buddy", "pcp", "slab", "page_frag"]


def functions(src):
    """name -> text of every top-level function definition in C source
    written in the tree's style (the body's braces at column 0)."""
    lines = src.splitlines(keepends=True)
    out = {}
    i = 0
    while i < len(lines):
        if lines[i] != "{\n":
            i += 1
            continue
        h = i - 1
        while h > 0 and lines[h - 1].strip() and \
                not lines[h - 1].startswith(("/*", " *", "}", "#")) and \
                not lines[h - 1].rstrip().endswith((";", "*/")):
            h -= 1
        j = i + 1
        while lines[j] != "}\n":
            j += 1
        header = "".join(lines[h:i])
        names = [n for n in re.findall(r"([A-Za-z_]\w*)\s*\(", header)
                 if n not in ("__attribute__", "noinline")]
        out[names[0]] = "".join(lines[h:j + 1])
        i = j + 1
    return out


def code(text):
    """The tokens of C text without its comments."""
    return " ".join(re.sub(r"/\*.*?\*/", " ", text, flags=re.S).split())


def test_functions_finds_definitions_and_ignores_prototypes():
    src = ("/* a */\nstatic int f(int a,\n\t     int b)\n{\n\treturn a;\n}\n\n"
           "int g(void);\n\nstatic __attribute__((noinline)) void *\nh(void)\n"
           "{\n\treturn 0;\n}\n")
    f = functions(src)
    assert sorted(f) == ["f", "h"]
    assert code(f["f"]) == "static int f(int a, int b) { return a; }"


@pytest.mark.parametrize("name", LABS)
def test_given_functions_are_mm_s_own(name):
    with open(os.path.join(ROOT, "labs", "skeletons", name + ".c")) as f:
        skeleton = functions(f.read())
    with open(os.path.join(ROOT, "mm", name + ".c")) as f:
        reference = functions(f.read())
    todo = [n for n, t in skeleton.items() if "LAB_TODO" in t]
    assert todo, "the skeleton leaves the student nothing to write"
    missing = sorted(set(reference) - set(skeleton))
    assert not missing, "mm/%s.c functions the skeleton lacks: %s" % (name, missing)
    extra = sorted(set(skeleton) - set(reference))
    assert not extra, "skeleton functions mm/%s.c does not have: %s" % (name, extra)
    differ = [n for n, t in skeleton.items()
              if n not in todo and "Not in mm/" not in t
              and code(t) != code(reference[n])]
    assert not differ, ("given functions that are not mm/%s.c's code: %s"
                        % (name, differ))
