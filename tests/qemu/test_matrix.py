"""make matrix's quick subset (tools/matrix --quick): a few machine shapes
booted, each checked for its boot report, selftest=mm,smp,irq and the
network, and the table written. The whole list is `make matrix`."""
import json
import os
import subprocess

from conftest import ROOT


def test_quick_matrix_boots_every_shape_and_writes_its_table(tmp_path):
    out = str(tmp_path / "matrix")
    r = subprocess.run([os.path.join(ROOT, "tools", "matrix"), "--quick", "--out", out],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    with open(out + ".json") as f:
        rows = json.load(f)["shapes"]
    assert len(rows) >= 5 and all(row["ok"] for row in rows), rows
    # the -kernel shapes were timed; the ISO and PXE ones only networked
    assert all(row["boot_s"] for row in rows if row["way"] == "kernel")
    with open(out + ".md") as f:
        table = f.read()
    assert "| 4cpu-2node | 4 | 2 | 1024 MiB |" in table, table
