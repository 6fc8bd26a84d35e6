"""Shared matplotlib set-up for tools/plot-bench and tools/mm-plot.

Every figure is written twice, PNG (for quick looking) and SVG (for the
docs), with deterministic SVG output: text stays text, no timestamp, fixed
element ids, so regenerating an unchanged figure changes no byte.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
OURS = "#1d3557"   # our allocators, everywhere
SEED = "#b0b0b0"   # the seed discussions' figures (another machine, another year)
GOAL = "#b3261e"   # goal lines

plt.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "netkernel",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "figure.dpi": 110,
})


def save(fig, out_dir, name, written):
    """Writes out_dir/name.png and .svg; appends both paths to written."""
    os.makedirs(out_dir, exist_ok=True)
    fig.tight_layout()
    for ext in ("png", "svg"):
        path = os.path.join(out_dir, "%s.%s" % (name, ext))
        meta = {"Date": None} if ext == "svg" else {"Software": None}
        fig.savefig(path, metadata=meta)
        written.append(path)
    plt.close(fig)


def figure(w=7.0, h=3.6, nrows=1, ncols=1, **kw):
    return plt.subplots(nrows, ncols, figsize=(w, h), squeeze=False, **kw)


def note(fig, text):
    """A source line under the figure: what was measured, where."""
    fig.text(0.01, 0.005, text, fontsize=7, color="#5c6577", ha="left", va="bottom")


def close_all():
    """Drops every open figure (one left half-drawn by a failed chart)."""
    plt.close("all")
