"""Study `streaming`: seed 002's micro-benchmarks and applications
(benchmarks/streaming/, see its README.md), each written once per system:
Troupe's streaming layer (`troupe`), Troupe's and CAF's plain actors
(`troupe-actors`, `caf-*`), CAF 1.x's flow API on the micro cases
(`caf-1.x-flow`) and one thread per operator replica with moodycamel's SPSC
queues (`threads`).

tools/bench.py calls run(), which decides what to run; tools/report.py
calls report_section(). For each worker count T of --threads:

  throughput   pipeline3 and the four applications at full speed, with one
               replica per operator (`threads=T,replicas=1`) and, when
               T > 1, every operator replicated to T
               (`threads=T,replicas=fill`); metric tuples_per_s
  cost         producer_consumer (`threads=T`); metric ns_per_tuple
  latency      each throughput case again at the largest T with one replica
               per operator, its source paced to half the lowest
               throughput any system reached there in this run
               (`threads=T,replicas=1,rate=N`; FALLBACK_RATES when no
               throughput was measured, e.g. with --cases); metrics
               latency_p50_us and latency_p99_us
  peak memory  every throughput run's peak resident memory (bench.py's
               `rss`), shown for the last throughput configuration
  memory       slow_sink at the largest T, one run per system (a time
               series, not a time): rss_mib_first, rss_mib_last,
               rss_growth_pct, dropped, capped

Systems take turns run by run, as in bench.py's generic runner. --cases
picks cases by name. `troupe` may be absent (its programs are optional):
then the tables show the others and say so.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (tools/ is on the path only now)

THROUGHPUT_CASES = ["pipeline3", "wordcount", "fraud_detection", "spike_detection",
                    "linear_road"]
COST_CASE = "producer_consumer"
MEMORY_CASE = "slow_sink"
# Troupe only: the CPU an idle graph uses while its input waits.
IDLE_CASE = "idle_graph"
CASES = [COST_CASE] + THROUGHPUT_CASES + [MEMORY_CASE, IDLE_CASE]

# Rates (tuples/s) for the latency runs when this run measured no
# throughput to halve; about half the slowest system's on a 2-core machine.
FALLBACK_RATES = {"pipeline3": 500_000, "wordcount": 25_000, "fraud_detection": 150_000,
                  "spike_detection": 300_000, "linear_road": 60_000}

# Rows of every table, in this order; systems not listed come after.
ORDER = ["troupe", "troupe-actors", "caf-1", "caf-flow", "caf-0", "threads"]
REFERENCE = "troupe"

DESCRIPTION = {
    "troupe": "Troupe's streaming layer (`seq_node`, typed bounded queues)",
    "troupe-actors": "Troupe, plain actors",
    "caf-1": "CAF 1.x, plain actors",
    "caf-flow": "CAF 1.x, its flow API (`observe_on` between actors)",
    "caf-0": "CAF 0.17, plain actors",
    "threads": "a thread per operator replica, SPSC queues",
}

# Troupe's two versions in two reds, CAF 1.x's flows in a light blue beside
# its plain actors; the others in report.py's colours.
COLORS = {"troupe-actors": "#ff9896", "troupe": "#d62728", "caf-flow": "#9ecae1"}

# The seed's CAF-PP / CAF ratios with every operator replicated (its
# Fig. 17), the targets for Troupe over CAF 1.x plain actors.
SEED_RATIOS = {"wordcount": 3.1, "fraud_detection": 1.7, "spike_detection": 6.0,
               "linear_road": 2.0}


# -- running -------------------------------------------------------------------------


def config_name(threads, replicas=None, rate=None):
    parts = [f"threads={threads}"]
    if replicas is not None:
        parts.append(f"replicas={replicas}")
    if rate is not None:
        parts.append(f"rate={rate}")
    return ",".join(parts)


def flags_of(replicas=None, rate=None):
    flags = []
    if replicas is not None:
        flags.append(f"--replicas={0 if replicas == 'fill' else replicas}")
    if rate is not None:
        flags.append(f"--rate={rate}")
    return flags


def measure(study, case, config, flags, threads, systems, programs, runs, args, emit):
    """Runs `case` on every system `runs` times, turn by turn, and emits the
    lines; returns {system: [Run, ...]}."""
    scale = "full" if args.full else "quick"
    present = [s for s in systems if case in programs[s]]
    results = {s: [] for s in present}
    for i in range(runs):
        for system in present:
            if any(not r.ok for r in results[system]):
                continue  # a failure would most likely repeat
            cmd = [programs[system][case], f"--threads={threads}", f"--scale={scale}"] + flags
            run = bench.run_program(cmd, args.timeout, args.launcher)
            results[system].append(run)
            shown = " ".join(l for l in run.stdout.split("\n")
                             if l.startswith("metric ") or l.startswith("checksum"))
            status = (f"{run.wall:7.2f} s  {shown}" if run.ok
                      else "FAILED: " + run.error.replace("\n", " | "))
            print(f"[{study}] {case:17} {config:31} {system:13} run {i + 1}/{runs}: {status}",
                  flush=True)
    for system in present:
        for line in bench.summarise(study, case, system, config, results[system]):
            emit(line)
    return results


def median_metric(runs, name):
    values = sorted(v for v in (bench.program_metrics(r.stdout).get(name, (None,))[0]
                                for r in runs if r.ok) if v is not None)
    return values[len(values) // 2] if values else None


def latency_rate(case, measured):
    """Half the lowest throughput any system reached, to two significant
    digits; FALLBACK_RATES[case] without one."""
    values = [median_metric(runs, "tuples_per_s") for runs in measured.values()]
    values = [v for v in values if v]
    if not values:
        return FALLBACK_RATES[case]
    rate = min(values) / 2
    digits = len(str(int(rate))) - 2
    return max(1000, int(round(rate, -digits)))


def run(study, programs, expected, args, emit):
    systems = sorted(programs, key=bench.system_rank)
    if args.systems:
        systems = [s for s in systems if s in args.systems]
    # Systems of other studies only (tbb, sequential) list their studies.
    bench.emit_absent(study, programs, expected, args, emit)
    cases = [c for c in CASES if not args.cases or c in args.cases]
    top = max(args.threads)

    if COST_CASE in cases:
        for threads in args.threads:
            measure(study, COST_CASE, config_name(threads), [], threads, systems, programs,
                    args.runs, args, emit)

    for case in [c for c in THROUGHPUT_CASES if c in cases]:
        at_top = {}
        for threads in args.threads:
            for replicas in ([1, "fill"] if threads > 1 else [1]):
                measured = measure(study, case, config_name(threads, replicas),
                                   flags_of(replicas), threads, systems, programs, args.runs,
                                   args, emit)
                if threads == top and replicas == 1:
                    at_top = measured
        rate = latency_rate(case, at_top)
        measure(study, case, config_name(top, 1, rate), flags_of(1, rate), top, systems,
                programs, args.runs, args, emit)

    if MEMORY_CASE in cases:
        measure(study, MEMORY_CASE, config_name(top), [], top, systems, programs, 1, args, emit)

    if IDLE_CASE in cases:
        measure(study, IDLE_CASE, config_name(top), [], top, systems, programs, 1, args, emit)


# -- report --------------------------------------------------------------------------


def family(system):
    """The entry of ORDER a system belongs to: caf-1.1 to caf-1,
    caf-1.1-flow to caf-flow."""
    if system.startswith("caf-") and system.endswith("-flow"):
        return "caf-flow"
    for prefix in ORDER:
        if system == prefix or (prefix.startswith("caf-") and system.startswith(prefix)):
            return prefix
    return None


def rank(system):
    prefix = family(system)
    return (ORDER.index(prefix) if prefix else len(ORDER), system)


def describe(system):
    return DESCRIPTION.get(family(system), system)


def parse_config(config):
    out = {}
    for part in (config or "").split(","):
        key, _, value = part.partition("=")
        if key:
            out[key] = value
    return out


def config_key(config):
    c = parse_config(config)
    replicas = c.get("replicas", "1")
    return (int(c.get("threads", 0) or 0), replicas == "fill", "rate" in c)


class Results:
    def __init__(self, lines):
        self.absent = [l for l in lines if l.get("metric") == "absent"]
        measured = [l for l in lines if l.get("metric") != "absent"]
        self.cell = {(l["case"], l["config"], l["system"], l["metric"]): l for l in measured}
        self.systems = sorted({l["system"] for l in measured}, key=rank)
        self.cases = [c for c in CASES if any(l["case"] == c for l in measured)]

    def configs(self, case, rate=False):
        found = {k[1] for k in self.cell if k[0] == case}
        return sorted((c for c in found if ("rate" in parse_config(c)) == rate), key=config_key)

    def line(self, case, config, system, metric):
        return self.cell.get((case, config, system, metric))

    def value(self, case, config, system, metric):
        line = self.line(case, config, system, metric)
        return None if line is None else line.get("value")

    def systems_of(self, case):
        return [s for s in self.systems if any(k[0] == case and k[2] == s for k in self.cell)]

    def has_reference(self, case):
        return any(k[0] == case and k[2] == REFERENCE and l.get("value") is not None
                   for k, l in self.cell.items())


def fmt_value(line, report, scale=1.0):
    if line is None:
        return "—"
    if line.get("value") is None:
        return "failed"
    text = report.fmt_number(line["value"] * scale)
    if line.get("runs", 1) > 1 and line.get("min") is not None:
        text += (f" ({report.fmt_number(line['min'] * scale)}–"
                 f"{report.fmt_number(line['max'] * scale)})")
    if line.get("failed"):
        text += f" [{line['failed']} failed]"
    return text


def fmt_times(x, better):
    """A ratio, bold when Troupe is better."""
    if x is None:
        return "—"
    return f"**{x:.2f}×**" if better(x) else f"{x:.2f}×"


def config_label(config):
    c = parse_config(config)
    text = f"{c.get('threads')} worker{'s' if c.get('threads') != '1' else ''}"
    if "replicas" in c:
        text += ", replicas " + ("= workers" if c["replicas"] == "fill" else c["replicas"])
    return text


def throughput_table(res, case, report):
    configs = res.configs(case)
    systems = res.systems_of(case)
    has_reference = res.has_reference(case)
    header = ["version"] + [f"Mtuples/s, {config_label(c)}" for c in configs]
    if has_reference:
        header += [f"troupe / version, {config_label(c)}" for c in configs]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for system in systems:
        row = [f"`{system}`: {describe(system)}"]
        row += [fmt_value(res.line(case, c, system, "tuples_per_s"), report, 1e-6)
                for c in configs]
        if has_reference:
            for c in configs:
                mine = res.value(case, c, REFERENCE, "tuples_per_s")
                theirs = res.value(case, c, system, "tuples_per_s")
                row.append("—" if system == REFERENCE or not mine or not theirs
                           else fmt_times(mine / theirs, lambda x: x > 1))
        out.append("| " + " | ".join(row) + " |")
    return out, has_reference


def cost_table(res, report):
    configs = res.configs(COST_CASE)
    has_reference = res.has_reference(COST_CASE)
    header = ["version"] + [f"ns per tuple, {config_label(c)}" for c in configs]
    if has_reference:
        header += [f"troupe / version, {config_label(c)}" for c in configs]
    out = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for system in res.systems_of(COST_CASE):
        row = [f"`{system}`: {describe(system)}"]
        row += [fmt_value(res.line(COST_CASE, c, system, "ns_per_tuple"), report)
                for c in configs]
        if has_reference:
            for c in configs:
                mine = res.value(COST_CASE, c, REFERENCE, "ns_per_tuple")
                theirs = res.value(COST_CASE, c, system, "ns_per_tuple")
                row.append("—" if system == REFERENCE or not mine or not theirs
                           else fmt_times(mine / theirs, lambda x: x < 1))
        out.append("| " + " | ".join(row) + " |")
    return out, has_reference


def latency_table(res, report):
    rows = [(case, config) for case in THROUGHPUT_CASES for config in res.configs(case, rate=True)]
    if not rows:
        return []
    systems = [s for s in res.systems
               if any(res.line(c, k, s, "latency_p50_us") for c, k in rows)]
    header = ["case", "rate (tuples/s)"] + [f"`{s}` p50 / p99 (µs)" for s in systems]
    out = ["| " + " | ".join(header) + " |", "|---|---:|" + "---:|" * len(systems)]
    for case, config in rows:
        row = [f"`{case}`", f"{int(parse_config(config)['rate']):,}"]
        for system in systems:
            p50 = res.line(case, config, system, "latency_p50_us")
            p99 = res.line(case, config, system, "latency_p99_us")
            if p50 is None:
                row.append("—")
            elif p50.get("value") is None:
                row.append("failed")
            else:
                row.append(f"{report.fmt_number(p50['value'])} / "
                           f"{report.fmt_number(p99['value']) if p99 else '—'}")
        out.append("| " + " | ".join(row) + " |")
    return out


def peak_rss_table(res, report):
    """Peak resident memory of each application's runs at full speed, in
    the last throughput configuration (the most workers, every operator
    replicated, where that was run): bench.py's `rss` of every run."""
    cases = [c for c in THROUGHPUT_CASES if res.configs(c)]
    configs = {case: res.configs(case)[-1] for case in cases}
    systems = [s for s in res.systems
               if any(res.line(c, configs[c], s, "rss") for c in cases)]
    if not systems:
        return []
    header = ["case", "configuration"] + [f"`{s}`" for s in systems]
    if REFERENCE in systems:
        header += [f"troupe / `{s}`" for s in systems if s != REFERENCE]
    out = ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
    for case in cases:
        config = configs[case]
        row = [f"`{case}`", config_label(config)]
        row += [fmt_value(res.line(case, config, s, "rss"), report) for s in systems]
        if REFERENCE in systems:
            mine = res.value(case, config, REFERENCE, "rss")
            for system in (s for s in systems if s != REFERENCE):
                theirs = res.value(case, config, system, "rss")
                row.append("—" if not mine or not theirs
                           else fmt_times(mine / theirs, lambda x: x < 1))
        out.append("| " + " | ".join(row) + " |")
    return out


