# The benchmark's report: each tool's runs summarised, the Markdown tables
# of bench.py's output, and reports of several runs merged.
# Copyright (C) 2026 the afet authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench.py's report: summaries of runs, Markdown, merging JSON reports."""

import json
import statistics


def summarize(tool, setname, runs, audio_s, file_seconds):
    """Figures for the table from the runs of one tool on one set."""
    cold = next((r for r in runs if r["mode"] == "cold"), None)
    warm = [r for r in runs if r["mode"] == "warm" and "error" not in r]
    nfiles = len(file_seconds)
    s = {"tool": tool.name, "key": tool.key, "set": setname,
         "files": nfiles, "audio_s": audio_s}
    if cold and "error" not in cold:
        s["cold_s"] = cold["wall_s"]
        s["cold_startup_s"] = startup_of(cold)
    if warm:
        best = min(warm, key=lambda r: r["wall_s"])
        s["warm_best_s"] = best["wall_s"]
        s["warm_median_s"] = statistics.median(r["wall_s"] for r in warm)
        s["warm_runs"] = len(warm)
        s["rtf"] = best["wall_s"] / audio_s
        s["x_realtime"] = audio_s / best["wall_s"]
        s["frames"] = best.get("frames")
        if best.get("frames"):
            s["frames_per_s"] = best["frames"] / best["wall_s"]
        s["cpu_per_wall"] = best["cpu_s"] / best["wall_s"]
        s["warm_startup_s"] = startup_of(best)
        # steady state: the files after the first one (or after the first
        # batch), timed inside the process
        it = best.get("internal", {})
        first = it.get("first_files", 1)
        if nfiles > first and it.get("rest_s", 0) > 0.01:
            s["steady_x_realtime"] = (audio_s - sum(file_seconds[:first])) \
                / it["rest_s"]
    errors = [r["error"] for r in runs if "error" in r]
    if errors:
        s["error"] = errors[0]
    return s


def startup_of(run):
    """Seconds from process start until the first file was written."""
    it = run.get("internal")
    if not it or "first_s" not in it:
        return None
    if "import_s" in it:                       # peers.py
        return it["import_s"] + it["first_s"]
    return it["total_s"] - it["rest_s"]        # afet-batch


# ---- report -----------------------------------------------------------------

def fmt(v, spec="%.2f"):
    return "–" if v is None else spec % v


def fmt_big(v):
    if v is None:
        return "–"
    if v >= 100:
        return "{:,.0f}".format(v)
    return "%.1f" % v


