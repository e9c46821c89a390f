#!/usr/bin/env python3
"""Turns benchmarks/results/*.jsonl into benchmarks/results/REPORT.md.

The report opens with the machine (machine.json, written by tools/bench.py),
then has one section per study: a table of wall-clock times with the ratio of
Troupe's time to each competitor's, a bar chart of those ratios
(<study>_ratios.png), and tables of CPU time and peak memory. Runs that
failed show as "failed", systems that were absent say why.

A study with a module tools/studies/<study>.py that defines

    report_section(name, lines, machine, results_dir) -> [markdown lines]

writes its own section (its programs report latencies or nanoseconds per
operation rather than whole-process times).

Needs python3-matplotlib (Agg backend, no display).
"""

import argparse
import collections
import datetime
import importlib.util
import json
import math
import os
import statistics
import sys

try:
    import matplotlib
except ModuleNotFoundError:
    # Debian's python3-matplotlib belongs to /usr/bin/python3; a `python3`
    # from pyenv or a venv earlier on PATH does not see it.
    SYSTEM_PYTHON = "/usr/bin/python3"
    if (os.access(SYSTEM_PYTHON, os.X_OK) and not os.environ.get("TROUPE_REPORT_REEXEC")
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)):
        os.environ["TROUPE_REPORT_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit("report.py: needs matplotlib (apt-get install python3-matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import matplotlib.ticker  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "benchmarks", "results")

SYSTEM_ORDER = ["troupe", "caf-1", "caf-0", "threads"]
COLORS = {"caf-1": "#1f77b4", "caf-0": "#ff7f0e", "threads": "#2ca02c", "troupe": "#d62728",
          "floor": "#7f7f7f"}
METRICS = [
    ("time", "Wall-clock time (s)", "s"),
    ("cpu", "CPU time, user + system (s)", "s"),
    ("rss", "Peak resident memory (MiB)", "MiB"),
]
# Metrics that programs report about themselves (`metric <name> <value>
# <unit>` lines); each gets a table with ratios. Others show by name.
PROGRAM_METRICS = {
    "bytes_per_actor": "Resident memory per live actor (bytes)",
    "retained_per_actor": "Resident memory per actor still held after all terminated (bytes)",
}


def system_rank(name):
    for i, prefix in enumerate(SYSTEM_ORDER):
        if name.startswith(prefix):
            return (i, name)
    return (len(SYSTEM_ORDER), name)


def color_of(system, fallback_index):
    for prefix, color in COLORS.items():
        if system.startswith(prefix):
            return color
    return plt.get_cmap("tab10")(fallback_index % 10)


def pretty_system(name):
    """caf-1.1 -> CAF 1.1, caf-1.1-flow -> CAF 1.1 (flow API), troupe -> Troupe."""
    if name.startswith("caf-") and name.endswith("-flow"):
        return f"CAF {name[4:-5]} (flow API)"
    if name.startswith("caf-"):
        return "CAF " + name[4:]
    return name[:1].upper() + name[1:]


def other_machine_note(info, machine):
    """A line naming the machine a study ran on (its entry in machine.json)
    if that is not the machine the report opens with; else nothing."""
    ran_on = (info or {}).get("machine")
    if not ran_on or ran_on == {k: (machine or {}).get(k) for k in ran_on}:
        return []
    return [f"**Measured on another machine than the one above:** {ran_on.get('cpu')}, "
            f"{ran_on.get('logical_cpus')} logical CPUs, {ran_on.get('memory_gib')} GiB"
            + (", virtual machine" if ran_on.get("virtualised") else "")
            + f", kernel {ran_on.get('kernel')}. Compare its figures with each other, "
            "not with other studies'.", ""]


def study_preamble(name, machine, absent, where, runs_note=""):
    """The opening lines of a study's section: how it ran (sizes, runs,
    start, duration, load, commit), where its programs are described, and
    the systems that were absent."""
    out = [f"## Study `{name}`", ""]
    info = (machine or {}).get("studies", {}).get(name)
    if info:
        load = info.get("load_average_at_start")
        runs = info.get("runs", "?")
        out += [f"{info.get('scale', '?')} sizes, {runs} run{'' if runs == 1 else 's'} per "
                f"cell{runs_note}, started {info.get('started', '?')}, took "
                f"{info.get('duration_s', 0) / 60:.1f} min"
                + (f"; load average at start {load[0]}" if load else "")
                + (f"; source git {info['git']}" if info.get("git") else "") + "."
                + (f" {where}" if where else ""), ""]
        out += other_machine_note(info, machine)
        for rerun in info.get("reruns", []):
            n = rerun.get("runs", "?")
            out += [f"Measured on its own: {', '.join(f'`{c}`' for c in rerun.get('cases', []))} "
                    f"({', '.join(f'`{s}`' for s in rerun.get('systems', []))}), "
                    f"{n} run{'' if n == 1 else 's'} per cell, started "
                    f"{rerun.get('started', '?')}, source git {rerun.get('git', '?')}"
                    + (f": {rerun['why']}" if rerun.get("why") else "") + ".", ""]
    for line in absent:
        out.append(f"- **{pretty_system(line['system'])} absent:** {line.get('reason')}.")
    if absent:
        out.append("")
    return out


def load_results(results_dir):
    """Returns {study: [line, ...]} in file order."""
    studies = collections.OrderedDict()
    for file in sorted(os.listdir(results_dir)):
        if not file.endswith(".jsonl"):
            continue
        with open(os.path.join(results_dir, file), encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                text = text.strip()
                if not text:
                    continue
                try:
                    line = json.loads(text)
                except json.JSONDecodeError:
                    print(f"report.py: {file}:{number}: not JSON, skipped", file=sys.stderr)
                    continue
                studies.setdefault(line.get("study", file[:-6]), []).append(line)
    return studies


def fmt_number(x):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_cell(line):
    if line is None:
        return "—"
    if line.get("value") is None:
        return "failed"
    text = fmt_number(line["value"])
    if line.get("runs", 1) > 1 and line.get("min") is not None:
        text += f" ({fmt_number(line['min'])}–{fmt_number(line['max'])})"
    if line.get("failed"):
        text += f" [{line['failed']} failed]"
    return text


def fmt_fraction(r):
    """Two decimals; two significant digits below 0.1, so that 0.0033
    does not read 0.00."""
    return f"{r:.2g}" if r < 0.1 else f"{r:.2f}"


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"**{fmt_fraction(r)}**" if r < 1 else fmt_fraction(r)


def paired_ratio(line, others):
    """(line's value / the smallest of others', paired): the median over
    rounds of that ratio within a round, where the lines keep their runs'
    samples (the systems take turns run by run, so a drift of the machine
    hits a round's runs alike); else the ratio of the values. (None, False)
    if a line or its value is missing."""
    if not line or not line.get("value") or not others \
            or not all(o and o.get("value") for o in others):
        return None, False
    rounds = [x / min(ys) for x, *ys in zip(line.get("samples") or [],
                                             *(o.get("samples") or [] for o in others))
              if x and all(ys)]
    if rounds:
        return statistics.median(rounds), True
    return line["value"] / min(o["value"] for o in others), False


def config_key(config):
    """Sorts "threads=2" after "threads=1", numerically."""
    name, _, value = (config or "").partition("=")
    return (name, int(value) if value.isdigit() else value)


class Study:
    def __init__(self, name, lines):
        self.name = name
        self.absent = [l for l in lines if l.get("metric") == "absent"]
        measured = [l for l in lines if l.get("metric") != "absent"]
        self.cases = list(collections.OrderedDict.fromkeys(l["case"] for l in measured))
        self.configs = sorted({l["config"] for l in measured}, key=config_key)
        self.systems = sorted({l["system"] for l in measured}, key=system_rank)
        self.cell = {(l["case"], l["config"], l["system"], l["metric"]): l for l in measured}
        # The reference every ratio divides: Troupe when it has results.
        with_values = [s for s in self.systems
                       if any(l.get("value") is not None for l in measured if l["system"] == s)]
        self.reference = "troupe" if "troupe" in with_values else (
            with_values[0] if with_values else None)
        self.others = [s for s in self.systems if s != self.reference]

    def value(self, case, config, system, metric="time"):
        line = self.cell.get((case, config, system, metric))
        return None if line is None else line.get("value")

    def failed(self, case, config, systems, metric="time"):
        """Whether every one of `systems` was measured and one has no value."""
        lines = [self.cell.get((case, config, system, metric)) for system in systems]
        if any(line is None for line in lines):
            return False
        return any(line.get("value") is None for line in lines)

    def ratio(self, case, config, other, metric="time"):
        mine = self.value(case, config, self.reference, metric)
        theirs = self.value(case, config, other, metric)
        if mine is None or theirs is None or theirs <= 0:
            return None
        return mine / theirs


def machine_section(machine):
    out = ["## Machine", ""]
    if not machine:
        return out + ["No machine.json: run tools/bench.py first.", ""]
    rows = [
        ("CPU", f"{machine.get('cpu')} — {machine.get('physical_cores')} cores, "
                f"{machine.get('logical_cpus')} logical CPUs ({machine.get('usable_cpus')} usable)"
                + (", virtual machine" if machine.get("virtualised") else "")),
        ("Memory", f"{machine.get('memory_gib')} GiB"),
        ("Kernel", machine.get("kernel")),
        ("CPU governor", machine.get("cpu_governor") or "not exposed"),
    ]
    build = machine.get("build", {})
    if build:
        rows.append(("Compiler", f"{build.get('compiler')}, {build.get('build_type')}, "
                                 f"flags `{build.get('cxx_flags', '').strip()}`"))
    elif machine.get("compilers"):
        rows.append(("Compiler", "; ".join(machine["compilers"].values())))
    for name, info in sorted(machine.get("systems", {}).items(), key=lambda kv: system_rank(kv[0])):
        if info.get("found"):
            detail = info.get("version", "found")
            if info.get("cxx_standard"):
                detail += f", programs built as C++{info['cxx_standard']}"
            where = info.get("config") or info.get("library")
            rows.append((pretty_system(name), detail + (f" (`{where}`)" if where else "")))
        else:
            rows.append((pretty_system(name), info.get("reason", "not found")))
    rows.append(("Source", f"git {machine.get('git')}"))
    out += ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows] + [""]
    return out


def ratio_chart(study, path):
    """Grouped bars: one group per case, one bar per competitor and threads."""
    series = [(other, config) for other in study.others for config in study.configs]
    ratios = {(c, o, k): study.ratio(c, k, o) for c in study.cases for (o, k) in series}
    values = [r for r in ratios.values() if r is not None]
    if not values:
        return False
    n_cases, n_series = len(study.cases), len(series)
    width = 0.8 / n_series
    fig, ax = plt.subplots(figsize=(max(7.0, 1.9 * n_cases + 2), 4.8))
    for j, (other, config) in enumerate(series):
        xs, ys = [], []
        for i, case in enumerate(study.cases):
            r = ratios[(case, other, config)]
            if r is not None:
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(r)
        shade = study.configs.index(config) / max(1, len(study.configs))
        ax.bar(xs, ys, width * 0.92, color=color_of(other, j),
                      alpha=1.0 - 0.45 * shade, edgecolor="black", linewidth=0.4,
                      hatch="//" if shade > 0 else None,
                      label=f"{pretty_system(study.reference)} / {pretty_system(other)}, {config}")
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.2f}", (x, y), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
        for i, case in enumerate(study.cases):
            if ratios[(case, other, config)] is None and study.failed(
                    case, config, (study.reference, other)):
                ax.text(i - 0.4 + width * (j + 0.5), 1.0, "failed", rotation=90,
                        ha="center", va="bottom", fontsize=7, color="#b00000")
    ax.axhline(1.0, color="black", linewidth=1.0)
    lo, hi = min(values), max(values)
    if hi / lo > 8:
        # Powers of two read well as ratios: 1/4, 1/2, 1, 2, 4 ...
        ax.set_yscale("log", base=2)
        ax.set_ylim(min(lo, 1.0) / 1.6, max(hi, 1.0) * 1.8)
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=2, numticks=30))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    else:
        ax.set_ylim(0, max(1.15, hi * 1.18))
    ax.set_xticks(range(n_cases))
    ax.set_xticklabels(study.cases)
    ax.set_ylabel(f"time ratio ({pretty_system(study.reference)} / competitor)")
    ax.set_title(f"Study {study.name}: {pretty_system(study.reference)}'s wall-clock time "
                 f"divided by each competitor's\n(below the line at 1: "
                 f"{pretty_system(study.reference)} is faster)", fontsize=10)
    ax.legend(fontsize=8, ncol=min(3, n_series), loc="upper center",
              bbox_to_anchor=(0.5, -0.1), frameon=False)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def metric_table(study, metric, with_ratios):
    header = ["case", "threads"] + [pretty_system(s) for s in study.systems]
    if with_ratios and study.reference:
        header += [f"{study.reference} / {o}" for o in study.others]
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for case in study.cases:
        for config in study.configs:
            if not any((case, config, s, metric) in study.cell for s in study.systems):
                continue
            threads = config.partition("=")[2] if config.startswith("threads=") else config
            row = [f"`{case}`", threads]
            row += [fmt_cell(study.cell.get((case, config, s, metric))) for s in study.systems]
            if with_ratios and study.reference:
                for other in study.others:
                    ratio = study.ratio(case, config, other, metric)
                    if ratio is None and study.failed(case, config, (study.reference, other),
                                                      metric):
                        row.append("failed")
                    else:
                        row.append(fmt_ratio(ratio))
            out.append("| " + " | ".join(row) + " |")
    return out


