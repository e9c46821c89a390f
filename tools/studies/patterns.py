"""Study `patterns`: seed 001's applications (benchmarks/patterns/, see its
README.md), each written once per system: Troupe's parallel patterns
(`troupe`), Troupe's and CAF's plain actors the "pure" actor way
(`troupe-actors`, `caf-*`), oneTBB (`tbb`), OpenMP (`threads`) and one
thread without a runtime (`sequential`).

tools/bench.py runs the programs with its generic runner; tools/report.py
calls report_section(), which writes one table per application: the time
of the computation at each worker count (the `compute` metric the programs
print, which leaves out generating the input and checking the result; the
whole process's wall-clock time where a program printed none), the
speed-up over `sequential` at one worker, and Troupe's time divided by
each other version's. `troupe` may be absent (its programs are optional):
then the table shows the others and says so. A bar chart of the speed-ups
goes to patterns_speedup.png.
"""

import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (tools/ is on the path only now)

# Rows of every table, in this order; systems not listed come after.
ORDER = ["troupe", "troupe-actors", "caf-1", "caf-0", "tbb", "threads", "sequential"]
REFERENCE = "troupe"
BASELINE = "sequential"

DESCRIPTION = {
    "troupe": "Troupe's parallel patterns",
    "troupe-actors": "Troupe, plain actors (\"pure\" actor model)",
    "caf-1": "CAF 1.x, plain actors (\"pure\" actor model)",
    "caf-0": "CAF 0.17, plain actors (\"pure\" actor model)",
    "tbb": "oneTBB",
    "threads": "OpenMP, or std::thread where OpenMP has no pattern (raytrace, canneal, ferret)",
    "sequential": "one thread, no runtime",
}

# Applications in the order of seed 001; others (added later) follow.
APPLICATIONS = ["quicksort", "recmm", "blackscholes", "raytrace", "canneal", "ferret"]

# Not an application: what a pattern adds to one request (Troupe only), the
# round trips the program measured itself.
OVERHEAD_CASE = "request_overhead"
OVERHEAD_METRICS = [
    ("actor_rtt", "one actor calling the function"),
    ("farm2_rtt", "`farm(seq(fn), 2)`"),
    ("pipeline3_rtt", "`pipeline(seq(fn), seq(fn), seq(fn))`"),
    ("farm2_overhead", "farm of 2 minus one actor"),
    ("pipeline3_overhead", "pipeline of 3 minus one actor"),
]


def family(system):
    """The entry of ORDER a system belongs to: caf-1.1 to caf-1."""
    for prefix in ORDER:
        if system == prefix or (prefix.startswith("caf-") and system.startswith(prefix)):
            return prefix
    return None


def rank(system):
    prefix = family(system)
    return (ORDER.index(prefix) if prefix else len(ORDER), system)


def describe(system):
    return DESCRIPTION.get(family(system), system)


def threads_of(config):
    name, _, value = (config or "").partition("=")
    return int(value) if name == "threads" and value.isdigit() else None


class Results:
    def __init__(self, lines):
        self.absent = [l for l in lines if l.get("metric") == "absent"]
        measured = [l for l in lines if l.get("metric") != "absent"]
        self.cell = {(l["case"], l["config"], l["system"], l["metric"]): l for l in measured}
        cases = list(collections.OrderedDict.fromkeys(
            l["case"] for l in measured if l["case"] != OVERHEAD_CASE))
        self.cases = sorted(cases, key=lambda c: (APPLICATIONS.index(c)
                                                  if c in APPLICATIONS else len(APPLICATIONS),
                                                  cases.index(c)))
        self.configs = sorted({l["config"] for l in measured},
                              key=lambda c: (threads_of(c) is None, threads_of(c) or 0, c))
        self.systems = sorted({l["system"] for l in measured}, key=rank)

    def line(self, case, config, system):
        """The `compute` line, or the wall-clock `time` line without one."""
        line = self.cell.get((case, config, system, "compute"))
        if line is not None and line.get("value") is not None:
            return line
        return self.cell.get((case, config, system, "time"))

    def value(self, case, config, system):
        line = self.line(case, config, system)
        return None if line is None else line.get("value")

    def ratio(self, case, config, system, others):
        """system's time divided by the fastest of `others`, paired by round
        where the lines keep their samples (report.paired_ratio): (ratio,
        paired), or (None, False)."""
        import report
        return report.paired_ratio(self.line(case, config, system),
                                   [self.line(case, config, o) for o in others])

    def overhead_configs(self):
        """The configurations request_overhead ran in, by worker count."""
        return sorted({k[1] for k in self.cell if k[0] == OVERHEAD_CASE},
                      key=lambda c: (threads_of(c) is None, threads_of(c) or 0, c))

    def uses_wall_time(self, case, system):
        return any((case, c, system, "compute") not in self.cell
                   and (case, c, system, "time") in self.cell for c in self.configs)

    def baseline(self, case):
        """Sequential's time: at one worker, else its fastest configuration."""
        one = [c for c in self.configs if threads_of(c) == 1]
        for config in one + self.configs:
            value = self.value(case, config, BASELINE)
            if value is not None:
                return value
        return None

    def systems_of(self, case):
        return [s for s in self.systems
                if any((case, c, s, m) in self.cell for c in self.configs
                       for m in ("compute", "time"))]


