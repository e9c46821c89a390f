"""Study `locality`: seed 003's benchmarks and its chat server
(benchmarks/locality/, see its README.md) under three Troupe schedulers and
CAF's default.

Troupe's programs run as three systems, one per scheduler:

    troupe-work-stealing      --policy=work-stealing (random victims, adaptive)
    troupe-locality-local     --policy=locality --placement=local     (LAS/L)
    troupe-locality-affinity  --policy=locality --placement=affinity  (LAS/A)

run() measures with the generic runner's bench.measure() (whole processes,
the systems taking turns run by run):

- every case on this machine's real topology with one worker per usable
  CPU (config `threads=T`): the speed comparison;
- CDICT's value-size sweep (config `threads=T,value-words=W`);
- every case but the chat server on a synthetic two-node topology, Troupe's
  locality policy only, one run each (config `threads=4,topology=...`):
  the steal order, read from the `steals_level<k>` counters the programs
  print; the workers outnumber the cores, so its times say nothing;
- the machine's wake-up floor (the latency study's `wake_floor` program,
  when built), printed beside the latency results;
- before and after each configuration of the sweep, the cost of moving a
  value of that size between two cores and back (`handoff_floor`, built
  beside `wake_floor`), printed beside the sweep.

report_section() writes the times normalised to the slowest system of each
case (the seed's Figures 1 and 2), the ratios the issue sets targets for,
the sweep, the latencies and memory of PUBSUB and the chat server, and the
steal counts.
"""

import copy
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (tools/ is on the path only now)

CASES = ["big", "bang", "logm", "apsp", "cdict", "csll", "nqn", "trapr", "pubsub", "chat"]
TROUPE_VARIANTS = [
    ("troupe-work-stealing", ["--policy=work-stealing"]),
    ("troupe-locality-local", ["--policy=locality", "--placement=local"]),
    ("troupe-locality-affinity", ["--policy=locality", "--placement=affinity"]),
]
DESCRIPTION = {
    "troupe-work-stealing": "Troupe, `work-stealing` (random victims, adaptive idle mode)",
    "troupe-locality-local": "Troupe, `locality`, placement `local` (LAS/L)",
    "troupe-locality-affinity": "Troupe, `locality`, placement `affinity` (LAS/A)",
}
BASELINE = "troupe-work-stealing"
LOCALITY = ["troupe-locality-local", "troupe-locality-affinity"]
# Two NUMA nodes of two cores: level 0 is the worker's own node, level 1 the
# other node.
SYNTHETIC = "numa:2 core:2 pu:1"
SYNTHETIC_WORKERS = 4
SYNTHETIC_LEVELS = ["own node", "other node"]
SWEEP_WORDS = {"quick": [8, 512, 4096], "full": [8, 64, 512, 4096]}
LATENCY_CASES = ["pubsub", "chat"]
FLOORS = ["wake_floor", "handoff_floor"]  # cases of the machine, not of a system
HANDOFF_COLUMNS = [("handoff_floor", "handoff across cores (µs)"),
                   ("handoff_one_core", "on one core (µs)")]
PERCENTILES = [("latency_p50", "p50"), ("latency_p90", "p90"), ("latency_p99", "p99"),
               ("latency_p999", "p99.9"), ("latency_max", "max")]
WAKE_ROUNDS = 2000
HANDOFF_ROUNDS = 20000


def chat_run(args):
    """The chat server runs once per system: a quick run takes seconds to
    half a minute, a full one (a million sessions) many minutes."""
    one = copy.copy(args)
    one.runs = 1
    one.timeout = max(args.timeout, 7200.0 if args.full else 300.0)
    return one


def workers():
    return len(os.sched_getaffinity(0))


def rank(system):
    names = [v for v, _ in TROUPE_VARIANTS]
    if system in names:
        return (0, names.index(system), system)
    return (1,) + bench.system_rank(system)


def describe(system):
    if system in DESCRIPTION:
        return DESCRIPTION[system]
    if system.startswith("caf-"):
        return f"CAF {system[4:]}, default scheduler"
    return system


# -- running -------------------------------------------------------------------------


def commands_for(programs, systems, case, extra, troupe_variants=TROUPE_VARIANTS,
                 competitors=True):
    out = []
    for system in systems:
        program = programs[system].get(case)
        if program is None:
            continue
        if system == "troupe":
            out += [(name, [program] + flags + extra) for name, flags in troupe_variants]
        elif competitors:
            out.append((system, [program] + extra))
    return out


