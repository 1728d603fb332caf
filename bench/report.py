#!/usr/bin/env python3
"""Writes the section of the host a poolgrad_bench run was made on into docs/performance.md (and, through
bench/plot.py, its chart docs/performance-<host>.png) from the run's results directory (results.csv,
run.json, and meta.json written by scripts/bench.sh). The page keeps one section per host, keyed by CPU
model, widest ISA and L3 size: a run replaces its own host's section and keeps the others.

    python3 bench/report.py [--results build/bench/results] [--cache-results build/bench/results-cache]
                            [--one-thread-results build/bench/results-1thread]
                            [--scaling-results build/bench/scaling (scripts/bench_scaling.sh's threads-N runs)]
                            [--md docs/performance.md] [--png FILE] [--note TEXT]
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The peer figures quoted in the issue (2 cores, f32, ms, warm / cold), measured on another machine "like
# ours": shown next to this run's peers as a sanity check of the machine's state.
ISSUE_FIGURES = {
    "A": {"torch": "0.71 / 1.10", "onednn best": "0.26 / 0.90 (ndhwc)", "onednn plain": "3.70 / 3.84"},
    "B": {"torch": "0.64 / 1.12", "onednn best": "0.74 / 1.43", "onednn plain": "3.89 / 3.87"},
    "C1": {"torch": "0.14 / 0.58", "onednn best": "0.37 / 1.38", "onednn plain": "0.28 / 0.70"},
    "C2": {"torch": "0.64 / 0.96", "onednn best": "0.25 / 0.84", "onednn plain": "3.79 / 3.89"},
    "D": {"torch": "4.06 (NCHW), 5.20 (NHWC)", "onednn best": "2.60 (blocked), 2.71 (nhwc)", "onednn plain": "4.29"},
    "E": {"torch": "0.12 / 0.67", "onednn best": "0.32 (blocked)", "onednn plain": "0.70"},
}


def load(results_dir):
    with open(os.path.join(results_dir, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(results_dir, "run.json")) as f:
        run = json.load(f)
    meta = {}
    meta_path = os.path.join(results_dir, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
    return rows, run, meta


def organise(rows):
    """cases: ordered list of dicts {name, op, dt, tag, problem, bytes, contenders: {name: {...}}, skipped: []}."""
    cases, by_name = [], {}
    for r in rows:
        name = r["case"]
        if name not in by_name:
            by_name[name] = {
                "name": name, "op": r["op"], "dir": r["dir"], "dt": r["dt"], "tag": r["tag"],
                "problem": r["problem"], "bytes": float(r["bytes"]), "contenders": {}, "order": [], "skipped": [],
            }
            cases.append(by_name[name])
        case = by_name[name]
        if r["mode"] == "skipped":
            case["skipped"].append((r["contender"], r["note"]))
            continue
        c = case["contenders"].get(r["contender"])
        if c is None:
            c = {"name": r["contender"], "family": r["family"], "headline": r["headline"] == "1",
                 "check": r["check"], "note": r["note"], "traffic": float(r.get("traffic_bytes") or 0)}
            case["contenders"][r["contender"]] = c
            case["order"].append(r["contender"])
        c[r["mode"]] = {"reps": int(r["reps"]), "median": float(r["median_ms"]), "min": float(r["min_ms"]),
                        "gbps": float(r["gbps"]), "pct": float(r["pct_copy"])}
    return cases


def headline(case):
    for name in case["order"]:
        if case["contenders"][name]["headline"]:
            return case["contenders"][name]
    return None


def best_of(case, family, mode, exclude=()):
    best = None
    for name in case["order"]:
        c = case["contenders"][name]
        if c["family"] != family or name in exclude or mode not in c:
            continue
        if best is None or c[mode]["median"] < best[mode]["median"]:
            best = c
    return best


def plain_onednn(case):
    for name in case["order"]:
        c = case["contenders"][name]
        if c["family"] == "onednn" and name.split(":")[1] in ("ncdhw", "nchw"):
            return c
    return None


def fmt(x, digits=3):
    return "–" if x is None else f"{x:.{digits}f}"


def ms_pair(c, stat="median"):
    if c is None:
        return "–"
    w, k = c.get("warm"), c.get("cold")
    return f"{fmt(w[stat] if w else None)} / {fmt(k[stat] if k else None)}"


def ratio_pair(peer, head):
    if peer is None or head is None:
        return "–"
    parts = []
    for mode in ("warm", "cold"):
        if mode in peer and mode in head and head[mode]["median"] > 0:
            parts.append(f"{peer[mode]['median'] / head[mode]['median']:.2f}")
        else:
            parts.append("–")
    return " / ".join(parts)


def describe_case(case):
    op = case["op"]
    return f"{op} {case['dt']} {case['tag']}"


def cache_resident_section(cases, run, cache_dir):
    """The cache-resident companions (bench/cache_resident_cases.txt, one thread, warm) beside their standard
    cases: their time scaled to the standard case is the computation alone, to set against the DRAM floor."""
    if not cache_dir or not os.path.exists(os.path.join(cache_dir, "results.csv")):
        return []
    cache_rows, cache_run, _ = load(cache_dir)
    standard = {c["name"]: c for c in cases}
    threads = max(1, int(run.get("threads") or 1))
    dram = dram_reference(run)
    L = ["## Computation alone: the cache-resident companions", "",
         f"Each standard case X has a companion `X-cache` (bench/cache_resident_cases.txt: the same plane geometry, "
         f"layout and dtype, fewer planes, every operand in the L2 or L3), run warm on one thread "
         f"({cache_run['date']}). Its fastest repetition (the computation with the least interference: this VM "
         "has runs where a contender's median is twice its minimum while the others are steady), scaled to X's bytes "
         f"and divided by this run's {threads} threads, is what "
         "X would take if memory were free: when it approaches or passes X's DRAM floor, the case is bound by "
         "instructions, not by bandwidth, and the measured time is close to computation + floor when the two do "
         "not overlap. The same scaling is shown for the peers (cache-resident ms in brackets).", "",
         "| case | poolgrad cache-resident, 1 thread | poolgrad computation at X's size | X's DRAM floor | computation + floor "
         "| X measured (warm / cold) | PyTorch computation at X's size | oneDNN best computation at X's size |",
         "|---|--:|--:|--:|--:|--:|--:|--:|"]
    other = []
    for companion in organise(cache_rows):
        name = companion["name"]
        if not name.endswith("-cache") or name[: -len("-cache")] not in standard:
            continue
        case = standard[name[: -len("-cache")]]
        scale = case["bytes"] / companion["bytes"] / threads
        floor = case["bytes"] / (dram * 1e9) * 1e3

        def scaled(contender):
            if contender is None or "warm" not in contender:
                return "–"
            return f"{contender['warm']['min'] * scale:.2f} ({contender['warm']['min']:.3f})"

        mine = headline(companion)
        if mine is None or "warm" not in mine:
            continue
        # Plans choose by size: a companion may dispatch another implementation than its case does. Its
        # forced row of the case's implementation (the companions run every implementation) is then used.
        own, companions = dispatched(headline(case)), dispatched(mine)
        mark = ""
        if own and companions and own != companions:
            forced = companion["contenders"].get("poolgrad:" + own)
            if forced is not None and "warm" in forced:
                mine = forced
                other.append(f"{case['name']} runs `{own}`, its companion dispatches `{companions}`: the row is "
                             f"`{own}`'s, forced on the companion")
            else:
                other.append(f"{case['name']} runs `{own}`, its companion `{companions}`: the row is the companion's")
            mark = " †"
        computation = mine["warm"]["min"] * scale
        L.append(f"| {case['name']}{mark} | {mine['warm']['min']:.3f} | {computation:.2f} | {floor:.2f} | "
                 f"{computation + floor:.2f} | {ms_pair(headline(case))} | "
                 f"{scaled(best_of(companion, 'torch', 'warm'))} | {scaled(best_of(companion, 'onednn', 'warm'))} |")
    L.append("")
    if other:
        L.extend(["† The plan chose another implementation for the companion than for the case itself (plans choose "
                  "by size): " + "; ".join(other) + ".", ""])
    return L


def streaming_section(cases):
    """The cases whose headline streams its output past the caches, beside the same dispatch with ordinary
    stores (the bench's `poolgrad:streaming-never` row): the trade poolgradSetStreamingStores lets users make."""
    rows = [(case, headline(case), case["contenders"].get("poolgrad:streaming-never")) for case in cases]
    rows = [(case, head, never) for case, head, never in rows if head is not None and never is not None]
    if not rows:
        return []
    L = ["### Streaming stores or ordinary stores", "",
         "Where poolgrad's headline writes its output with streaming stores (automatic: outputs over 4 MiB, a forward's values and indices over 2 MiB together), the "
         "same dispatch ran with ordinary stores too (`poolgradSetStreamingStores(POOLGRAD_STREAMING_STORES_NEVER)`"
         ", `POOLGRAD_STREAMING_STORES=never`; row `poolgrad:streaming-never`). Warm, the operands are in the "
         "last-level cache and ordinary stores leave the output there; cold, every output line is first read "
         "from memory and evicts dirty lines. Times in ms, warm / cold medians; ratios as in the summary.", "",
         "| case | automatic (headline) | never | never / automatic | oneDNN best | vs oneDNN: automatic | "
         "vs oneDNN: never | PyTorch | vs PyTorch: automatic | vs PyTorch: never |",
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for case, head, never in rows:
        best = best_of(case, "onednn", "cold") or best_of(case, "onednn", "warm")
        torch = best_of(case, "torch", "cold") or best_of(case, "torch", "warm")
        L.append(f"| {case['name']} | {ms_pair(head)} | {ms_pair(never)} | {ratio_pair(never, head)} | "
                 f"{ms_pair(best)} | {ratio_pair(best, head)} | {ratio_pair(best, never)} | {ms_pair(torch)} | "
                 f"{ratio_pair(torch, head)} | {ratio_pair(torch, never)} |")
    L.append("")
    return L


def dispatched(contender):
    """The implementation poolgrad's headline dispatched, from its note ('dispatched: NAME')."""
    if contender is None:
        return None
    note = contender.get("note") or ""
    return note.split("dispatched: ")[1].split(";")[0].split(",")[0].strip() if "dispatched: " in note else None


def thread_scaling_section(cases, run, one_thread_dir):
    """The standard set on one thread (scripts/bench.sh's third pass) beside the main run: how much each
    contender gains from the main run's threads, and the ratios to the peers on one thread."""
    if not one_thread_dir or not os.path.exists(os.path.join(one_thread_dir, "results.csv")):
        return []
    single_rows, single_run, _ = load(one_thread_dir)
    single = {c["name"]: c for c in organise(single_rows)}
    threads = int(run.get("threads") or 1)
    if threads <= 1:
        return []

    L = [f"### Threads: 1 and {threads}", "",
         f"The standard set again on one thread ({single_run['date']}; `poolgrad_bench {single_run['arguments']}`). "
         f"**gain** = time on 1 thread / time on {threads} (warm / cold; {threads}.00 is perfect scaling). Each "
         "contender's gain comes from its own split of the work; a case bound by DRAM bandwidth gains less "
         "than one bound by instructions. The ratio columns are peer / poolgrad on one thread.", "",
         f"| case | poolgrad 1 thread | poolgrad gain | PyTorch 1 thread | PyTorch gain | vs PyTorch (1 thread) "
         "| oneDNN best 1 thread (layout) | oneDNN best gain | vs oneDNN best (1 thread) |",
         "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for case in cases:
        one = single.get(case["name"])
        if one is None:
            continue
        head1, head = headline(one), headline(case)
        torch1 = best_of(one, "torch", "cold") or best_of(one, "torch", "warm")
        torch = best_of(case, "torch", "cold") or best_of(case, "torch", "warm")
        best1 = best_of(one, "onednn", "cold") or best_of(one, "onednn", "warm")
        best = case["contenders"].get(best1["name"]) if best1 else None
        best_name = f" ({best1['name'].split(':')[1]})" if best1 else ""
        L.append(f"| {case['name']} | {ms_pair(head1)} | {ratio_pair(head1, head)} | {ms_pair(torch1)} | "
                 f"{ratio_pair(torch1, torch)} | {ratio_pair(torch1, head1)} | {ms_pair(best1)}{best_name} | "
                 f"{ratio_pair(best1, best)} | {ratio_pair(best1, head1)} |")
    L.append("")
    return L


def scaling_section(cases, run, scaling_dir):
    """scripts/bench_scaling.sh's runs (DIR/threads-N): each library's time at every thread count it ran, for
    the cases the runs between one thread and all share, and the gain from one thread to the most."""
    if not scaling_dir or not os.path.isdir(scaling_dir):
        return []
    runs = {}
    for entry in os.listdir(scaling_dir):
        path = os.path.join(scaling_dir, entry)
        if entry.startswith("threads-") and os.path.exists(os.path.join(path, "results.csv")):
            runs[int(entry.split("-")[1])] = {c["name"]: c for c in organise(load(path)[0])}
    counts = sorted(runs)
    if len(counts) < 3:
        return []  # one thread and all of them: thread_scaling_section has those
    between = set.intersection(*(set(runs[t]) for t in counts))
    most = counts[-1]
    L = [f"### Threads: {', '.join(map(str, counts))}", "",
         f"A subset of the standard set at every thread count (`scripts/bench_scaling.sh`); ms, warm / cold medians, "
         f"each library with its own split of the work (oneDNN in the layout fastest on {most} threads). "
         f"**gain** = time on 1 thread / time on {most}; with {most} threads sharing one memory system, a "
         "DRAM-bound case gains only as far as the bandwidth grows.", "",
         "| case | library | " + " | ".join(f"{t} thr" for t in counts) + f" | gain 1 → {most} |",
         "|---|---|" + "--:|" * (len(counts) + 1)]
    for case in cases:
        if case["name"] not in between:
            continue
        best = best_of(runs[most][case["name"]], "onednn", "cold") or best_of(runs[most][case["name"]], "onednn", "warm")
        libraries = [("poolgrad", lambda c: headline(c)),
                     ("PyTorch", lambda c: best_of(c, "torch", "cold") or best_of(c, "torch", "warm"))]
        if best:
            libraries.append((f"oneDNN {best['name'].split(':')[1]}", lambda c: c["contenders"].get(best["name"])))
        for label, pick in libraries:
            cells = [pick(runs[t][case["name"]]) for t in counts]
            if all(c is None for c in cells):
                continue
            L.append(f"| {case['name']} | {label} | " + " | ".join(ms_pair(c) for c in cells)
                     + f" | {ratio_pair(cells[0], cells[-1])} |")
    L.append("")
    return L


def traffic_section(cases, dram):
    """The bytes each contender's own interface makes it move, and the speed ratio that bounds on DRAM."""
    L = ["### What each library's interface makes it move", ""]
    L.append("When a case is DRAM-bound, a contender cannot beat its operands' bytes divided by the bandwidth. "
             "poolgrad's operands are CANN's (INT32 indices; MaxPoolV3Grad reads origInput and origOutput, having no "
             "indices), PyTorch's are INT64 indices, oneDNN's a workspace of 1 byte per output. **cap** = peer "
             "bytes / poolgrad bytes: the highest cold ratio poolgrad can reach when both run at the same bandwidth "
             "(write-allocate reads of ordinary stores, which poolgrad avoids with streaming stores where the output "
             "exceeds the cache, can move a peer's real traffic above its operands). **cold %floor** = each "
             "contender's own bytes / DRAM copy bandwidth, over its cold median: how close it came to its own floor.")
    L.append("")
    L.append("| case | poolgrad MB | poolgrad cold %floor | PyTorch MB | cap vs PyTorch | PyTorch cold %floor | "
             "oneDNN best MB (layout) | cap vs oneDNN best | oneDNN cold %floor |")
    L.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|")

    def pct_floor(c):
        if not c or not c.get("traffic") or "cold" not in c:
            return "–"
        return f"{100 * c['traffic'] / (dram * 1e9) * 1e3 / c['cold']['median']:.0f}%"

    for case in cases:
        head = headline(case)
        if not head or not head.get("traffic"):
            continue
        torch = best_of(case, "torch", "cold") or best_of(case, "torch", "warm")
        best = best_of(case, "onednn", "cold") or best_of(case, "onednn", "warm")
        ours = head["traffic"]

        def cells(peer, with_layout=False):
            if not peer or not peer.get("traffic"):
                return "– | – | –"
            layout = f" ({peer['name'].split(':')[1]})" if with_layout else ""
            return f"{peer['traffic'] / 1e6:.1f}{layout} | {peer['traffic'] / ours:.2f} | {pct_floor(peer)}"

        L.append(f"| {case['name']} | {ours / 1e6:.1f} | {pct_floor(head)} | {cells(torch)} | {cells(best, True)} |")
    L.append("")
    return L


def best_isa(run):
    """The widest vector extension the host has, as its key says it: from the driver's ISA flags, or (older
    runs) from oneDNN's chosen ISA."""
    flags = (run.get("isa_flags") or "").split()
    for flag in ("avx512_fp16", "avx512_bf16", "avx512f", "avx2"):
        if flag in flags:
            return flag
    version = run.get("onednn_version") or ""
    return version.split("ISA ")[1].rstrip(")") if "ISA " in version else "unknown ISA"


def host_key(run):
    """One section per host: CPU model + widest ISA + L3 size (hosts of one machine kind differ in these)."""
    l3 = run.get("l3_bytes") or run["last_level_cache_bytes"]
    return f"{run['cpu']} · {best_isa(run)} · L3 {l3 / 2**20:.0f} MiB"


def host_slug(key):
    slug = "".join(ch if ch.isalnum() else "-" for ch in key.lower())
    while "--" in slug:
        slug = slug.replace("--", "-")
    return slug.strip("-")


def github_anchor(heading):
    """The fragment a Markdown renderer (GitHub's rules) gives a heading."""
    kept = "".join(ch for ch in heading.lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


SECTION_BEGIN = "<!-- host-section: "
SECTION_END = "<!-- end host-section -->"


def demote(lines):
    """Headings one level down: a whole former page becomes one host's section."""
    return ["#" + line if line.startswith("#") else line for line in lines]


def kept_sections(md_path):
    """The host sections of the existing page, {key: (date, text)}. A page from before the per-host layout
    (no section markers) is one section: its machine, run and results text kept verbatim (headings one
    level down), less the parts that are now page-wide (Commands; the hand-written Targets, which
    bench/analysis.md keeps)."""
    if not os.path.exists(md_path):
        return {}
    with open(md_path, encoding="utf-8") as handle:
        text = handle.read()
    sections = {}
    if SECTION_BEGIN in text:
        for chunk in text.split(SECTION_BEGIN)[1:]:
            header, _, body = chunk.partition(" -->\n")
            key, _, date = header.partition(" | ")
            sections[key] = (date, SECTION_BEGIN + chunk.split(SECTION_END)[0] + SECTION_END)
        return sections
    if "## Machine and run" not in text:
        return {}
    body = text[text.index("## Machine and run"):].splitlines()
    cpu_line = next((l for l in body if l.startswith("| CPU | ")), "")
    versions = next((l for l in body if l.startswith("| versions | ")), "")
    run_line = next((l for l in body if l.startswith("| run | ")), "")
    cpu = cpu_line[len("| CPU | "):].split(",")[0]
    l3 = cpu_line.split("last-level cache ")[1].split(" ")[0] if "last-level cache " in cpu_line else "?"
    isa = versions.split("ISA ")[1].split(")")[0] if "ISA " in versions else "unknown ISA"
    key = f"{cpu} · {isa} · L3 {l3} MiB"
    date = run_line[len("| run | "):].split(",")[0]
    kept, skip = [], False
    for line in body:
        if line.startswith("## "):
            skip = line in ("## Commands", "## Targets: met and missed")
        if not skip:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    L = [f"{SECTION_BEGIN}{key} | {date} -->", f"## Host: {key}", "",
         f"Measured {date} with Debian's libtorch 1.13 as the PyTorch peer, before the report kept one section "
         "per host; this host's ISA flags, Highway target and L1/L2 sizes were not recorded then (oneDNN chose "
         f"{isa}). The text below is that run's report as it was.", ""]
    L += demote(kept)
    L += ["", SECTION_END]
    sections[key] = (date, "\n".join(L))
    return sections


def copy_fits_in_l3(run):
    """Both copy buffers within the L3: the run's 'DRAM' copy at the start read the cache (runs before the
    buffers grew with the cache: 128 MiB on the 260 and 300 MiB L3 hosts)."""
    l3 = run.get("l3_bytes") or run.get("last_level_cache_bytes") or 0
    return 2 * run["copy_dram_bytes"] <= l3 and run.get("copy_dram_gbps_during_cases", 0) > 0


def dram_reference(run):
    """The DRAM copy bandwidth every %copy and floor divides by."""
    return run["copy_dram_gbps_during_cases"] if copy_fits_in_l3(run) else run["copy_dram_gbps"]


def host_section(cases, run, meta, key, png_name, chart_ok, cache_dir, note, one_thread_dir=None, scaling_dir=None):
    dram = dram_reference(run)
    if dram != run["copy_dram_gbps"]:
        # The driver's own %copy columns divide by the start figure: recompute them with the reference.
        for case in cases:
            for c in case["contenders"].values():
                for mode in ("warm", "cold"):
                    if mode in c:
                        c[mode]["pct"] = 100.0 * c[mode]["gbps"] / dram
    load1 = float(meta["load"].split()[0]) if meta.get("load") else None
    L = [f"{SECTION_BEGIN}{key} | {run['date']} -->", f"## Host: {key}", ""]
    if load1 is not None and load1 >= 1.0:
        L.append(f"**Measured under load** (load average {meta['load']} before the run on "
                 f"{run['processors']} processors): other processes took CPU time from every contender, so the "
                 "times are long and noisy; compare ratios within this section, and prefer a quiet run.")
        L.append("")
    if note:
        L.append(note)
        L.append("")
    L.append("### Machine and run")
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    caches = (f"L1d {run['l1d_bytes'] >> 10} KiB, L2 {run['l2_bytes'] >> 10} KiB, L3 {run['l3_bytes'] >> 20} MiB "
              "(one instance each, as the VM reports them)" if run.get("l3_bytes") else
              f"last-level cache {run['last_level_cache_bytes'] / 2**20:.0f} MiB (as the VM reports it)")
    L.append(f"| CPU | {run['cpu']}, {run['processors']} processors; {caches} |")
    if run.get("isa_flags"):
        L.append(f"| ISA extensions | {run['isa_flags']} |")
    simd = []
    if run.get("highway_target"):
        simd.append(f"poolgrad (Highway dispatch) **{run['highway_target']}** (compiled: {run['highway_compiled']})")
    if run.get("onednn_version") and "ISA " in run["onednn_version"]:
        simd.append(f"oneDNN **{run['onednn_version'].split('ISA ')[1].rstrip(')')}**")
    details = run.get("torch_details") or ""
    if "CPU capability " in details:
        simd.append(f"PyTorch **{details.split('CPU capability ')[1].split(';')[0]}**")
    if simd:
        L.append(f"| SIMD each library chose | {'; '.join(simd)} |")
    L.append(f"| threads | {run['threads']} for every contender (poolgradSetNumThreads, at::set_num_threads, "
             f"omp_set_num_threads for oneDNN), one OpenMP runtime"
             + (f" ({run['openmp_library']})" if run.get("openmp_library") else "")
             + (f"; environment: `{run['openmp_environment']}`" if run.get("openmp_environment") else "") + " |")
    if copy_fits_in_l3(run):
        L.append(f"| copy bandwidth (read + write; medians, best in brackets) | **DRAM {dram:.1f} GB/s**, the copies "
                 f"between the cases (after each case's cache flush): the reference for %copy and the floors. The "
                 f"copy at the start, {run['copy_dram_gbps']:.1f} GB/s ({run.get('copy_dram_gbps_best', 0):.1f}), "
                 f"ran on {run['copy_dram_bytes'] >> 20} MiB buffers that the L3 held (a driver before the buffers "
                 f"grew with the cache); {run['copy_dram_gbps_end']:.1f} GB/s at the end; L3-warm "
                 f"{run['copy_l3_gbps']:.1f} GB/s ({run.get('copy_l3_gbps_best', run['copy_l3_gbps']):.1f}; "
                 f"{run['copy_l3_bytes'] >> 10} KiB buffers) |")
    else:
        L.append(f"| copy bandwidth (read + write; medians, best in brackets) | **DRAM {dram:.1f} GB/s** "
             f"({run.get('copy_dram_gbps_best', dram):.1f}; {run['copy_dram_bytes'] >> 20} MiB buffers; the reference "
             f"for %copy; {run['copy_dram_gbps_during_cases']:.1f} GB/s during the cases, "
             f"{run['copy_dram_gbps_end']:.1f} GB/s at the end), L3-warm {run['copy_l3_gbps']:.1f} GB/s "
             f"({run.get('copy_l3_gbps_best', run['copy_l3_gbps']):.1f}; {run['copy_l3_bytes'] >> 10} KiB buffers) |")
    versions = f"poolgrad {run['poolgrad_version']}"
    if meta.get("commit"):
        versions += f" (commit {meta['commit']}{', modified tree' if meta.get('dirty') else ''})"
    versions += "; PyTorch " + (run["torch_version"] or "**not built**")
    if meta.get("torch_origin"):
        versions += f" ({meta['torch_origin']})"
    elif meta.get("torch_package"):
        versions += f" (Debian {meta['torch_package']})"
    versions += "; oneDNN " + (run["onednn_version"] or "**not built**")
    if run.get("onednn_version") and meta.get("onednn_origin"):
        versions += f" ({meta['onednn_origin']})"
    L.append(f"| versions | {versions} |")
    if meta.get("compiler"):
        L.append(f"| build | {meta['compiler']}, Release (-O3), build/bench |")
    L.append(f"| run | {run['date']}, {run['elapsed_s']:.0f} s for {len(cases)} cases "
             f"(`poolgrad_bench {run['arguments']}`); {run['budget_ms']:.0f} ms per contender and mode, "
             f"{run['min_reps']}–{run['max_reps']} repetitions, {run.get('time_limit_s', 0):.0f} s limit; cold: "
             f"{run['flush_bytes'] >> 20} MiB flush |")
    if run.get("cases_with_fewer_reps"):
        L.append(f"| **warning** | {run['cases_with_fewer_reps']} of {len(cases)} cases ran fewer repetitions than "
                 f"planned to fit the {run['time_limit_s']:.0f} s time limit: the machine was slow or busy |")
    if load1 is not None:
        busy = (f" — **the machine was busy**: other processes competed for the {run['processors']} processors, so "
                "every multi-threaded call waited for CPU time and the figures are noise-dominated") if load1 >= 0.5 else ""
        L.append(f"| load average before the run | {meta['load']}{busy} |")
    L.append("")
    L.append("### Summary")
    L.append("")
    torch_name = f"PyTorch {run['torch_version']}" if run.get("torch_version") else "PyTorch"
    L.append(f"Times in ms, **warm / cold** medians. Ratio columns: peer / poolgrad (above 1: poolgrad faster).")
    L.append("")
    L.append(f"| case | operator | dt | layout | MB | floor ms | poolgrad | GB/s (cold) | %copy (cold) | {torch_name} | "
             "vs PyTorch | oneDNN best (layout) | vs oneDNN best | oneDNN plain | vs oneDNN plain |")
    L.append("|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for case in cases:
        head = headline(case)
        torch = best_of(case, "torch", "cold") or best_of(case, "torch", "warm")
        best = best_of(case, "onednn", "cold") or best_of(case, "onednn", "warm")
        plain = plain_onednn(case)
        floor = case["bytes"] / (dram * 1e9) * 1e3
        cold = head.get("cold") if head else None
        best_name = f" ({best['name'].split(':')[1]})" if best else ""
        L.append(f"| {case['name']} | {case['op']} | {case['dt']} | {case['tag']} | {case['bytes'] / 1e6:.1f} | "
                 f"{floor:.2f} | **{ms_pair(head)}** | {fmt(cold['gbps'] if cold else None, 1)} | "
                 f"{fmt(cold['pct'] if cold else None, 0)}% | {ms_pair(torch)} | {ratio_pair(torch, head)} | "
                 f"{ms_pair(best)}{best_name} | {ratio_pair(best, head)} | {ms_pair(plain)} | {ratio_pair(plain, head)} |")
    L.append("")
    if chart_ok:
        L.append(f"![time per case on this host: poolgrad vs peers]({png_name})")
        L.append("")
        L.append(f"`{png_name}`: median time per case (log scale), warm and cold, poolgrad's headline against "
                 "PyTorch and oneDNN (best layout and plain); the tick marks the DRAM floor.")
    else:
        L.append("*(chart not generated: matplotlib was not available)*")
    L.append("")
    L.extend(traffic_section(cases, dram))
    L.extend(streaming_section(cases))
    L.extend(demote(cache_resident_section(cases, run, cache_dir)))
    L.extend(thread_scaling_section(cases, run, one_thread_dir))
    L.extend(scaling_section(cases, run, scaling_dir))
    issue_cases = [c for c in cases if c["name"] in ISSUE_FIGURES]
    if issue_cases:
        L.append("#### The peers here and in the issue")
        L.append("")
        L.append("The issue quotes peer figures (libtorch 1.13, oneDNN 2.6) from another machine \"like ours\" "
                 "(warm / cold ms). Large gaps mean this run's machine was busier, slower or differently "
                 "equipped; compare ratios within one run, not across runs.")
        L.append("")
        L.append("| case | PyTorch: issue | PyTorch: this run | oneDNN best: issue | oneDNN best: this run | "
                 "oneDNN plain: issue | oneDNN plain: this run |")
        L.append("|---|--:|--:|--:|--:|--:|--:|")
        for case in issue_cases:
            fig = ISSUE_FIGURES[case["name"]]
            torch = best_of(case, "torch", "cold") or best_of(case, "torch", "warm")
            best = best_of(case, "onednn", "cold") or best_of(case, "onednn", "warm")
            best_name = f" ({best['name'].split(':')[1]})" if best else ""
            L.append(f"| {case['name']} | {fig['torch']} | {ms_pair(torch)} | {fig['onednn best']} | "
                     f"{ms_pair(best)}{best_name} | {fig['onednn plain']} | {ms_pair(plain_onednn(case))} |")
        L.append("")
    L.append("### Every contender")
    L.append("")
    for case in cases:
        floor = case["bytes"] / (dram * 1e9) * 1e3
        L.append(f"#### {case['name']}: {case['op']} {case['dt']} {case['tag']}")
        L.append("")
        L.append(f"`{case['problem']}` — {case['bytes'] / 1e6:.2f} MB, DRAM floor {floor:.3f} ms")
        L.append("")
        L.append("| contender | warm median | warm min | warm GB/s | warm %copy | cold median | cold min | cold GB/s | "
                 "cold %copy | peer / poolgrad (warm / cold) | reps (w/c) | check | notes |")
        L.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|")
        head = headline(case)
        for name in case["order"]:
            c = case["contenders"][name]
            w, k = c.get("warm"), c.get("cold")
            label = f"**{name}**" if c["headline"] else name
            ratio = "–" if c["headline"] else ratio_pair(c, head)
            L.append(f"| {label} | {fmt(w and w['median'])} | {fmt(w and w['min'])} | {fmt(w and w['gbps'], 1)} | "
                     f"{fmt(w and w['pct'], 0)}% | {fmt(k and k['median'])} | {fmt(k and k['min'])} | "
                     f"{fmt(k and k['gbps'], 1)} | {fmt(k and k['pct'], 0)}% | {ratio} | "
                     f"{w['reps'] if w else '–'}/{k['reps'] if k else '–'} | {c['check']} | {c['note']} |")
        for name, reason in case["skipped"]:
            L.append(f"| {name} | | | | | | | | | | | skipped | {reason} |")
        L.append("")
    while L and not L[-1].strip():
        L.pop()
    L.append("")
    L.append(SECTION_END)
    return "\n".join(L)


def write_markdown(sections, md_path):
    """The page: what is measured and how, then one section per host (newest run first)."""
    L = []
    L.append("# Performance")
    L.append("")
    L.append("<!-- Generated by bench/report.py from poolgrad_bench runs; do not edit by hand. scripts/bench.sh "
             "(measure + report) replaces the section of the host it runs on and keeps the others; "
             "scripts/bench.sh --report-only rewrites that section from build/bench/results. -->")
    L.append("")
    L.append("poolgrad's operators are memory-bound: the floor of a call is the bytes it must move divided by the "
             "memory bandwidth. This page measures poolgrad and its peers — PyTorch (libtorch, ATen CPU kernels) and "
             "oneDNN — on the same data in the same run, next to a STREAM-style copy that measures the host's "
             "bandwidth in that run. Machines of one kind differ from host to host (vector width, cache sizes), "
             "so the page keeps **one section per host** (CPU model, widest ISA, L3 size), each from that host's "
             "last run; compare figures within a section, not across sections.")
    L.append("")
    L.append("| host (section) | last run | PyTorch peer |")
    L.append("|---|---|---|")
    ordered = sorted(sections.items(), key=lambda item: item[1][0], reverse=True)
    for key, (date, text) in ordered:
        torch = "?"
        for line in text.splitlines():
            if line.startswith("| versions | "):
                torch = line.split("; ")[1] if "; " in line else "?"
                torch = torch.replace("libtorch ", "PyTorch ")
                break
        anchor = github_anchor(f"Host: {key}")
        L.append(f"| [{key}](#{anchor}) | {date} | {torch} |")
    L.append("")
    L.append("## Commands")
    L.append("")
    L.append("```sh")
    L.append("scripts/bench.sh                 # install peers if missing, build build/bench, run the standard set, "
             "write this host's section")
    L.append("scripts/bench.sh --report-only   # rewrite this host's section and chart from build/bench/results")
    L.append("scripts/bench.sh --quick         # a shorter run (fewer repetitions), for trying things")
    L.append("scripts/bench_scaling.sh         # many cores: a built driver at 1, 2, 4, ... threads, then this host's "
             "section")
    L.append("build/bench/bench/poolgrad_bench --cases bench/standard_cases.txt --only A,D   # some cases, console only")
    L.append("build/bench/bench/poolgrad_bench \"--op=max3d --dt=bf16 mb2ic32_id16ih64iw64_kd2sd2\"  # one descriptor")
    L.append("```")
    L.append("")
    L.append("Cases are benchdnn-style one-line descriptors in `bench/standard_cases.txt`; the grammar, every "
             "option and the settings each peer runs with are in `bench/README.md`.")
    L.append("")
    L.append("## Method")
    L.append("")
    L.append("- **Bytes** per case: backward = gradOutput + indices + gradInput (MaxPoolV3Grad, which has no "
             "indices: origInput + origOutput + grad + outGrad); forward = input + output + indices "
             "(MaxPoolV3WithAttrs: input + output). poolgrad's indices are INT32. Every contender's GB/s uses these "
             "same bytes (PyTorch actually moves INT64 indices, oneDNN a 1-byte workspace), so GB/s and %copy "
             "compare times, not traffic. **%copy** = GB/s / the DRAM copy bandwidth of this run (a multi-threaded "
             "memcpy between two buffers of max(128 MiB, 2 × last-level cache) each; runs before that size rule "
             "whose 128 MiB buffers fitted in the L3 use the copies measured between their cases); above 100% "
             "means the data came (partly) from cache. **floor** = bytes / DRAM copy bandwidth.")
    L.append("- **warm**: the same buffers, one untimed run right before each burst of timed runs. **cold**: a "
             "cache flush (max(4 × last-level cache, 32 MiB), written and read by every thread) before every timed "
             "run.")
    L.append("- **Threads**: the main run uses the threads its row names for every contender; scripts/bench.sh then runs "
             "the standard set again on one thread (each library's chosen kernel only), for each host's \"Threads\" "
             "table: how much each contender gains from the threads, and the ratios on one thread.")
    L.append("- Contenders run **interleaved** (round-robin, the order rotating every round) so that the machine's "
             "drift hits all of them alike; each gets a time budget per mode within a repetition range (each "
             "host's run row says which). Times are phase 2 only (poolgrad: a repeatable executor; PyTorch: the "
             "`at::…_out` call into preallocated outputs; oneDNN: `execute` of a created primitive). Medians and "
             "minimums in ms.")
    L.append("- **Ratios** are peer median / poolgrad median: above 1, poolgrad is faster.")
    L.append("- Inputs: uniform random values in [-1, 1) rounded to the case's type, the same for every contender; "
             "backward cases take their indices (oneDNN: its workspace; MaxPoolV3Grad: origOutput) from each "
             "library's own forward. **check** compares each contender's output with poolgrad's headline "
             "(f32: 1e-5 relative; f16 2e-3, bf16 1.6e-2); 16-bit inputs have ties, where libraries may pick "
             "different elements.")
    L.append("- poolgrad's **headline** is what the library dispatches; `poolgrad:<name>` rows force each other "
             "implementation of its list that accepts the case (`poolgradForceImplementation`), and "
             "`poolgrad:streaming-never` is the headline's dispatch with ordinary stores where the headline streams "
             "its output (`poolgradSetStreamingStores`).")
    L.append("- The peers run at their own best: PyTorch is the current release from PyPI (its `libtorch_cpu`, "
             "its default CPU capability), oneDNN its default ISA; all three use the same threads of one OpenMP "
             "runtime (bench/README.md, \"What each peer runs with\").")
    L.append("- oneDNN runs in plain (ncdhw/nchw), channels-last (ndhwc/nhwc) and blocked (nCdhw16c/nChw16c) "
             "layouts; non-plain layouts that only its reference code takes are left out. Adaptive cases run the "
             "regular pooling with the same windows (exact for C1 and C2). MaxPoolV3 cases are compared with the "
             "peers' indices-based 2-D max pooling on the same geometry.")
    L.append("")
    for key, (date, text) in ordered:
        L.append(text)
        L.append("")
    # Hand-written reading of the results (targets met and missed, and why), kept in bench/analysis.md.
    analysis = os.path.join(ROOT, "bench", "analysis.md")
    if os.path.exists(analysis):
        with open(analysis, encoding="utf-8") as handle:
            L.append(handle.read().rstrip())
        L.append("")
    with open(md_path, "w", encoding="utf-8") as f:
        f.write("\n".join(L))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=os.path.join(ROOT, "build", "bench", "results"))
    parser.add_argument("--cache-results", default=os.path.join(ROOT, "build", "bench", "results-cache"),
                        help="results of bench/cache_resident_cases.txt (optional)")
    parser.add_argument("--one-thread-results", default=os.path.join(ROOT, "build", "bench", "results-1thread"),
                        help="results of the standard set on one thread, for the scaling table (optional)")
    parser.add_argument("--scaling-results", help="scripts/bench_scaling.sh's directory of threads-N runs (optional)")
    parser.add_argument("--md", default=os.path.join(ROOT, "docs", "performance.md"))
    parser.add_argument("--png", help="the chart (default: performance-<host>.png beside --md)")
    parser.add_argument("--note", default="", help="a sentence for the top of this host's section")
    args = parser.parse_args()
    rows, run, meta = load(args.results)
    cases = organise(rows)
    if not cases:
        sys.exit("report.py: no results in " + args.results)
    key = host_key(run)
    run["dram_reference_gbps"] = dram_reference(run)  # for bench/plot.py's floor ticks
    png = args.png or os.path.join(os.path.dirname(os.path.abspath(args.md)), f"performance-{host_slug(key)}.png")
    sys.path.insert(0, HERE)
    chart_ok = False
    try:
        import plot
        chart_ok = plot.plot(cases, run, png)
    except ImportError as e:
        print(f"report.py: no chart ({e})", file=sys.stderr)
    sections = kept_sections(args.md)
    sections[key] = (run["date"], host_section(cases, run, meta, key,
                                               os.path.relpath(png, os.path.dirname(os.path.abspath(args.md))),
                                               chart_ok, args.cache_results, args.note,
                                               args.one_thread_results, args.scaling_results))
    write_markdown(sections, args.md)
    others = len(sections) - 1
    print(f"report.py: wrote the section of host \"{key}\" in {args.md}" + (f" and {png}" if chart_ok else " (no chart)")
          + f"; kept {others} other host section(s)")


if __name__ == "__main__":
    main()
