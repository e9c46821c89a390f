"""Study `micro`: the micro-benchmarks of CAF's 0.18 release notes (seed 004)
plus spawn_and_await and int_queue (benchmarks/micro/, see its README.md).

tools/bench.py calls run(); tools/report.py calls report_section(). Every
system has one Google Benchmark program, <build>/benchmarks/micro/<system>/micro,
with the same case names. For each case the systems take turns, each run
asked for that case alone (--benchmark_filter) with --benchmark_repetitions;
a case's value is the median of the repetitions' wall-clock time per
iteration, in nanoseconds (per int for int_queue, whose programs report
items_per_iteration).

    quick: --benchmark_min_time=0.1, --runs repetitions (default 3)
    full:  --benchmark_min_time=1, --runs repetitions (default 5)

--cases picks cases by name; --threads is ignored (every program uses one
worker per CPU).
"""

import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (tools/ is on the path only now)

PROGRAM = "micro"

CASES = ["make_message", "message_builder", "pattern_matching", "or_else",
         "alloc_copy_floor", "save_foo", "save_bar", "save_msg_2int", "load_foo", "load_bar", "load_msg_2int",
         "spawn_and_await", "int_queue"]

MIN_TIME = {"quick": 0.1, "full": 1.0}

# CAF 0.18 as published in its release notes (seed 004): Google Benchmark's
# wall-clock ns on a 3.6 GHz Core i9, not this machine. Its pattern_matching
# and or_else dispatch five messages to eight handlers per iteration (the
# make_message rows), its spawn_and_await spawns an actor that does nothing
# and waits for it to terminate.
PUBLISHED_CAF_018 = {
    "make_message": 53.5, "message_builder": 339, "pattern_matching": 103, "or_else": 168,
    "save_foo": 110, "save_bar": 127, "save_msg_2int": 138,
    "load_foo": 8.44, "load_bar": 16.8, "load_msg_2int": 266,
    "spawn_and_await": 42618,
}

# Seed 004's targets: Troupe's time over CAF 1.1's at most this, unless
# within 2x of alloc_copy_floor (one allocation plus a copy of the
# payload). or_else falls back to CAF 0.17 only where CAF 1.1 is absent:
# the issue expected CAF 1.1 to lack it, but 1.1 still has
# message_handler::or_else, so the stricter comparison applies.
TARGET_RATIO = {"load_msg_2int": 0.25, "pattern_matching": 0.25}
DEFAULT_TARGET_RATIO = 0.5
FLOOR_CASE = "alloc_copy_floor"
FLOOR_EXEMPT_FACTOR = 2.0

UNIT_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def line_for(system, case, values=None, error=None):
    """The JSON line of one case on one system (DESIGN.md's format)."""
    line = {"study": "micro", "case": case, "system": system, "config": "",
            "metric": "time", "unit": "ns",
            "value": round(statistics.median(values), 3) if values else None,
            "runs": len(values or []),
            "min": round(min(values), 3) if values else None,
            "max": round(max(values), 3) if values else None}
    if error:
        line["failed"] = 1
        line["error"] = error
    return line