def floor_program(programs, name):
    """A machine floor from benchmarks/latency/threads, if it is built next
    to us; None otherwise."""
    any_program = next(iter(next(iter(programs.values())).values()))
    bench_root = os.path.dirname(os.path.dirname(os.path.dirname(any_program)))
    program = os.path.join(bench_root, "latency", "threads", name)
    return program if bench.is_program(program) else None


def floor_lines(study, programs, name, flags):
    """Runs the floor `name` with `flags`: the JSON lines it prints, or []
    when it is not built or fails (which is said)."""
    program = floor_program(programs, name)
    if program is None:
        print(f"[{study}] {name}: not built (build benchmarks/latency's threads/{name}); "
              "the report leaves it out", flush=True)
        return []
    run = bench.run_program([program] + flags, 60.0, None)
    if not run.ok:
        print(f"[{study}] {name}: FAILED: {run.error}", flush=True)
        return []
    lines = []
    for text in run.stdout.splitlines():
        try:
            lines.append(json.loads(text))
        except ValueError:
            continue
    return lines


def wake_floor(study, programs, emit):
    """The latency study's futex ping-pong."""
    for line in floor_lines(study, programs, "wake_floor", [f"--rounds={WAKE_ROUNDS}"]):
        line.update(study=study, case="wake_floor")
        emit(line)
        print(f"[{study}] wake_floor: {line['metric']} {line['value']} {line['unit']}",
              flush=True)


def handoff_floor(study, programs, words):
    """One reading of what moving a value of `words` words between two
    cores costs: {metric: value}, empty when it cannot be measured."""
    if workers() < 2:
        return {}
    lines = floor_lines(study, programs, "handoff_floor",
                        [f"--rounds={HANDOFF_ROUNDS}", f"--words={words}"])
    return {line["metric"]: line["value"] for line in lines}


def emit_handoff_floor(study, config, readings, emit):
    """The readings taken around one sweep configuration, one line per
    metric: the median, and the least and most the machine showed."""
    for metric in sorted({m for r in readings for m in r}):
        values = sorted(r[metric] for r in readings if metric in r)
        emit({"study": study, "case": "handoff_floor", "system": "threads", "config": config,
              "metric": metric, "value": round(statistics.median(values), 3), "unit": "us",
              "runs": len(values), "min": values[0], "max": values[-1]})
        print(f"[{study}] handoff_floor {config}: {metric} {values[0]}..{values[-1]} us",
              flush=True)


def run(study, programs, expected, args, emit):
    systems = sorted(programs, key=bench.system_rank)
    if args.systems:
        systems = [s for s in systems if s in args.systems]
    competitors = {k: v for k, v in expected.items() if k not in ("threads", "tbb")}
    bench.emit_absent(study, programs, competitors, args, emit)
    scale = "full" if args.full else "quick"
    cases = [c for c in CASES if not args.cases or c in args.cases]
    threads = workers()
    base = [f"--threads={threads}", f"--scale={scale}"]

    wake_floor(study, programs, emit)
    for case in cases:
        bench.measure(study, case, f"threads={threads}",
                      commands_for(programs, systems, case, base),
                      chat_run(args) if case == "chat" else args, emit)
    if "cdict" in cases:
        for words in SWEEP_WORDS[scale]:
            config = f"threads={threads},value-words={words}"
            # The floor can change while the sweep runs (see handoff_floor.cpp):
            # read it before and after.
            readings = [handoff_floor(study, programs, words)]
            bench.measure(study, "cdict", config,
                          commands_for(programs, systems, "cdict",
                                       base + [f"--value-words={words}"]),
                          args, emit)
            readings.append(handoff_floor(study, programs, words))
            emit_handoff_floor(study, config, [r for r in readings if r], emit)
    if "troupe" in systems:
        one_run = copy.copy(args)
        one_run.runs = 1  # steal counts, not times
        synthetic = [(n, f) for n, f in TROUPE_VARIANTS if n in LOCALITY]
        for case in cases:
            if case == "chat":
                continue  # a million-actor run that says nothing about steal order
            extra = [f"--threads={SYNTHETIC_WORKERS}", f"--scale={scale}"]
            commands = [(name, cmd + [f"--topology={SYNTHETIC}"]) for name, cmd in
                        commands_for(programs, systems, case, extra, synthetic, False)]
            bench.measure(study, case, f"threads={SYNTHETIC_WORKERS},topology={SYNTHETIC}",
                          commands, one_run, emit)


# -- report --------------------------------------------------------------------------