def fmt_time(line, report):
    if line is None:
        return "—"
    if line.get("value") is None:
        return "failed"
    text = report.fmt_number(line["value"])
    if line.get("runs", 1) > 1 and line.get("min") is not None:
        text += f" ({report.fmt_number(line['min'])}–{report.fmt_number(line['max'])})"
    if line.get("failed"):
        text += f" [{line['failed']} failed]"
    return text


def fmt_speedup(x):
    return "—" if x is None else f"{x:.2f}×"


def application_table(res, case, report):
    systems = res.systems_of(case)
    has_reference = REFERENCE in systems and any(
        res.value(case, c, REFERENCE) is not None for c in res.configs)
    workers = [threads_of(c) if threads_of(c) is not None else c for c in res.configs]
    header = ["version"] + [f"time, {w} worker{'s' if w != 1 else ''} (s)" for w in workers]
    header += [f"speed-up, {w}" for w in workers]
    if has_reference:
        header += [f"troupe / version, {w}" for w in workers]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    base = res.baseline(case)
    for system in systems:
        name = f"`{system}`: {describe(system)}"
        if res.uses_wall_time(case, system):
            name += " (wall clock)"
        row = [name]
        row += [fmt_time(res.line(case, c, system), report) for c in res.configs]
        for config in res.configs:
            value = res.value(case, config, system)
            row.append(fmt_speedup(base / value if base and value else None))
        if has_reference:
            for config in res.configs:
                mine = res.value(case, config, REFERENCE)
                theirs = res.value(case, config, system)
                row.append("—" if system == REFERENCE or not mine or not theirs
                           else report.fmt_ratio(mine / theirs))
        out.append("| " + " | ".join(row) + " |")
    return out, has_reference