def parse_results(text, case):
    """Nanoseconds per iteration (or per item) of each repetition of `case`.

    Raises ValueError with a readable reason if the output holds none.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"no JSON from Google Benchmark ({e})") from None
    values = []
    for entry in doc.get("benchmarks", []):
        if entry.get("run_type", "iteration") != "iteration":
            continue
        name = entry.get("run_name", entry.get("name", ""))
        if name.split("/")[0] != case:
            continue
        if entry.get("error_occurred"):
            raise ValueError(entry.get("error_message") or "the case reported an error")
        scale = UNIT_SCALE.get(entry.get("time_unit", "ns"))
        if scale is None or entry.get("real_time") is None:
            raise ValueError(f"unreadable time in {entry!r}")
        per = entry.get("items_per_iteration") or 1
        values.append(entry["real_time"] * scale / per)
    if not values:
        raise ValueError(f"the program has no case {case}")
    return values


def list_cases(program, args):
    """The case names a program offers, or an error text."""
    run = bench.run_program([program, "--benchmark_list_tests=true"], args.timeout, None)
    if not run.ok:
        return None, run.error
    return [c.split("/")[0] for c in run.stdout.split()], None


def run_case(program, case, args):
    """(values, error) of one case on one program."""
    scale = "full" if args.full else "quick"
    with tempfile.TemporaryDirectory(prefix="troupe-micro-") as tmp:
        out = os.path.join(tmp, "result.json")
        cmd = [program, f"--benchmark_filter=^{case}(/.*)?$",
               f"--benchmark_min_time={MIN_TIME[scale]}",
               f"--benchmark_repetitions={args.runs}",
               f"--benchmark_out={out}", "--benchmark_out_format=json"]
        run = bench.run_program(cmd, args.timeout, args.launcher)
        text = bench.read_text(out)
    if not run.ok:
        return None, run.error
    try:
        return parse_results(text, case), None
    except ValueError as e:
        return None, str(e)


def run(study, programs, expected, args, emit):
    systems = sorted(programs, key=bench.system_rank)
    if args.systems:
        systems = [s for s in systems if s in args.systems]
    # The threads baseline has no part in this study.
    competitors = {k: v for k, v in expected.items() if k != "threads"}
    bench.emit_absent(study, programs, competitors, args, emit)

    cases = [c for c in CASES if not args.cases or c in args.cases]
    offered = {}
    for system in systems:
        program = programs[system].get(PROGRAM)
        if program is None:
            continue
        names, error = list_cases(program, args)
        if names is None:
            # The program does not even start: every case fails alike.
            for case in cases:
                emit(line_for(system, case, error=error))
            print(f"[{study}] {system}: FAILED: {error}", flush=True)
            continue
        offered[system] = set(names)

    for case in cases:
        for system in offered:
            if case not in offered[system]:
                continue  # e.g. a competitor without the feature: no line
            values, error = run_case(programs[system][PROGRAM], case, args)
            emit(line_for(system, case, values, error))
            status = (f"{statistics.median(values):12.1f} ns  "
                      f"({min(values):.1f}-{max(values):.1f}, {len(values)} runs)"
                      if values else "FAILED: " + error.replace("\n", " | "))
            print(f"[{study}] {case:18} {system:9} {status}", flush=True)


# -- report --------------------------------------------------------------------------


def find_system(systems, prefix):
    matches = sorted((s for s in systems if s.startswith(prefix)), key=bench.system_rank)
    return matches[-1] if matches else None


def report_section(name, lines, machine, results_dir):
    import report  # matplotlib: only the report needs it

    out = [f"## Study `{name}`", ""]
    info = (machine or {}).get("studies", {}).get(name)
    if info:
        load = info.get("load_average_at_start")
        out += [f"{info.get('scale', '?')} mode, {info.get('runs', '?')} repetitions per case, "
                f"started {info.get('started', '?')}, took "
                f"{info.get('duration_s', 0) / 60:.1f} min"
                + (f"; load average at start {load[0]}" if load else "") + ".", ""]
        out += report.other_machine_note(info, machine)
    absent = [l for l in lines if l.get("metric") == "absent"]
    measured = [l for l in lines if l.get("metric") == "time"]
    cell = {(l["case"], l["system"]): l for l in measured}
    systems = {l["system"] for l in measured} | {l["system"] for l in absent}
    troupe = "troupe"
    caf1 = find_system(systems, "caf-1")
    caf0 = find_system(systems, "caf-0")
    for line in absent:
        out.append(f"- **{report.pretty_system(line['system'])} absent:** {line.get('reason')}.")
    if caf1 is None:
        out.append("- **CAF 1.x absent:** no CAF 1.x was configured (pass CAF_ROOT).")
    if absent or caf1 is None:
        out.append("")
    if not measured:
        return out + ["No measurements.", ""]

    cases = [c for c in CASES if any(k[0] == c for k in cell)]
    cases += sorted({k[0] for k in cell} - set(cases))
    columns = [(s, report.pretty_system(s)) for s in (troupe, caf1, caf0) if s]
    header = ["case"] + [f"{label} ns" for _, label in columns]
    header += ["CAF 0.18 published ns"]
    ratio_systems = [s for s in (caf1, caf0) if s]
    header += [f"Troupe / {report.pretty_system(s)}" for s in ratio_systems]
    out += ["Wall-clock nanoseconds per iteration (per int for `int_queue`), the median of "
            "the repetitions with the fastest and slowest in brackets, all systems measured "
            "in the same run on this machine. The ratio columns divide Troupe's median by "
            "the competitor's: **below 1 means Troupe is faster**. The published CAF 0.18 "
            "column is the release notes' figure, measured on other hardware (3.6 GHz "
            "Core i9) and for slightly different cases (see the notes below): a scale, "
            "not a comparison.", ""]
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    ratios = {}
    for case in cases:
        row = [f"`{case}`"]
        for system, _ in columns:
            row.append(report.fmt_cell(cell.get((case, system))))
        published = PUBLISHED_CAF_018.get(case)
        row.append(report.fmt_number(published) + " (published)" if published else "—")
        mine = cell.get((case, troupe))
        for other in ratio_systems:
            theirs = cell.get((case, other))
            if mine is None or theirs is None:
                row.append("—")
            elif mine.get("value") is None or not theirs.get("value"):
                row.append("failed")
            else:
                ratios[(case, other)] = mine["value"] / theirs["value"]
                row.append(report.fmt_ratio(ratios[(case, other)]))
        out.append("| " + " | ".join(row) + " |")
    out.append("")

    out += targets_table(report, cases, cell, ratios, caf1, caf0)

    caf1_measured = caf1 and any(k[1] == caf1 for k in cell)
    missing = [c for c in cases if caf1_measured and (c, caf1) not in cell]
    notes = []
    if missing:
        notes.append(f"{', '.join(f'`{c}`' for c in missing)}: no {report.pretty_system(caf1)} "
                     "figure — its program has no such case.")
    notes += [
        "`pattern_matching`: one message dispatched to a behaviour of ten handlers for ten "
        "types, matching the last; `or_else`: the same ten handlers, each its own behaviour, "
        "glued with or_else. CAF's published figures dispatch five messages to eight "
        "handlers per iteration.",
        "`spawn_and_await` here: spawn an actor, request it, await the answer, send it an "
        "exit message. CAF's published figure spawns an actor that does nothing and waits "
        "until it has terminated.",
        "`int_queue`: one actor sends 1,000,000 ints to another; ns per int. No published "
        "figure.",
        "`alloc_copy_floor`: the same code in every program (no library in it): reserve a "
        "512-byte buffer as the save cases do, copy 16 bytes into it (more than any save "
        "case writes), free it. The floor under which no save case can go; the exemption "
        "uses the least floor any program measured in the run.",
    ]
    out += ["Notes:", ""] + [f"- {n}" for n in notes] + [""]

    chart = "micro_ratios.png"
    chart_cases = [c for c in cases if c != FLOOR_CASE]
    if ratio_chart(report, chart_cases, ratio_systems, ratios, os.path.join(results_dir, chart)):
        out += [f"![{name}: time ratios]({chart})", ""]

    failures = [l for l in measured if l.get("failed")]
    if failures:
        out += ["Failed runs:", ""]
        for line in failures:
            error = (line.get("error") or "").replace("\n", " ").replace("|", "\\|")
            out.append(f"- `{line['case']}` {report.pretty_system(line['system'])}: {error}")
        out.append("")
    return out


def targets_table(report, cases, cell, ratios, caf1, caf0):
    """Seed 004's targets, one row per case, from the ratios of this run."""
    # The floor is the same code in every program, yet one process's heap
    # can make it slower than another's: the least of them is the machine's.
    floors = [v["value"] for (case, _), v in cell.items()
              if case == FLOOR_CASE and v.get("value")]
    floor = min(floors, default=None)
    rows = []
    for case in cases:
        if case == FLOOR_CASE:
            continue
        other = caf1 if (case, caf1) in ratios else (caf0 if case == "or_else" else None)
        ratio = ratios.get((case, other)) if other else None
        if ratio is None:
            continue
        target = TARGET_RATIO.get(case, DEFAULT_TARGET_RATIO)
        mine = cell[(case, "troupe")]["value"]
        if ratio <= target:
            status = "met"
        elif floor and mine <= FLOOR_EXEMPT_FACTOR * floor:
            status = (f"exempt: {mine:.1f} ns is within {FLOOR_EXEMPT_FACTOR:g}× of "
                      f"`{FLOOR_CASE}` ({floor:.1f} ns)")
        else:
            status = "**missed**"
        rows.append(f"| `{case}` | {report.pretty_system(other)} | {report.fmt_ratio(ratio)} "
                    f"| ≤ {target:g} | {status} |")
    if not rows:
        return []
    return (["Targets (seed 004, as the issue states them): Troupe's time at most 0.5× CAF "
             "1.1's measured in the same run (`load_msg_2int` and `pattern_matching` 0.25×; "
             "`or_else` too, since CAF 1.1 still has `message_handler::or_else`; the issue "
             "expected it against CAF 0.17 only), except where Troupe is "
             f"within 2× of one allocation plus a copy of the payload (`{FLOOR_CASE}`).", "",
             "| case | against | ratio | target | status |", "|---|---|---|---|---|"]
            + rows + [""])