MEMORY_METRICS = [("rss_mib_first", "resident MiB after 1 s"),
                  ("rss_mib_last", "resident MiB at the end"),
                  ("rss_growth_pct", "growth (%)"),
                  ("dropped", "tuples dropped"),
                  ("capped", "stopped at the memory cap")]


def memory_table(res, report):
    configs = res.configs(MEMORY_CASE)
    if not configs:
        return [], None
    config = configs[-1]
    systems = res.systems_of(MEMORY_CASE)
    out = ["| | " + " | ".join(f"`{s}`" for s in systems) + " |",
           "|---|" + "---:|" * len(systems)]
    for metric, label in MEMORY_METRICS:
        row = [label]
        for system in systems:
            line = res.line(MEMORY_CASE, config, system, metric)
            if metric == "capped" and line and line.get("value") is not None:
                row.append("yes" if line["value"] else "no")
            else:
                row.append(fmt_value(line, report))
        out.append("| " + " | ".join(row) + " |")
    return out, config


def throughput_chart(res, path):
    """One group of bars per case, one bar per system and configuration:
    tuples/s on a log scale."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import report

    cases = [c for c in THROUGHPUT_CASES if c in res.cases]
    configs = sorted({c for case in cases for c in res.configs(case)}, key=config_key)
    series = [(s, c) for s in res.systems for c in configs]
    values = {(case, s, c): res.value(case, c, s, "tuples_per_s")
              for case in cases for s, c in series}
    if not any(values.values()):
        return False
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(8.0, 2.4 * len(cases) + 2), 5.0))
    for j, (system, config) in enumerate(series):
        xs, ys = [], []
        for i, case in enumerate(cases):
            v = values[(case, system, config)]
            if v:
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(v)
        shade = configs.index(config) / max(1, len(configs))
        color = COLORS.get(family(system)) or report.color_of(system, j)
        ax.bar(xs, ys, width * 0.92, color=color,
               alpha=1.0 - 0.6 * shade, edgecolor="black", linewidth=0.4,
               hatch="//" if "fill" in config else None,
               label=f"{system}, {config_label(config)}")
    ax.set_yscale("log")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases)
    ax.set_ylabel("tuples/s (log scale)")
    ax.set_title("Study streaming: throughput at full speed (higher is better)", fontsize=10)
    ax.legend(fontsize=6, ncol=min(4, len(series)), loc="upper center",
              bbox_to_anchor=(0.5, -0.08), frameon=False)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def targets(res):
    """The issue's targets that this run can check, as bullet lines."""
    out = []
    top = lambda case, fill: next((c for c in reversed(res.configs(case))  # noqa: E731
                                   if (parse_config(c).get("replicas") == "fill") == fill), None)

    def value(case, config, system, metric="tuples_per_s"):
        return res.value(case, config, system, metric) if config else None

    def find(prefix):
        return next((s for s in res.systems if family(s) == prefix), None)

    caf1, threads, actors = find("caf-1"), find("threads"), find("troupe-actors")
    config = top("pipeline3", False)
    mine = value("pipeline3", config, REFERENCE)
    if mine:
        for other, goal in ((threads, 0.9), (caf1, 3.0)):
            theirs = value("pipeline3", config, other) if other else None
            if theirs:
                ratio = mine / theirs
                out.append(f"- pipeline3 ({config}): troupe / `{other}` = {ratio:.2f}× "
                           f"(target ≥ {goal}×): {'met' if ratio >= goal else '**not met**'}")
    config = res.configs(COST_CASE)[-1] if res.configs(COST_CASE) else None
    cost = value(COST_CASE, config, REFERENCE, "ns_per_tuple")
    if cost:
        out.append(f"- producer_consumer ({config}): {cost:.0f} ns per tuple (target ≤ 100): "
                   f"{'met' if cost <= 100 else '**not met**'}")
    for case, goal in SEED_RATIOS.items():
        config = top(case, True)
        mine = value(case, config, REFERENCE)
        if not mine:
            continue
        theirs = value(case, config, caf1) if caf1 else None
        if theirs:
            ratio = mine / theirs
            out.append(f"- {case} ({config}): troupe / `{caf1}` = {ratio:.2f}× (target ≥ "
                       f"{goal}×, the seed's): {'met' if ratio >= goal else '**not met**'}")
        plain = value(case, config, actors) if actors else None
        if plain:
            out.append(f"- {case} ({config}): troupe / troupe-actors = {mine / plain:.2f}× "
                       f"(target > 1): {'met' if mine > plain else '**not met**'}")
    growth = res.value(MEMORY_CASE, (res.configs(MEMORY_CASE) or [None])[-1], REFERENCE,
                       "rss_growth_pct")
    if growth is not None:
        out.append(f"- slow_sink: troupe's memory grew {growth:.1f}% after the first second "
                   f"(target ≤ 10%): {'met' if abs(growth) <= 10 else '**not met**'}")
    idle = res.value(IDLE_CASE, (res.configs(IDLE_CASE) or [None])[-1], REFERENCE,
                     "idle_cpu_pct")
    if idle is not None:
        out.append(f"- idle_graph: a graph waiting for input used {idle:.4f}% of one CPU "
                   f"(target < 0.05%): {'met' if idle < 0.05 else '**not met**'}")
    return out