class Results:
    def __init__(self, lines):
        self.absent = [l for l in lines if l.get("metric") == "absent"]
        measured = [l for l in lines if l.get("metric") != "absent"]
        self.cell = {(l["case"], l["config"], l["system"], l["metric"]): l for l in measured}
        self.systems = sorted({l["system"] for l in measured if l["case"] not in FLOORS},
                              key=rank)
        configs = {l["config"] for l in measured}
        self.real = sorted(c for c in configs if c.startswith("threads=") and "," not in c)
        self.sweep = sorted((c for c in configs if ",value-words=" in c),
                            key=lambda c: int(c.rpartition("=")[2]))
        self.synthetic = sorted(c for c in configs if ",topology=" in c)
        self.cases = [c for c in CASES if any(k[0] == c for k in self.cell)]

    def line(self, case, config, system, metric="time"):
        return self.cell.get((case, config, system, metric))

    def value(self, case, config, system, metric="time"):
        line = self.line(case, config, system, metric)
        return None if line is None else line.get("value")


def slowest(res, case, config):
    values = [res.value(case, config, s) for s in res.systems]
    values = [v for v in values if v]
    return max(values) if values else None


def time_table(res, config, report):
    systems = [s for s in res.systems if any(res.line(c, config, s) for c in res.cases)]
    header = ["case"] + [f"`{s}`" for s in systems]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(systems)]
    for case in res.cases:
        worst = slowest(res, case, config)
        row = [f"`{case}`"]
        for system in systems:
            line = res.line(case, config, system)
            text = report.fmt_cell(line)
            if line is not None and line.get("value") and worst:
                text += f" · {report.fmt_fraction(line['value'] / worst)}"
            row.append(text)
        out.append("| " + " | ".join(row) + " |")
    return out


def ratio_rows(res, config, report):
    """The issue's targets: locality at most 5% slower than work-stealing,
    and faster than CAF 1.x, on every case."""
    caf1 = sorted((s for s in res.systems if s.startswith("caf-1")), key=rank)
    columns = [(v, BASELINE, "≤ 1.05") for v in LOCALITY]
    columns += [(v, c, "< 1") for c in caf1[-1:] for v in LOCALITY]
    columns += [(BASELINE, c, "") for c in caf1[-1:]]
    header = ["case"] + [f"`{a}` / `{b}`" + (f" (target {t})" if t else "")
                         for a, b, t in columns]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(columns)]
    unpaired = False
    for case in res.cases:
        row = [f"`{case}`"]
        for a, b, _ in columns:
            r, paired = time_ratio(res, case, config, a, b)
            unpaired |= r is not None and not paired
            row.append("—" if r is None else report.fmt_ratio(r) + ("" if paired else " ᵐ"))
        out.append("| " + " | ".join(row) + " |")
    if unpaired:
        out += ["", "ᵐ: a ratio of medians (a cell measured before the runs' own times "
                "were kept)."]
    return out


def time_ratio(res, case, config, a, b):
    """(a's time / b's, paired), as report.paired_ratio pairs them."""
    import report
    return report.paired_ratio(res.line(case, config, a), [res.line(case, config, b)])


