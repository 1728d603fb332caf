#!/usr/bin/env python3
"""A host's chart in docs/performance.md: median time per case, warm and cold, poolgrad's headline against
PyTorch and oneDNN (best layout and plain), on a log scale, with the DRAM floor marked.

Called by bench/report.py; standalone: python3 bench/plot.py [results_dir] [out.png]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

SERIES = [  # label, colour, how to pick the contender
    ("poolgrad", "#1f77b4"),
    ("PyTorch", "#d62728"),
    ("oneDNN best layout", "#2ca02c"),
    ("oneDNN plain", "#98df8a"),
]


def pick(case, label, mode):
    import report
    if label == "poolgrad":
        return report.headline(case)
    if label == "PyTorch":
        return report.best_of(case, "torch", mode)
    if label == "oneDNN best layout":
        return report.best_of(case, "onednn", mode)
    return report.plain_onednn(case)


def plot(cases, run, png_path):
    """Writes the chart; returns False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"plot.py: matplotlib is not available ({e}); no chart", file=sys.stderr)
        return False
    sys.path.insert(0, HERE)
    dram = run.get("dram_reference_gbps", run["copy_dram_gbps"])  # bench/report.py's choice of reference
    modes = [m for m in ("warm", "cold") if any(m in c for case in cases for c in case["contenders"].values())]
    n = len(cases)
    fig, axes = plt.subplots(1, len(modes), figsize=(7 * len(modes), 0.42 * n * len(SERIES) / 2 + 2), sharey=True,
                             squeeze=False)
    height = 0.8 / len(SERIES)
    for ax, mode in zip(axes[0], modes):
        for s, (label, colour) in enumerate(SERIES):
            ys, xs = [], []
            for i, case in enumerate(cases):
                c = pick(case, label, mode)
                if c is not None and mode in c:
                    ys.append(i + (s - (len(SERIES) - 1) / 2) * height)
                    xs.append(c[mode]["median"])
            ax.barh(ys, xs, height=height, color=colour, label=label)
        floors = [case["bytes"] / (dram * 1e9) * 1e3 for case in cases]
        ax.scatter(floors, range(n), marker="|", s=300, color="black", zorder=3, label=f"DRAM floor ({dram:.1f} GB/s)")
        ax.set_xscale("log")
        ax.set_xlabel("median time per call, ms (log scale)")
        ax.set_title(f"{mode}" + (" (same buffers)" if mode == "warm" else " (cache flushed before each call)"))
        ax.grid(axis="x", which="both", alpha=0.3)
        ax.set_yticks(range(n))
        ax.set_yticklabels([f"{c['name']}  {c['op']} {c['dt']} {c['tag']}" for c in cases], fontsize=8)
        ax.set_ylim(n - 0.5, -0.5)  # the y axis is shared: first case on top
    handles, labels = axes[0][0].get_legend_handles_labels()
    import report
    torch = f", PyTorch {run['torch_version']}" if run.get("torch_version") else ""
    fig.suptitle(f"poolgrad vs peers — {report.host_key(run)}, {run['threads']} threads{torch}, {run['date']}",
                 fontsize=10)
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8, bbox_to_anchor=(0.5, 0.975))
    fig.tight_layout(rect=(0, 0, 1, 0.955))
    fig.savefig(png_path, dpi=90)
    plt.close(fig)
    return True


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    import report
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(HERE), "build", "bench", "results")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(HERE), "docs", "performance.png")
    rows, run, _ = report.load(results)
    sys.exit(0 if plot(report.organise(rows), run, out) else 1)