def speedup_chart(res, path):
    """One group of bars per application, one bar per version and worker
    count: the speed-up over sequential."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import report

    series = [(s, c) for s in res.systems if s != BASELINE for c in res.configs]
    cases = [c for c in res.cases if res.baseline(c)]
    if not series or not cases:
        return False
    speedups = {}
    for case in cases:
        base = res.baseline(case)
        for system, config in series:
            value = res.value(case, config, system)
            speedups[(case, system, config)] = base / value if value else None
    if not any(v is not None for v in speedups.values()):
        return False
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(7.0, 2.6 * len(cases) + 2), 4.8))
    for j, (system, config) in enumerate(series):
        xs, ys = [], []
        for i, case in enumerate(cases):
            v = speedups[(case, system, config)]
            if v is not None:
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(v)
        shade = res.configs.index(config) / max(1, len(res.configs))
        workers = threads_of(config)
        ax.bar(xs, ys, width * 0.92, color=color(system, j, report),
               alpha=1.0 - 0.45 * shade, edgecolor="black", linewidth=0.4,
               hatch="//" if shade > 0 else None,
               label=f"{system}, {workers if workers else config} "
                     f"worker{'s' if workers != 1 else ''}")
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.2f}", (x, y), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=6, rotation=90)
    ax.axhline(1.0, color="black", linewidth=1.0)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases)
    ax.set_ylabel("speed-up over sequential")
    top = max(v for v in speedups.values() if v is not None)
    ax.set_ylim(0, max(1.2, top * 1.25))
    ax.set_title("Study patterns: sequential time divided by each version's "
                 "(above the line at 1: faster than one thread without a runtime)",
                 fontsize=10)
    ax.legend(fontsize=7, ncol=min(4, len(series)), loc="upper center",
              bbox_to_anchor=(0.5, -0.1), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


COLORS = {"troupe-actors": "#ff9896", "troupe": "#d62728", "tbb": "#9467bd",
          "sequential": "#7f7f7f"}


def color(system, index, report):
    if system in COLORS:
        return COLORS[system]
    return report.color_of(system, index)


def overhead_table(res, report):
    """Median round trips of request_overhead, one column per worker count."""
    configs = res.overhead_configs()
    if not configs:
        return []
    out = ["| round trip (µs) | " + " | ".join(configs) + " |",
           "|---|" + "---:|" * len(configs)]
    for metric, label in OVERHEAD_METRICS:
        row = [label]
        for config in configs:
            line = res.cell.get((OVERHEAD_CASE, config, "troupe", metric))
            row.append("—" if line is None else fmt_time(line, report))
        out.append("| " + " | ".join(row) + " |")
    return out


def rss_table(res, report):
    """Peak resident memory at the largest worker count: the pure actor
    versions carry copies of their data."""
    config = res.configs[-1]
    header = ["application"] + [f"`{s}`" for s in res.systems]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(res.systems)]
    for case in res.cases:
        row = [f"`{case}`"]
        for system in res.systems:
            line = res.cell.get((case, config, system, "rss"))
            row.append("—" if line is None else fmt_time(line, report))
        out.append("| " + " | ".join(row) + " |")
    return out, config


# Issue 20's targets. Against the plain actors on the two divide-and-conquer
# applications: Troupe's patterns at least SPEEDUP_GOAL x as fast. Against
# the faster of the thread libraries: within THREADS_MARGIN on the four
# kernels. Against CAF 1.x's plain actors: faster on every application. A
# pattern's cost per request: at most OVERHEAD_GOAL_US.
SPEEDUP_CASES = ["quicksort", "recmm"]
SPEEDUP_GOAL = 3.0
THREADS_CASES = ["blackscholes", "raytrace", "recmm", "quicksort"]
THREADS_MARGIN = 1.10
OVERHEAD_GOAL_US = 2.0


def targets_table(res, report):
    """One row per target, application and worker count: the ratio this run
    measured, the goal and the verdict. Ratios are paired by round
    (Results.ratio); ᵐ marks a ratio of medians."""
    caf1 = next((s for s in res.systems if family(s) == "caf-1"), None)
    rows = []

    def verdict(ok):
        return "met" if ok else "**not met**"

    def fmt(r, paired, unit=""):
        return report.fmt_fraction(r) + unit + ("" if paired else "ᵐ")

    for case in SPEEDUP_CASES:
        # The fastest one-worker time of any version: on w cores no version
        # takes less than that / w.
        one = [res.value(case, c, s) for c in res.configs if threads_of(c) == 1
               for s in res.systems_of(case)]
        base = min((v for v in one if v), default=None)
        for config in res.configs:
            w = threads_of(config)
            for other in ("troupe-actors", caf1):
                if other is None or res.value(case, config, other) is None:
                    continue
                r, paired = res.ratio(case, config, other, [REFERENCE])
                if r is None:
                    continue
                # The most Troupe could gain over `other` on w cores.
                bound = (res.value(case, config, other) / (base / w)
                         if base and w else None)
                note = f"at most {bound:.2f}× on {w} core{'s' if w != 1 else ''}" if bound else ""
                rows.append([f"`{other}` / troupe ≥ {SPEEDUP_GOAL:g}×", case, str(w),
                             fmt(r, paired, "×"), verdict(r >= SPEEDUP_GOAL), note])
    for case in THREADS_CASES:
        others = [s for s in ("threads", "tbb") if s in res.systems_of(case)]
        if not others:
            continue
        for config in res.configs:
            r, paired = res.ratio(case, config, REFERENCE, others)
            if r is None:
                continue
            rows.append([f"troupe / fastest of `threads`, `tbb` ≤ {THREADS_MARGIN:g}", case,
                         str(threads_of(config)), fmt(r, paired),
                         verdict(r <= THREADS_MARGIN), ""])
    if caf1:
        for case in res.cases:
            for config in res.configs:
                r, paired = res.ratio(case, config, REFERENCE, [caf1])
                if r is None:
                    continue
                rows.append([f"troupe / `{caf1}` < 1", case, str(threads_of(config)),
                             fmt(r, paired), verdict(r < 1), ""])
    for metric, label in (("farm2_overhead", "farm of 2"), ("pipeline3_overhead", "pipeline of 3")):
        for config in res.overhead_configs():
            line = res.cell.get((OVERHEAD_CASE, config, REFERENCE, metric))
            if line is None or line.get("value") is None:
                continue
            us = line["value"]
            rows.append([f"µs a pattern adds to a request ≤ {OVERHEAD_GOAL_US:g}", label,
                         str(threads_of(config)), f"{us:.3f}", verdict(us <= OVERHEAD_GOAL_US),
                         ""])
    if not rows:
        return []
    out = ["| target | application | workers | measured | verdict | note |",
           "|---|---|---:|---:|---|---|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def report_section(name, lines, machine, results_dir):
    import report
    res = Results(lines)
    where = ('The applications and how each version paralleli'
             'ses them are in `benchmarks/patterns/README.md`.')
    out = report.study_preamble(name, machine, res.absent, where,
                                runs_note='')
    if not res.cases:
        return out + ["No measurements.", ""]

    out += ["Each time is the median over runs of the computation alone, as the program "
            "measured it (`metric compute`: without generating the input and checking "
            "the result), fastest and slowest run in brackets. Speed-up is `sequential`'s "
            "time at one worker divided by the version's. The `troupe / version` columns "
            "divide Troupe's parallel patterns' time by each version's: **below 1 means "
            "Troupe is faster** (bold).", ""]
    for case in res.cases:
        table, has_reference = application_table(res, case, report)
        out += [f"### `{case}`", ""] + table + [""]
        if not has_reference:
            out += ["Troupe's parallel patterns (`troupe`) are absent from this "
                    "application, so there are no `troupe / version` columns.", ""]
    chart = f"{name}_speedup.png"
    if speedup_chart(res, os.path.join(results_dir, chart)):
        out += [f"![{name}: speed-up over sequential]({chart})", ""]

    overhead = overhead_table(res, report)
    if overhead:
        out += [f"### `{OVERHEAD_CASE}`: what a pattern adds to a request", "",
                "One client, one request in flight at a time, median of batches of "
                "1,000 round trips (the program's own measurement). The target is at "
                "most 2 µs more than one actor calling the same function.", ""] + overhead + [""]

    targets = targets_table(res, report)
    if targets:
        out += ["### Targets (issue 20)", "",
                "Each ratio is the median over rounds of the ratio within a round (the "
                "systems took turns run by run); ᵐ marks a ratio of medians, where the "
                "results keep no samples. No version takes less than the fastest "
                "one-worker time divided by the workers, so against a version that needs "
                "T Troupe can gain at most T / (that time / workers): the note gives "
                "that bound (medians, so a paired ratio may exceed it a little).",
                ""] + targets + [""]

    table, config = rss_table(res, report)
    workers = threads_of(config)
    out += [f"### Peak resident memory (MiB), {workers if workers else config} "
            f"worker{'s' if workers != 1 else ''}", "",
            "Of the whole process, input included; the plain-actor versions copy their "
            "data into every message.", ""] + table + [""]

    failures = [(k, l) for k, l in res.cell.items() if l.get("failed") and k[3] == "time"]
    if failures:
        out += ["Failed runs:", ""]
        for (case, config, system, _), line in sorted(
                failures, key=lambda kv: (kv[0][0], rank(kv[0][2]), kv[0][1])):
            error = (line.get("error") or "").replace("\n", " ").replace("|", "\\|")
            out.append(f"- `{case}` {config} {report.pretty_system(system)}: {error}")
        out.append("")
    return out
