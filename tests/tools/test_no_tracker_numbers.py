"""The tree names goals for what they measure, never by a tracker's number:
no "issue 14", "issue-15", "issue_3", "issue14", "goals14" or "tracker" in
any file of the repository (sources, tools, tests, docs and committed
results), third_party/ and build/ aside. A reader of the code or of a
report cannot open the tracker; "the goals for interrupts, NAPI and
tickless idle" tells them what "issue 14's goals" did not."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACKER_WORDS = re.compile(r"issue[ _-]?#?\d|goals\d|tracker", re.I)
OUTSIDE = ("third_party/", "build/", ".git/")
THIS_FILE = os.path.relpath(os.path.abspath(__file__), ROOT)  # it spells the words out


def tree_files():
    """Every file of the tree, relative to ROOT: what git tracks plus new
    files it does not ignore, or every file when this is not a git
    checkout."""
    try:
        r = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, check=True)
        files = [f for f in r.stdout.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), ROOT)
                 for d, _, names in os.walk(ROOT) for f in names]
    return [f for f in files if not f.startswith(OUTSIDE) and f != THIS_FILE
            and os.path.isfile(os.path.join(ROOT, f))]


def tracker_words(path):
    """["LINE: text"] of the lines of path that name a tracker number
    (none for a binary file: one with a NUL byte)."""
    with open(os.path.join(ROOT, path), "rb") as f:
        data = f.read()
    if b"\0" in data:
        return []
    return ["%d: %s" % (n, line.strip()[:120])
            for n, line in enumerate(data.decode(errors="replace").splitlines(), 1)
            if TRACKER_WORDS.search(line)]


def test_the_pattern_catches_tracker_numbers_and_nothing_else():
    for text in ("issue 14", "Issue-15's goals", "issue_3", "test_issue14_rows",
                 "summarise_goals14", "GOALS14", "issue #7", "see the tracker"):
        assert TRACKER_WORDS.search(text), text
    for text in ("the goals for interrupts, NAPI and tickless idle", "idle_goals",
                 "issues with the ring", "the AP reads the ticket", "#1 0x10568c kmain"):
        assert not TRACKER_WORDS.search(text), text


def test_no_file_of_the_tree_names_a_tracker_number():
    files = tree_files()
    assert "tools/bench-vs-linux" in files and "bench/vs-linux.json" in files
    found = {f: w for f in files for w in [tracker_words(f)] if w}
    assert not found, "\n".join("%s:%s" % (f, line) for f, w in sorted(found.items())
                                for line in w)