def report_section(name, lines, machine, results_dir):
    import report
    res = Results(lines)
    where = ('The programs and what each version does '
             'are in `benchmarks/streaming/README.md`.')
    out = report.study_preamble(name, machine, res.absent, where,
                                runs_note=' (slow_sink: one)')
    if not res.cases:
        return out + ["No measurements.", ""]
    if not any(s == REFERENCE for s in res.systems):
        out += ["Troupe's streaming layer (`troupe`) is absent from this run (its programs, "
                "`benchmarks/streaming/troupe/<case>.cpp`, are optional), so the tables have "
                "no `troupe / version` columns and the targets are not checked.", ""]

    if COST_CASE in res.cases:
        table, _ = cost_table(res, report)
        out += [f"### `{COST_CASE}`: cost per tuple", "",
                "One producer sends 24-byte tuples to one consumer; the time of the whole "
                "transfer divided by the tuples (median, fastest and slowest run in "
                "brackets). **Bold**: Troupe is cheaper.", ""] + table + [""]

    out += ["### Throughput at full speed", "",
            "Tuples the sources emitted (input lines for the applications) per second, "
            "from the first source tuple to the end of the last sink, in millions (median, "
            "fastest and slowest run in brackets); `replicas = workers` replicates every "
            "operator, sources and sinks included, to the worker count. "
            "The `troupe / version` columns divide Troupe's throughput by each version's: "
            "**above 1 (bold) Troupe is faster**.", ""]
    for case in [c for c in THROUGHPUT_CASES if c in res.cases]:
        table, has_reference = throughput_table(res, case, report)
        out += [f"#### `{case}`", ""] + table + [""]
    chart = f"{name}_throughput.png"
    if throughput_chart(res, os.path.join(results_dir, chart)):
        out += [f"![{name}: throughput]({chart})", ""]

    latency = latency_table(res, report)
    if latency:
        out += ["### Latency at half the slowest system's throughput", "",
                "The sources paced to the rate shown (half the lowest throughput any system "
                "reached with one replica per operator at this worker count, in the same "
                "run), one replica per operator; the sinks sample the latency from the "
                "source's timestamp of every 100th tuple they receive (FraudDetection and "
                "SpikeDetection: every tuple, their sinks get a few per 100). Median over runs "
                "of each run's p50 and p99.", ""] + latency + [""]

    peak = peak_rss_table(res, report)
    if peak:
        out += ["### Peak resident memory at full speed (MiB)", "",
                "Of the whole process, from the kernel's accounting of each run (median, "
                "least and most in brackets), in the throughput runs with the most workers "
                "and every operator replicated. The `troupe / version` columns divide "
                "Troupe's by each version's: **below 1 (bold) Troupe needs less**.", ""]
        out += peak + [""]

    memory, config = memory_table(res, report)
    if memory:
        out += [f"### `{MEMORY_CASE}`: memory with a sink slower than its source "
                f"({config_label(config)})", "",
                "The source runs at full speed, the sink spins per tuple (see the README) "
                "for the whole run; resident memory is sampled every second. Bounded "
                "queues keep it flat; unbounded mailboxes grow until the run ends or the "
                "memory cap stops the source. Then the sink drains without spinning, and "
                "`dropped` counts the tuples that never reached it.", ""] + memory + [""]

    goals = targets(res)
    if goals:
        out += ["### The issue's targets", ""] + goals + [""]

    failures = [(k, l) for k, l in res.cell.items() if l.get("failed") and k[3] == "time"]
    if failures:
        out += ["Failed runs:", ""]
        for (case, config, system, _), line in sorted(
                failures, key=lambda kv: (kv[0][0], rank(kv[0][2]), kv[0][1])):
            error = (line.get("error") or "").replace("\n", " ").replace("|", "\\|")
            out.append(f"- `{case}` {config} {report.pretty_system(system)}: {error}")
        out.append("")
    return out