def ratio_chart(report, cases, others, ratios, path):
    """Bars of Troupe's time over each competitor's, per case (log scale)."""
    plt = report.plt
    if not ratios:
        return False
    fig, ax = plt.subplots(figsize=(max(8.0, 0.9 * len(cases) + 2), 4.8))
    width = 0.8 / max(1, len(others))
    for j, other in enumerate(others):
        xs, ys = [], []
        for i, case in enumerate(cases):
            r = ratios.get((case, other))
            if r is not None:
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(r)
        ax.bar(xs, ys, width * 0.92, color=report.color_of(other, j), edgecolor="black",
               linewidth=0.4, label=f"Troupe / {report.pretty_system(other)}")
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.2f}", (x, y), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)
    ax.axhline(1.0, color="black", linewidth=1.0)
    ax.set_yscale("log", base=2)
    values = list(ratios.values())
    ax.set_ylim(min(min(values), 1.0) / 1.6, max(max(values), 1.0) * 1.8)
    ax.yaxis.set_major_locator(report.matplotlib.ticker.LogLocator(base=2, numticks=30))
    ax.yaxis.set_major_formatter(
        report.matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_formatter(report.matplotlib.ticker.NullFormatter())
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("time ratio (Troupe / competitor)")
    ax.set_title("Study micro: Troupe's time per iteration divided by each competitor's\n"
                 "(below the line at 1: Troupe is faster)", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