def normalised_chart(res, config, path, report):
    """The seed's Figures 1 and 2: each system's time divided by the
    slowest system's, one group of bars per case (lower is better)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [c for c in res.cases if slowest(res, c, config)]
    systems = [s for s in res.systems if any(res.value(c, config, s) for c in cases)]
    if not cases or not systems:
        return False
    width = 0.8 / len(systems)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.3 * len(cases) + 2), 4.6))
    for j, system in enumerate(systems):
        xs, ys = [], []
        for i, case in enumerate(cases):
            v = res.value(case, config, system)
            if v:
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(v / slowest(res, case, config))
        ax.bar(xs, ys, width * 0.92, color=color(system, j, report), edgecolor="black",
               linewidth=0.4, label=system)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("time / slowest system's time")
    ax.set_title(f"Study locality, {config}: time normalised to the slowest system "
                 "of each case (lower is better)", fontsize=10)
    ax.legend(fontsize=7, ncol=min(5, len(systems)), loc="upper center",
              bbox_to_anchor=(0.5, -0.08), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


COLORS = {"troupe-work-stealing": "#ff9896", "troupe-locality-local": "#d62728",
          "troupe-locality-affinity": "#8c564b"}


def color(system, index, report):
    return COLORS.get(system) or report.color_of(system, index)


def sweep_section(res, report, results_dir, name):
    if not res.sweep:
        return []
    systems = [s for s in res.systems if any(res.line("cdict", c, s) for c in res.sweep)]
    floors = [(m, label) for m, label in HANDOFF_COLUMNS
              if any(res.line("handoff_floor", c, "threads", m) for c in res.sweep)]
    header = ["value words"] + [f"`{s}`" for s in systems] + [label for _, label in floors]
    out = ["### CDICT value-size sweep", "",
           "Time (s) of `cdict` with each value of `--value-words` 64-bit words, copied "
           "into every write and every answer.", ""]
    if floors:
        out += ["Beside it, this machine's floor for the same value, read before and after "
                "each row's runs (median, least–most): one round of writing the value on "
                "one core and summing it on another (`handoff_floor`), against both on one "
                "core. Every read CDICT answers is such a handoff when the worker that asked "
                "runs on another core than the dictionary. On a virtual machine the floor "
                "changes while it runs (the host moves its virtual CPUs onto cores that do "
                "or do not share a cache), and the times of the schedulers that spread "
                "CDICT's workers over both cores change with it.", ""]
    out += ["| " + " | ".join(header) + " |",
            "|---:|" + "---:|" * (len(systems) + len(floors))]
    for config in res.sweep:
        row = [config.rpartition("=")[2]]
        row += [report.fmt_cell(res.line("cdict", config, s)) for s in systems]
        for metric, _ in floors:
            line = res.line("handoff_floor", config, "threads", metric)
            row.append("—" if line is None else
                       f"{line['value']:.2f} ({line['min']:.2f}–{line['max']:.2f})")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    chart = f"{name}_cdict_sweep.png"
    if sweep_chart(res, systems, os.path.join(results_dir, chart), report):
        out += [f"![{name}: CDICT value-size sweep]({chart})", ""]
    return out


def sweep_chart(res, systems, path, report):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    drawn = False
    for j, system in enumerate(systems):
        points = [(int(c.rpartition("=")[2]), res.value("cdict", c, system)) for c in res.sweep]
        points = [(x, y) for x, y in points if y]
        if points:
            ax.plot(*zip(*points), marker="o", color=color(system, j, report), label=system)
            drawn = True
    if not drawn:
        plt.close(fig)
        return False
    ax.set_xscale("log", base=2)
    ax.set_xlabel("value size (64-bit words)")
    ax.set_ylabel("time (s)")
    ax.set_title("CDICT: time against the size of the values", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def latency_section(res, config, report, results_dir, name):
    cases = [c for c in LATENCY_CASES if c in res.cases]
    if not cases:
        return []
    out = ["### Latency, throughput and memory", ""]
    floor = res.value("wake_floor", "futex", "threads", "wake_floor")
    floor99 = res.value("wake_floor", "futex", "threads", "wake_floor_p99")
    if floor is not None:
        out += [f"This machine's wake-up floor (a futex ping-pong between two threads, "
                f"median of {WAKE_ROUNDS} rounds): {floor:.1f} µs, p99 "
                f"{floor99:.1f} µs. PUBSUB's latencies sit on it: each round waits "
                "for acknowledgements, so workers park between rounds.", ""]
    for case in cases:
        systems = [s for s in res.systems if res.line(case, config, s)]
        metrics = PERCENTILES + ([("throughput", "throughput (msg/s)")]
                                 if case == "chat" else []) + [("rss", "peak RSS (MiB)")]
        header = ["system"] + [f"{label} (µs)" if m.startswith("latency") else label
                               for m, label in metrics]
        out += [f"`{case}`, median over runs:", "",
                "| " + " | ".join(header) + " |", "|---|" + "---:|" * len(metrics)]
        for system in systems:
            row = [f"`{system}`"]
            for metric, _ in metrics:
                v = res.value(case, config, system, metric)
                row.append("—" if v is None else (f"{v:,.0f}" if metric == "throughput"
                                                  else report.fmt_number(v)))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    chart = f"{name}_latency.png"
    if latency_chart(res, config, cases, os.path.join(results_dir, chart), report):
        out += [f"![{name}: latency percentiles]({chart})", ""]
    return out


def latency_chart(res, config, cases, path, report):
    """One panel per case: each system's percentiles from p50 to the
    maximum as a ladder on a log scale (the programs keep histograms, not
    samples, so a letter-value plot is drawn from its letter values)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(cases), figsize=(6.0 * len(cases), 4.4), squeeze=False)
    drawn = False
    for ax, case in zip(axes[0], cases):
        systems = [s for s in res.systems
                   if res.value(case, config, s, "latency_p50") is not None]
        for j, system in enumerate(systems):
            values = [res.value(case, config, system, m) for m, _ in PERCENTILES]
            c = color(system, j, report)
            for k, v in enumerate(values[:-1]):
                top = values[k + 1]
                if v is None or top is None:
                    continue
                half = 0.36 * (0.75 ** k)
                ax.add_patch(matplotlib.patches.Rectangle(
                    (j - half, v), 2 * half, max(top - v, 1e-9), facecolor=c,
                    alpha=0.85 - 0.15 * k, edgecolor="black", linewidth=0.4))
            ax.plot([j - 0.4, j + 0.4], [values[0]] * 2, color="black", linewidth=1.4)
            drawn = True
        ax.set_yscale("log")
        lows = [res.value(case, config, s, "latency_p50") for s in systems]
        highs = [res.value(case, config, s, "latency_max") for s in systems]
        if lows and highs and all(lows) and all(highs):
            ax.set_ylim(min(lows) / 2, max(highs) * 2)
        ax.set_xlim(-0.6, len(systems) - 0.4)
        ax.set_xticks(range(len(systems)))
        ax.set_xticklabels(systems, rotation=25, ha="right", fontsize=7)
        ax.set_ylabel("latency (µs)")
        ax.set_title(f"{case}: boxes from p50 (line) to p90, p99, p99.9 and max",
                     fontsize=9)
        ax.grid(axis="y", which="both", alpha=0.3)
    if not drawn:
        plt.close(fig)
        return False
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def steal_section(res):
    if not res.synthetic:
        return []
    out = ["### Steal order on a synthetic topology", "",
           "Not a speed comparison: the programs run with "
           f"`--topology=\"{SYNTHETIC}\"` (two NUMA nodes of two cores) and "
           f"{SYNTHETIC_WORKERS} workers on this machine's "
           f"{workers()} CPUs, one run each. The counts are the workers' steals by "
           "victim level (`scheduler_stats()`): level 0 is the thief's own node, "
           "level 1 the other node, which it visits only when a round found its own "
           "node without work. Work that starts on one node (a hub and the actors it "
           "spawns) reaches the other node's workers only across nodes, so a high share "
           "is no sign of a wrong order; the order itself is asserted, per thief and "
           "level, in `tests/scheduler/locality_test.cpp`.", ""]
    header = ["case", "system", "steals", "own node", "other node", "share across nodes"]
    out += ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * 4]
    for config in res.synthetic:
        for case in res.cases:
            for system in LOCALITY:
                line = res.line(case, config, system)
                if line is None:
                    continue
                if line.get("value") is None:
                    out.append(f"| `{case}` | `{system}` | failed | | | |")
                    continue
                total = res.value(case, config, system, "steals") or 0
                levels = [res.value(case, config, system, f"steals_level{k}") or 0
                          for k in range(len(SYNTHETIC_LEVELS))]
                share = f"{levels[1] / total:.1%}" if total else "—"
                out.append(f"| `{case}` | `{system}` | {total:,.0f} | {levels[0]:,.0f} | "
                           f"{levels[1]:,.0f} | {share} |")
    return out + [""]


