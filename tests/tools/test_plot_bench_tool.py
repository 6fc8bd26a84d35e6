"""tools/plot-bench on the committed bench/results.json and on results
that lack a figure: every goal is read from the committed file, and a
chart that cannot be drawn is skipped with a line saying why, never a
crash that takes the other charts with it."""
import copy
import json
import os

from tool_loader import ROOT, load_tool

tool = load_tool("plot-bench")
COMMITTED = os.path.join(ROOT, "bench", "results.json")


def committed():
    with open(COMMITTED) as f:
        return json.load(f)


def test_goals_of_the_committed_results_cover_every_qmempool_case(capsys):
    # The qmempool section holds an "instructions" table beside its cases;
    # it carries no goal and must not be read as a case.
    labels = [label for label, _ in tool.goals(committed())]
    for case in ("fastpath", "n256", "n256_deep"):
        assert "qmempool %s / rte_mempool <= 1.2" % case in labels
    assert not any("instructions" in label for label in labels)
    assert capsys.readouterr().out == ""


def test_goals_without_one_sections_figure_keep_the_others(capsys):
    r = committed()
    del r["qmempool"]["n256"]["goal_vs_slab"]
    labels = [label for label, _ in tool.goals(r)]
    assert not any(label.startswith("qmempool") for label in labels)
    assert any(label.startswith("slab fast path") for label in labels)
    assert any(label.startswith("ALF") for label in labels)
    out = capsys.readouterr().out
    assert ("bench-goals without the qmempool goals: the 'qmempool' section has no "
            "'goal_vs_slab'") in out


def test_a_chart_whose_section_lacks_a_key_is_skipped_with_a_line(tmp_path, capsys):
    r = committed()
    # two small sections keep the test short; one of them broken
    small = {"qmempool": copy.deepcopy(r["qmempool"]), "pages": r["pages"]}
    del small["qmempool"]["fastpath"]["rte_mempool"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(small))
    assert tool.main(["--results", str(path), "--out", str(tmp_path / "plots")]) == 0
    out = capsys.readouterr().out
    assert ("plot-bench: bench-qmempool skipped: the 'qmempool' section has no "
            "'rte_mempool'") in out
    assert "plot-bench: bench-slab skipped: no 'slab' section in %s" % path in out
    written = sorted(os.listdir(tmp_path / "plots"))
    assert "bench-pages.svg" in written and "bench-goals.svg" in written
    assert not any(name.startswith("bench-qmempool") for name in written)


def test_a_section_of_another_shape_is_skipped_with_a_line(tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"kernel": {"cases": [1, 2]}}))
    assert tool.main(["--results", str(path), "--out", str(tmp_path / "plots")]) == 0
    out = capsys.readouterr().out
    assert "plot-bench: bench-kernel skipped: the 'kernel' section is not in the " \
        "expected shape" in out