def study_section(study, machine, results_dir):
    out = study_preamble(study.name, machine, study.absent, where="")
    if not study.cases:
        return out + ["No measurements.", ""]

    out += ["### Time", ""]
    if study.reference == "troupe":
        out += ["Each cell is the median wall-clock time of the whole process, with the "
                "fastest and slowest run in brackets. The ratio columns divide Troupe's "
                "median by the competitor's: **below 1 means Troupe is faster** (bold), "
                "above 1 that it is slower.", ""]
    elif study.reference:
        out += [f"Troupe has no results in this study, so the ratio columns divide "
                f"{pretty_system(study.reference)}'s median by each other system's "
                f"(below 1: {pretty_system(study.reference)} is faster). Each cell is the "
                f"median wall-clock time of the whole process, fastest and slowest run in "
                f"brackets.", ""]
    out += metric_table(study, "time", with_ratios=True) + [""]
    chart = f"{study.name}_ratios.png"
    if ratio_chart(study, os.path.join(results_dir, chart)):
        out += [f"![{study.name}: time ratios]({chart})", ""]

    failures = [(k, l) for k, l in study.cell.items() if l.get("failed") and k[3] == "time"]
    if failures:
        out += ["Failed runs:", ""]
        for (case, config, system, _), line in failures:
            error = (line.get("error") or "").replace("\n", " ").replace("|", "\\|")
            out.append(f"- `{case}` {config} {pretty_system(system)}: {error}")
        out.append("")

    for metric, title, _ in METRICS[1:]:
        if any(k[3] == metric for k in study.cell):
            out += [f"### {title}", ""] + metric_table(study, metric, with_ratios=False) + [""]
    known = {m for m, _, _ in METRICS}
    for metric in sorted({k[3] for k in study.cell} - known):
        unit = next(l.get("unit") for k, l in study.cell.items() if k[3] == metric)
        title = PROGRAM_METRICS.get(metric, f"`{metric}` ({unit})")
        out += [f"### {title}", "",
                "Measured by the program itself; the ratio columns divide "
                f"{pretty_system(study.reference)}'s median by each competitor's.", ""]
        out += metric_table(study, metric, with_ratios=True) + [""]
    return out


