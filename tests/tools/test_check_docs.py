"""tools/check-docs: a doc that names a path, a link target or a make
target that does not exist fails the check; what exists, and what is not
a repository name, passes."""
import os
import subprocess
import textwrap

import pytest

from tool_loader import ROOT, load_tool

check_docs = load_tool("check-docs")

MAKEFILE = """\
.PHONY: run lint
run:
\t@true
lint: run
\t@true
include mk/bench.mk
"""


@pytest.fixture
def tree(tmp_path):
    """A small repository: a Makefile, net/, apps/www/, mk/, docs/."""
    for d in ("net", "apps/www", "mk", "docs/figures", "tests/fuzz"):
        (tmp_path / d).mkdir(parents=True)
    for f in ("net/net_poll.c", "net/netif_glue.c", "net/core_lock.c",
              "net/core_lock.h", "apps/www/index.html", "docs/figures/a.svg",
              "tests/fuzz/fuzz_slab.c"):
        (tmp_path / f).write_text("")
    (tmp_path / "Makefile").write_text(MAKEFILE)
    (tmp_path / "mk/bench.mk").write_text(".PHONY: bench-net\nbench-net:\n\t@true\n")
    return tmp_path


def errors_of(tree, text, name="docs/page.md"):
    doc = tree / name
    doc.write_text(textwrap.dedent(text))
    errors, _ = check_docs.check_docs(str(tree), [str(doc)])
    return errors


def test_a_stale_path_fails_and_names_its_line(tree):
    errors = errors_of(tree, """\
        # Page

        The glue is net/netif.c (renamed).
        """)
    assert errors == ["docs/page.md:3: no such path in the tree: net/netif.c"]


@pytest.mark.parametrize("path", [
    "net/net_poll.c", "apps/www/", "apps/www", "docs/figures/*.svg",
    "net/core_lock.{h,c}", "tests/fuzz/fuzz_NAME.c", "net/core_lock",
    "`net/netif_glue.c`,", "(net/net_poll.c).",
])
def test_a_path_that_exists_passes(tree, path):
    assert errors_of(tree, f"See {path} here.\n") == []


@pytest.mark.parametrize("path", [
    "docs/figures/*.png", "net/core_lock.{h,c,S}", "tests/fuzz/fuzz_NAME.h",
    "net/core", "apps/www/dashboard.js", "docs/missing.md",
])
def test_a_path_that_does_not_exist_fails(tree, path):
    assert len(errors_of(tree, f"See {path} here.\n")) == 1


@pytest.mark.parametrize("text", [
    "/proc/net/dev and /usr/share/doc/x",
    "build/bench/net.md and third_party/lwip/src/core/tcp.c",
    "http://localhost:8080/docs/none and ../net/none.c",
    '"mm/page_alloc: free order-0 pages through PCP"',
    "subnet/mask and tcp/7 udp/7",
])
def test_words_that_are_not_repository_paths_are_left_alone(tree, text):
    assert errors_of(tree, text + "\n") == []


def test_links_need_their_file_and_their_anchor(tree):
    (tree / "docs/other.md").write_text(textwrap.dedent("""\
        # Other

        ## Where buffers live: rx_alloc=, `tx_alloc=`

        ## Notes

        ## Notes
        """))
    errors = errors_of(tree, """\
        [ok](other.md), [ok](other.md#where-buffers-live-rx_alloc-tx_alloc),
        [ok](other.md#notes-1), [ok](#local), [ok](figures/a.svg),
        [ok](https://example.org/x.md#y), `[not a link](gone.md)`

        ## Local

        [gone](gone.md) and [no anchor](other.md#notes-2) and [self](#nope)
        """)
    assert errors == [
        "docs/page.md:7: link to a missing anchor: #nope",
        "docs/page.md:7: link to a missing anchor: other.md#notes-2",
        "docs/page.md:7: link to a missing file: gone.md",
    ]


def test_make_targets_must_be_defined_by_the_makefile(tree):
    errors = errors_of(tree, """\
        Run `make run RUN_ARGS='--smp 4'`, `make -j2 lint bench-net` and
        `make
        bench-gone`; make sure prose is not read.

        ```sh
        make run   # make anything in a comment
        make -C build nothere V=1
        ```

        Indented:

            FRAG_ROUNDS=3 make missing-too
        """)
    assert errors == [
        "docs/page.md:2: `make bench-gone`: no such target",
        "docs/page.md:7: `make nothere`: no such target",
        "docs/page.md:12: `make missing-too`: no such target",
    ]


def test_the_command_exits_1_on_a_stale_name_and_0_when_clean(tree):
    tool = os.path.join(ROOT, "tools", "check-docs")
    (tree / "README.md").write_text("See net/net_poll.c and `make run`.\n")
    (tree / "docs/page.md").write_text("# Page\n\nnet/netif_glue.c\n")
    ok = subprocess.run([tool, "--root", str(tree)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout
    (tree / "docs/page.md").write_text("# Page\n\nnet/netif.c\n")
    bad = subprocess.run([tool, "--root", str(tree)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "docs/page.md:3: no such path in the tree: net/netif.c" in bad.stdout


def test_a_doc_planted_beside_this_tree_fails_on_its_stale_path(tmp_path):
    """The real tree, its Makefile and folders: the file net/netif.c was
    renamed net/netif_glue.c, and a doc that still names it fails."""
    doc = tmp_path / "planted.md"
    doc.write_text("The glue: net/netif_glue.c, apps/www/, `make lint`.\n")
    assert check_docs.check_docs(ROOT, [str(doc)])[0] == []
    doc.write_text("The glue: net/netif.c.\n")
    errors, _ = check_docs.check_docs(ROOT, [str(doc)])
    assert errors == [f"{doc}:1: no such path in the tree: net/netif.c"]