def report_section(name, lines, machine, results_dir):
    import report
    res = Results(lines)
    where = ("The cases, their sizes and where they differ from the seed are in "
             "`benchmarks/locality/README.md`.")
    out = report.study_preamble(name, machine, res.absent, where)
    if not res.cases:
        return out + ["No measurements.", ""]
    out += ["Systems: " + "; ".join(f"`{s}`: {describe(s)}" for s in res.systems) + ".", ""]
    for config in res.real:
        out += [f"### Time on this machine's topology, {config}", "",
                "Each cell: the median wall-clock time of the whole process (s), fastest "
                "and slowest run in brackets, then `·` the time divided by the slowest "
                "system's in that case (the seed's Figures 1 and 2; lower is better).", ""]
        out += time_table(res, config, report) + [""]
        out += ["Ratios of times, each the median over rounds of the ratio within a round "
                "(the systems take turns run by run, so a drift of the machine hits both "
                "alike); below 1 (bold) the first system is faster.", ""]
        out += ratio_rows(res, config, report) + [""]
        chart = f"{name}_normalised_{config.replace('=', '')}.png"
        if normalised_chart(res, config, os.path.join(results_dir, chart), report):
            out += [f"![{name}: time normalised to the slowest]({chart})", ""]
        out += latency_section(res, config, report, results_dir, name)
    out += sweep_section(res, report, results_dir, name)
    out += steal_section(res)
    failures = [(k, l) for k, l in res.cell.items() if l.get("failed") and k[3] == "time"]
    if failures:
        out += ["Failed runs:", ""]
        for (case, config, system, _), line in sorted(failures, key=lambda kv: kv[0]):
            error = (line.get("error") or "").replace("\n", " ").replace("|", "\\|")
            out.append(f"- `{case}` {config} `{system}`: {error}")
        out.append("")
    return out