def study_module(study):
    """tools/studies/<study>.py, imported, or None if the study has none."""
    path = os.path.join(REPO, "tools", "studies", f"{study}.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location(f"troupe_study_{study}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results-dir", default=RESULTS,
                   help="directory with the .jsonl files and machine.json "
                        "(default: benchmarks/results)")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if not os.path.isdir(args.results_dir):
        print(f"report.py: {args.results_dir} does not exist; run tools/bench.py first",
              file=sys.stderr)
        return 1
    machine_path = os.path.join(args.results_dir, "machine.json")
    machine = {}
    if os.path.exists(machine_path):
        with open(machine_path, encoding="utf-8") as f:
            machine = json.load(f)
    studies = load_results(args.results_dir)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    out = ["# Troupe benchmark report", "",
           f"Written by `tools/report.py` on {now} from `benchmarks/results/*.jsonl`. "
           "Every program runs as its own process and is timed from start to exit; "
           "`threads` is the number of scheduler workers the runtime may use.", ""]
    out += machine_section(machine)
    if not studies:
        out += ["No results yet: run `make bench`.", ""]
    for name, lines in studies.items():
        module = study_module(name)
        if module is not None and hasattr(module, "report_section"):
            out += module.report_section(name, lines, machine, args.results_dir)
        else:
            out += study_section(Study(name, lines), machine, args.results_dir)
    path = os.path.join(args.results_dir, "REPORT.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out).rstrip() + "\n")
    print(f"report.py: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