def markdown(report):
    m = report["machine"]
    c = report["corpus"]
    lines = ["# afetmfcc benchmark", ""]
    lines.append("Run %s with `%s`." % (report["date"],
                                         report["command"]))
    lines.append("")
    lines.append("## Machine")
    lines.append("")
    lines.append("- CPU: %s, %s cores usable (nproc), %s GiB memory" % (
        m.get("cpu", "?"), m.get("nproc"), m.get("memory_gib", "?")))
    if m.get("opencl_devices"):
        lines.append("- OpenCL (`clinfo -l`): " + "; ".join(
            l.strip(" `-") for l in m["opencl_devices"].splitlines()))
    if report.get("afet_device"):
        lines.append("- afetmfcc `device-name`: " + report["afet_device"])
    if m.get("nvidia_gpus"):
        lines.append("- nvidia-smi: " + m["nvidia_gpus"])
    for k, v in sorted(report.get("peer_versions", {}).items()):
        lines.append("- %s: %s" % (k, v))
    if m.get("packages"):
        lines.append("- packages: " + ", ".join(m["packages"]))
    if report.get("afet_plugin_path"):
        lines.append("- afet plugin: GST_PLUGIN_PATH=%s%s" % (
            report["afet_plugin_path"],
            (" (bench run from checkout git %s)" % m["afet_git"])
            if m.get("afet_git") else ""))
    lines.append("")
    lines.append("## Corpus")
    lines.append("")
    for name in report["sets"]:
        s = c["sets"][name]
        lens = [f["samples"] / RATE for f in s["files"]]
        lines.append("- %s: %d files, %.1f min of audio (%.1f-%.1f s each)"
                     % (name, s["count"], s["seconds"] / 60.0, min(lens),
                        max(lens)))
    lines.append("")
    lines.append("## Results")
    lines.append("")
    lines.append("Wall-clock seconds of the whole process(es), files read, "
                 "features computed and written. RTF = seconds / audio "
                 "seconds (lower is better); × RT = audio seconds / seconds."
                 " Cold: fresh process, empty kernel caches and GStreamer "
                 "registry. Warm: best (median) of %s fresh processes with "
                 "filled caches. Startup: from process start until the "
                 "first file was written. Steady × RT: the files after the "
                 "first, inside the best warm process. CPU/wall: cores "
                 "kept busy." % report["repeats"])
    lines.append("")
    lines.append("| set | tool | cold s | warm s | RTF | × RT | frames/s "
                 "| startup cold / warm s | steady × RT | CPU/wall |")
    lines.append("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for s in report["summary"]:
        if "warm_best_s" not in s:
            why = (s.get("error") or "no run").strip().splitlines()[-1]
            why = why.replace("|", "/")[:120]
            lines.append("| %s | %s | %s | failed: %s | | | | | | |"
                         % (s["set"], s["tool"], fmt(s.get("cold_s")), why))
            continue
        warm = "%.2f (%.2f)" % (s["warm_best_s"], s["warm_median_s"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | "
                     "%s |" % (
                         s["set"], s["tool"], fmt(s.get("cold_s")), warm,
                         fmt(s["rtf"], "%.4f"), fmt_big(s["x_realtime"]),
                         fmt_big(s.get("frames_per_s")),
                         fmt(s.get("cold_startup_s")),
                         fmt(s.get("warm_startup_s")),
                         fmt_big(s.get("steady_x_realtime")),
                         fmt(s.get("cpu_per_wall"), "%.1f")))
    if report["skipped"]:
        lines.append("")
        for name, why in report["skipped"]:
            lines.append("- skipped %s: %s" % (name, why))
    lines.append("")
    lines.append("## Commands")
    lines.append("")
    lines.append("LIST is a file of `INPUT.wav<TAB>OUTPUT` lines, CTL a "
                 "sphinx_fe control file of corpus paths without extension."
                 " Cold runs add POCL_CACHE_DIR, CUDA_CACHE_PATH and "
                 "GST_REGISTRY pointing into an empty folder.")
    lines.append("")
    lines.append("```")
    for name, cmd in report["commands"]:
        lines.append("# " + name)
        lines.append(cmd)
    lines.append("```")
    return "\n".join(lines) + "\n"


def merge_reports(paths):
    """One report from several runs' JSON files, in the order given."""
    reports = []
    for path in paths:
        with open(path) as f:
            reports.append(json.load(f))
    merged = dict(reports[0])
    for key in ("summary", "commands", "skipped", "sets"):
        merged[key] = []
    merged["peer_versions"] = {}
    for r in reports:
        merged["summary"] += r["summary"]
        for key in ("commands", "skipped", "sets"):
            for item in r[key]:
                if item not in merged[key]:
                    merged[key].append(item)
        merged["peer_versions"].update(r.get("peer_versions", {}))
        for key in ("afet_device", "afet_plugin_path"):
            if r.get(key) and not merged.get(key):
                merged[key] = r[key]
    merged["command"] = "`; `".join(r["command"] for r in reports)
    order = {name: i for i, name in enumerate(merged["sets"])}
    merged["summary"].sort(key=lambda x: order.get(x["set"], 0))
    repeats = sorted({r["repeats"] for r in reports})
    merged["repeats"] = "/".join(str(x) for x in repeats)
    return merged


# ---- main -------------------------------------------------------------------
