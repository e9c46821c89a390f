"""Study `latency`: the pipeline latency study of seed 000 (Torquati et al.).

tools/bench.py calls run(); tools/report.py calls report_section(). The
programs (benchmarks/latency/, see its README.md) measure themselves and
print JSON lines; this module decides what to run, tags every line with the
part of the study it belongs to ("part"), and turns the lines into tables,
plots and the issue's targets.

Parts (every system and configuration unless said otherwise):

  pipeline    latency and CPU versus pipeline length (4..24 stages at
              10 msg/s) and versus rate (10..100K msg/s at 12 stages), with
              periodic arrivals; with Poisson arrivals 12 stages at 10, 100
              and 1K msg/s and 4 and 24 stages at 10 msg/s
  timeout     Troupe `event`: wait-timeout from 10 us to 10 ms (12 stages,
              10 msg/s)
  idle        N actors alive, no messages: CPU, context switches and (Troupe)
              the scheduler's wake-ups and parks; once from start-up, once
              after a second of traffic (100 msg/s) and a 2 s settle
  max_rate    the highest rate 12 stages sustain (achieved >= 95% of the
              requested rate and median latency < 1 ms; a failed probe is
              tried once more): doubling, then bisecting, within a bounded
              number of probes; then, if Troupe `adaptive` found a lower
              rate than `adaptive-budget-0`, both again at the higher one
              in alternating probes (case ",run=K"): near the top a probe
              passes or fails by chance, for either
  rounds      Troupe `adaptive` and CAF 1.x `default` again in the cells
              issue 22's targets compare where one run spans under 3 s (100
              and 1K msg/s), in alternation, so that each pair covers 3 s of
              the machine's time: the targets take the median of the runs
  high_end    Troupe `adaptive` and `adaptive-budget-0` at 12 stages and
              100K msg/s, several runs each in alternation: whether the
              idle budget costs anything where work never stops (one run
              each varies by 1.5x from run to run on a shared VM)
  breakdown   Table II of the paper: g2p, act, rcv and snd with stage 8
              detached
  wake_floor  futex ping-pong between two threads, back to back and after
              idle gaps

--cases picks parts by these names; --threads and --runs are ignored (every
run uses one worker per usable CPU, and each cell is one run of many
samples). Before it runs anything, run() prints the plan and its estimated
duration.
"""

import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (tools/ is on the path only now)

PARTS = ["wake_floor", "idle", "pipeline", "rounds", "high_end", "timeout", "breakdown",
         "max_rate"]

TROUPE_CONFIGS = ["adaptive", "adaptive-budget-0", "adaptive-budget-1", "event", "polling-default",
                  "polling-custom", "polling-aggressive"]
CAF017_CONFIGS = ["default", "custom", "aggressive"]
CAF1_CONFIGS = ["default"]

STAGE_COUNTS = [4, 8, 12, 16, 24]
RATES = [10, 100, 1000, 10000, 100000]
LOW_RATE = 10
MAIN_STAGES = 12
DETACHED_STAGE = 8
ARRIVALS = ["periodic", "poisson"]
# Poisson cells (stages, rate): the rates of issue 22's targets at 12 stages,
# and the shortest and longest pipelines at the lowest rate.
POISSON_CELLS = [(MAIN_STAGES, 10), (MAIN_STAGES, 100), (MAIN_STAGES, 1000), (4, LOW_RATE),
                 (24, LOW_RATE)]
# The rates of the Pareto picture and of issue 22's targets (12 stages).
PARETO_RATES = [10, 100, 1000]
# The (stages, rate) cells issue 22's targets compare.
TARGET_CELLS = [(MAIN_STAGES, r) for r in PARETO_RATES] + [(4, LOW_RATE), (24, LOW_RATE)]
HIGH_RATE = 100000

# Sizes per mode. A cell at rate R runs max(min_samples / R, min_seconds);
# the cells issue 22's targets compare (Troupe adaptive and CAF 1.x default
# in TARGET_CELLS) take target_samples, so that their p99 is no mere maximum.
# "every_config_stages": the stage counts at 10 msg/s that every
# configuration runs; the others only each family's reference configuration.
MODES = {
    "quick": {
        "min_samples": 30, "min_seconds": 0.3, "target_samples": 100,
        "every_config_stages": [MAIN_STAGES],
        "idle_seconds": 4, "idle_actors": 100,
        "timeouts": ["10us", "50us", "200us", "1ms", "10ms"],
        "breakdown_stages": [12],
        "probe_seconds": 0.5, "max_probes": 14, "max_rate_pairs": 6,
        "high_end_runs": 9, "high_end_seconds": 1,
        "max_rate_configs": {"troupe": ["adaptive", "adaptive-budget-0"], "caf-1": ["default"],
                             "caf-0": ["default"]},
        "wake_rounds": 20000, "wake_gap_seconds": 1.0,
    },
    "full": {
        "min_samples": 100, "min_seconds": 2, "target_samples": 100,
        "every_config_stages": STAGE_COUNTS,
        "idle_seconds": 10, "idle_actors": 100,
        "timeouts": ["10us", "20us", "50us", "100us", "200us", "500us", "1ms", "2ms", "5ms",
                     "10ms"],
        "breakdown_stages": [12, 24],
        "probe_seconds": 1, "max_probes": 18, "max_rate_pairs": 8,
        "high_end_runs": 15, "high_end_seconds": 2,
        "max_rate_configs": {"troupe": ["adaptive", "adaptive-budget-0", "event",
                                        "polling-aggressive"],
                             "caf-1": ["default"], "caf-0": ["default", "aggressive"]},
        "wake_rounds": 100000, "wake_gap_seconds": 3.0,
    },
}

# The idle part runs every configuration from start-up as before, and each
# family's reference configuration (and Troupe's adaptive-budget-0) once more
# after a second of messages from outside with a 2 s settle (no adaptive
# worker anticipates work later than 1 s after its last job).
IDLE_TRAFFIC_SECONDS = 1
IDLE_TRAFFIC_SETTLE = 2
# Gaps of 10 ms: regular enough that an adaptive worker with an idle budget
# anticipates them, so the idle case shows it stops once the traffic does.
IDLE_TRAFFIC_RATE = 100

# What a run takes besides what it waits for: process start and exit (about
# 0.05 s measured), and the settle of pipeline.hpp's generator before its
# first message. For the plan's estimate only.
RUN_OVERHEAD_SECONDS = 0.05
GENERATOR_SETTLE_SECONDS = 0.1
IDLE_SETTLE_SECONDS = 0.5
WAKE_ROUND_SECONDS = 55e-6

WAKE_GAPS_US = [100, 1000, 10000, 100000]

# The breakdown's and the targets' reference configurations.
REFERENCE = {"troupe": "adaptive", "caf-1": "default", "caf-0": "default"}


def configs_of(system):
    if system == "troupe":
        return TROUPE_CONFIGS
    if system.startswith("caf-0"):
        return CAF017_CONFIGS
    if system.startswith("caf-"):
        return CAF1_CONFIGS
    return []


def family(system):
    """troupe, caf-1 or caf-0: the key of per-family settings."""
    return "troupe" if system == "troupe" else system[:5]


def pipeline_case(stages, rate, detached=None, wait_timeout=None, arrivals="periodic"):
    """The case name the pipeline programs print."""
    case = f"stages={stages},rate={rate}"
    if detached:
        case += f",detached={detached}"
    if arrivals != "periodic":
        case += f",arrivals={arrivals}"
    if wait_timeout:
        case += f",wait-timeout={wait_timeout}"
    return case


def run_case(case, index):
    """The case of run `index` (from 1) of a cell run several times."""
    return f"{case},run={index}"


# A target cell's pair of runs (Troupe adaptive, CAF 1.x default) covers at
# least this much of the machine's time, in rounds of alternating runs (at
# most MAX_ROUNDS): on a shared VM one second's state (the host's other
# tenants) can move a 1-s run's median by 1.5x, for either system, and a
# single pair at 100 msg/s read 0.49 to 0.78 in six tries.
ROUND_SPAN_SECONDS = 3.0
MAX_ROUNDS = 5


def target_rounds(seconds):
    """How many alternating rounds a target cell whose run takes `seconds` gets."""
    return max(1, min(MAX_ROUNDS, math.ceil(ROUND_SPAN_SECONDS / seconds - 1e-9)))


# The two configurations the high_end part compares, in alternation.
HIGH_END_CONFIGS = ["adaptive", "adaptive-budget-0"]


def idle_case(actors, traffic=None, settle=None):
    """The case name the idle programs print."""
    case = f"idle,actors={actors}"
    if traffic:
        case += (f",traffic={fmt_seconds(traffic)}s,traffic-rate={IDLE_TRAFFIC_RATE}"
                 f",settle={fmt_seconds(settle)}s")
    return case


def cell_seconds(mode, rate):
    return max(mode["min_samples"] / rate, mode["min_seconds"])


def fmt_seconds(x):
    return f"{x:g}"


class Runner:
    """Runs programs and emits their lines, tagged with the part."""

    def __init__(self, study, programs, args, emit):
        self.study = study
        self.programs = programs
        self.args = args
        self.emit = emit
        self.threads = len(os.sched_getaffinity(0))
        # (system, config): the max_rate search's result, for the pairs after.
        self.max_rates = {}

    def run(self, part, system, program, flags, case, config, run_index=None):
        """Runs one program; returns {metric: value} of its lines, or None if it
        failed. With run_index, its lines' case ends in ",run=K": one of
        several runs of one cell."""
        cmd = [self.programs[system][program]] + flags
        run = bench.run_program(cmd, self.args.timeout, self.args.launcher)
        lines, error = [], run.error
        if run.ok:
            try:
                lines = [json.loads(t) for t in run.stdout.splitlines() if t.strip()]
            except json.JSONDecodeError as e:
                error = f"output is not JSON lines: {e}"
            if not error and not lines:
                error = "printed no results"
            if not error:
                bad = [l for l in lines if l.get("case") != case or l.get("system") != system
                       or l.get("config") != config]
                if bad:
                    error = (f"printed case/system/config {bad[0].get('case')}/"
                             f"{bad[0].get('system')}/{bad[0].get('config')}, expected "
                             f"{case}/{system}/{config}")
        if run_index is not None:
            case = run_case(case, run_index)
            for line in lines:
                line["case"] = case
        if error:
            self.emit({"study": self.study, "part": part, "case": case, "system": system,
                       "config": config, "metric": "failed", "value": None, "unit": None,
                       "runs": 0, "error": error})
            print(f"[{self.study}] {part:10} {case:40} {system:8} {config:18} FAILED: "
                  + error.replace("\n", " | "), flush=True)
            return None
        values = {}
        for line in lines:
            line["part"] = part
            self.emit(line)
            values[line["metric"]] = line["value"]
        shown = " ".join(f"{k}={bench_number(v)}" for k, v in values.items()
                         if k in ("latency_median", "cpu", "achieved_rate", "wake_floor",
                                  "wakeups", "settle_wakeups"))
        print(f"[{self.study}] {part:10} {case:40} {system:8} {config:18} {shown}", flush=True)
        return values

    def pipeline(self, part, system, config, stages, rate, seconds, detached=None,
                 wait_timeout=None, arrivals="periodic", run_index=None):
        flags = [f"--stages={stages}", f"--rate={rate}", f"--duration={fmt_seconds(seconds)}",
                 f"--threads={self.threads}", f"--config={config}"]
        if detached:
            flags.append(f"--detached={detached}")
        if arrivals != "periodic":
            flags.append(f"--arrivals={arrivals}")
        if wait_timeout:
            flags.append(f"--wait-timeout={wait_timeout}")
        return self.run(part, system, "latency_pipeline", flags,
                        pipeline_case(stages, rate, detached, wait_timeout, arrivals), config,
                        run_index)

    def idle(self, system, config, seconds, actors, traffic=None, settle=None):
        flags = [f"--duration={fmt_seconds(seconds)}", f"--actors={actors}",
                 f"--threads={self.threads}", f"--config={config}"]
        if traffic:
            flags += [f"--traffic={fmt_seconds(traffic)}", f"--traffic-rate={IDLE_TRAFFIC_RATE}",
                      f"--settle={fmt_seconds(settle)}"]
        return self.run("idle", system, "idle", flags, idle_case(actors, traffic, settle), config)


def bench_number(x):
    if x is None:
        return "-"
    return f"{x:.4g}"


def sustains(values, rate):
    return (values is not None and values.get("achieved_rate") is not None
            and values["achieved_rate"] >= 0.95 * rate
            and values.get("latency_median") is not None
            and values["latency_median"] < 1000.0)


def in_turn(items, k):
    """The items of round k (from 1) in alternation: in order in odd rounds,
    reversed in even ones, so a drift of the machine's speed falls on all."""
    return items if k % 2 else items[::-1]


def max_rate_probe(runner, system, config, rate, mode, run_index=None):
    """One max_rate probe at `rate`: long enough for 20 messages at least."""
    return runner.pipeline("max_rate", system, config, MAIN_STAGES, rate,
                           max(mode["probe_seconds"], 20 / rate), run_index=run_index)


def search_max_rate(runner, system, config, mode):
    """Doubles from 8K msg/s until a rate fails, then bisects; returns
    (highest rate that passed or None, probes run). A rate fails only if a
    second probe fails too: one probe in a dozen near the top failed where
    the next three passed (a hiccup of the host), and ended a search."""
    passed, failed = None, None
    rate, probes = 8000, 0

    def probe():
        nonlocal probes
        probes += 1
        return sustains(max_rate_probe(runner, system, config, rate, mode), rate)

    while probes < mode["max_probes"]:
        if probe() or (probes < mode["max_probes"] and probe()):
            passed = rate
        else:
            failed = rate
        if failed is None:
            if rate >= 10_000_000:
                break
            rate = min(rate * 2, 10_000_000)
        elif passed is None:
            if rate <= 100:
                break
            rate //= 2
        else:
            if failed - passed <= max(passed // 20, 1):
                break
            rate = (passed + failed) // 2
    return passed, probes


class Step:
    """One run of the plan, or one max_rate search: its part, its estimated
    wall time in seconds (a search's at most), and `act(runner)` doing it."""

    def __init__(self, part, seconds, act, search=True):
        self.part = part
        self.seconds = seconds
        self.act = act
        # max_rate only: a search (else the pairs after them).
        self.search = search


def pipeline_run_seconds(seconds):
    return GENERATOR_SETTLE_SECONDS + seconds + RUN_OVERHEAD_SECONDS


def make_plan(mode, parts, programs, systems):
    """The study's runs, in order, as Steps; `systems` are the ones to run."""
    actor_systems = [s for s in systems if configs_of(s) and "latency_pipeline" in programs[s]]
    every = [(s, c) for s in actor_systems for c in configs_of(s)]
    reference = [(s, c) for s, c in every if c == REFERENCE.get(family(s))]
    steps = []

    def pipeline(part, system, config, stages, rate, seconds, **kw):
        steps.append(Step(part, pipeline_run_seconds(seconds),
                          lambda r: r.pipeline(part, system, config, stages, rate, seconds,
                                               **kw)))

    if "wake_floor" in parts and "threads" in systems and "wake_floor" in programs["threads"]:
        rounds = mode["wake_rounds"]
        steps.append(Step("wake_floor", rounds * WAKE_ROUND_SECONDS + RUN_OVERHEAD_SECONDS,
                          lambda r: r.run("wake_floor", "threads", "wake_floor",
                                          [f"--rounds={rounds}"], "wake_floor", "futex")))
        for gap in WAKE_GAPS_US:
            # Each round sleeps two gaps.
            gap_rounds = max(5, min(mode["wake_rounds"],
                                    int(mode["wake_gap_seconds"] * 1e6 / (2 * gap))))
            steps.append(Step(
                "wake_floor", gap_rounds * (2 * gap * 1e-6 + WAKE_ROUND_SECONDS)
                + RUN_OVERHEAD_SECONDS,
                lambda r, gap=gap, gap_rounds=gap_rounds: r.run(
                    "wake_floor", "threads", "wake_floor",
                    [f"--rounds={gap_rounds}", f"--gap-us={gap}"], f"wake_floor,gap={gap}us",
                    "futex")))

    if "idle" in parts:
        idle_seconds, actors = mode["idle_seconds"], mode["idle_actors"]
        after_traffic = reference + [(s, c) for s, c in every
                                     if (s, c) == ("troupe", "adaptive-budget-0")]
        for traffic, settle in ((None, None), (IDLE_TRAFFIC_SECONDS, IDLE_TRAFFIC_SETTLE)):
            for system, config in (after_traffic if traffic else every):
                if "idle" not in programs[system]:
                    continue
                steps.append(Step(
                    "idle", (traffic or 0) + (settle or IDLE_SETTLE_SECONDS) + idle_seconds
                    + RUN_OVERHEAD_SECONDS,
                    lambda r, system=system, config=config, traffic=traffic, settle=settle:
                    r.idle(system, config, idle_seconds, actors, traffic, settle)))

    def target_pair(system, config):
        return family(system) in ("troupe", "caf-1") and config == REFERENCE[family(system)]

    def target_seconds(rate):
        return max(cell_seconds(mode, rate), mode["target_samples"] / rate)

    def seconds_of(system, config, stages, rate):
        """A target cell's pair runs target_samples, the rest cell_seconds."""
        if target_pair(system, config) and (stages, rate) in TARGET_CELLS:
            return target_seconds(rate)
        return cell_seconds(mode, rate)

    if "pipeline" in parts:
        for stages in STAGE_COUNTS:
            chosen = every if stages in mode["every_config_stages"] else reference
            for system, config in chosen:
                pipeline("pipeline", system, config, stages, LOW_RATE,
                         seconds_of(system, config, stages, LOW_RATE))
        for rate in RATES:
            if rate != LOW_RATE:
                for system, config in every:
                    pipeline("pipeline", system, config, MAIN_STAGES, rate,
                             seconds_of(system, config, MAIN_STAGES, rate))
        for stages, rate in POISSON_CELLS:
            chosen = (every if stages == MAIN_STAGES or stages in mode["every_config_stages"]
                      else reference)
            for system, config in chosen:
                pipeline("pipeline", system, config, stages, rate,
                         seconds_of(system, config, stages, rate), arrivals="poisson")

    if "rounds" in parts:
        # The pipeline part's run is round 1; each round after runs the pair
        # in the other order than the one before.
        pair = [(s, c) for s, c in reference if target_pair(s, c)]
        for stages, rate in TARGET_CELLS:
            for arrivals in ARRIVALS:
                for k in range(2, target_rounds(target_seconds(rate)) + 1):
                    for system, config in in_turn(pair, k):
                        pipeline("rounds", system, config, stages, rate, target_seconds(rate),
                                 arrivals=arrivals, run_index=k)

    if "high_end" in parts and all(("troupe", c) in every for c in HIGH_END_CONFIGS):
        # Alternating, each pair in the other order than the one before, so a
        # drift of the machine's speed falls on both alike.
        for k in range(1, mode["high_end_runs"] + 1):
            for config in in_turn(HIGH_END_CONFIGS, k):
                pipeline("high_end", "troupe", config, MAIN_STAGES, HIGH_RATE,
                         mode["high_end_seconds"], run_index=k)

    if "timeout" in parts and ("troupe", "event") in every:
        for timeout in mode["timeouts"]:
            pipeline("timeout", "troupe", "event", MAIN_STAGES, LOW_RATE,
                     cell_seconds(mode, LOW_RATE), wait_timeout=timeout)

    if "breakdown" in parts:
        chosen = [(s, c) for s, c in every
                  if c == REFERENCE.get(family(s)) or (s, c) == ("troupe", "event")]
        for stages in mode["breakdown_stages"]:
            for rate in (LOW_RATE, HIGH_RATE):
                for system, config in chosen:
                    pipeline("breakdown", system, config, stages, rate, cell_seconds(mode, rate),
                             detached=DETACHED_STAGE)

    if "max_rate" in parts:
        probe = pipeline_run_seconds(mode["probe_seconds"])
        for system in actor_systems:
            for config in mode["max_rate_configs"].get(family(system), []):
                steps.append(Step("max_rate", mode["max_probes"] * probe,
                                  lambda r, system=system, config=config:
                                  max_rate(r, system, config, mode)))
        if all(c in mode["max_rate_configs"].get("troupe", []) for c in HIGH_END_CONFIGS) \
                and all(("troupe", c) in every for c in HIGH_END_CONFIGS):
            steps.append(Step("max_rate", 2 * mode["max_rate_pairs"] * probe,
                              lambda r: max_rate_pairs(r, mode), search=False))
    return steps


def plan_summary(steps):
    """One line: per part the runs and their estimated seconds, then the total."""
    parts = []
    for part in PARTS:
        mine = [st for st in steps if st.part == part]
        if mine:
            if part == "max_rate":
                searches = sum(st.search for st in mine)
                what = f"{searches} searches" + (", then pairs" if searches < len(mine) else "")
                what += ", at most"
            else:
                what = f"{len(mine)} runs"
            parts.append(f"{part} {what} ~{sum(st.seconds for st in mine):.0f} s")
    total = sum(st.seconds for st in steps)
    return f"{', '.join(parts)}; about {total / 60:.1f} min in all"


def max_rate(runner, system, config, mode):
    best, probes = search_max_rate(runner, system, config, mode)
    line = {"study": runner.study, "part": "max_rate", "case": f"stages={MAIN_STAGES}",
            "system": system, "config": config, "metric": "max_rate",
            "value": best, "unit": "msg/s", "runs": 1, "probes": probes}
    if best is None:
        line["error"] = "no rate tried was sustained"
    runner.emit(line)
    runner.max_rates[(system, config)] = best
    print(f"[{runner.study}] max_rate   {system:8} {config:18} {best} msg/s "
          f"({probes} probes)", flush=True)


def max_rate_pairs(runner, mode):
    """If Troupe adaptive's search found a lower rate than adaptive-budget-0's,
    probes both at the higher rate in alternation (each pair in the other
    order than the one before): the report compares how often each passes."""
    found = [runner.max_rates.get(("troupe", c)) for c in HIGH_END_CONFIGS]
    if None in found or found[0] >= found[1]:
        return
    for k in range(1, mode["max_rate_pairs"] + 1):
        for config in in_turn(HIGH_END_CONFIGS, k):
            max_rate_probe(runner, "troupe", config, found[1], mode, run_index=k)


def run(study, programs, expected, args, emit):
    mode = MODES["full" if args.full else "quick"]
    parts = [p for p in PARTS if not args.cases or p in args.cases]
    if args.cases and not parts:
        print(f"[{study}] --cases names none of the parts {', '.join(PARTS)}", flush=True)
        return

    bench.emit_absent(study, programs, expected, args, emit)

    runner = Runner(study, programs, args, emit)
    systems = [s for s in sorted(programs, key=bench.system_rank)
               if not args.systems or s in args.systems]
    steps = make_plan(mode, parts, programs, systems)
    print(f"[{study}] {'full' if args.full else 'quick'} mode, {runner.threads} worker threads; "
          f"parts: {', '.join(parts)}", flush=True)
    print(f"[{study}] plan: {plan_summary(steps)}", flush=True)
    for step in steps:
        step.act(runner)


# -- report ----------------------------------------------------------------------------


class Results:
    """The lines of one run, looked up by part, case, system, config and metric."""

    def __init__(self, lines):
        self.absent = [l for l in lines if l.get("metric") == "absent"]
        self.cell = {}
        self.line = {}
        self.failed = {}
        for l in lines:
            key = (l.get("part"), l.get("case"), l.get("system"), l.get("config"))
            if l.get("metric") == "failed":
                self.failed[key] = l.get("error") or "failed"
            elif l.get("metric") != "absent":
                self.cell[key + (l.get("metric"),)] = l.get("value")
                self.line[key + (l.get("metric"),)] = l
        self.systems = sorted({k[2] for k in self.cell} | {k[2] for k in self.failed},
                              key=bench.system_rank)

    def value(self, part, case, system, config, metric):
        return self.cell.get((part, case, system, config, metric))

    def cases(self, part):
        """Cases with lines (results or failures) in `part`."""
        return {k[1] for k in self.cell if k[0] == part} | {k[1] for k in self.failed
                                                           if k[0] == part}

    def has_part(self, part):
        return any(k[0] == part for k in self.cell) or any(k[0] == part for k in self.failed)

    def columns(self, part):
        """(system, config) pairs with lines in `part`, in report order."""
        seen = {(k[2], k[3]) for k in self.cell if k[0] == part}
        seen |= {(k[2], k[3]) for k in self.failed if k[0] == part}
        return sorted(seen, key=lambda sc: (bench.system_rank(sc[0]), config_rank(sc)))

    def text(self, part, case, system, config, metric, fmt):
        v = self.value(part, case, system, config, metric)
        if v is not None:
            return fmt(v)
        if (part, case, system, config) in self.failed:
            return "failed"
        return "—"


def config_rank(system_config):
    system, config = system_config
    order = configs_of(system)
    return order.index(config) if config in order else len(order)


def label(system, config):
    import report
    return f"{report.pretty_system(system)} {config}"


def plot_lines(path, title, xs, xlabel, series, panels, logx):
    """One figure, one panel per (metric, ylabel, log_y); series maps
    label -> {(x, metric): value}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), squeeze=False)
    drawn = False
    for ax, (metric, ylabel, logy) in zip(axes[0], panels):
        for name, (values, style) in series.items():
            pts = [(x, values.get((x, metric))) for x in xs]
            pts = [(x, y) for x, y in pts if y is not None and (y > 0 or not logy)]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], markersize=4, label=name,
                        **style)
                drawn = True
        if logx:
            ax.set_xscale("log")
        else:
            ax.set_xticks(xs)
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    if not drawn:
        plt.close(fig)
        return False
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# One colour per configuration; each family's reference configuration keeps
# the colour report.py gives the system. Markers tell the families apart.
CONFIG_COLORS = {
    "troupe": ["#d62728", "#ff9896", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"],
    "caf-1": ["#1f77b4"],
    "caf-0": ["#ff7f0e", "#bcbd22", "#17becf"],
}
FAMILY_MARKERS = {"troupe": "o", "caf-1": "s", "caf-0": "^"}


def series_style(system, config, index):
    import report
    colors = CONFIG_COLORS.get(family(system), [])
    rank = config_rank((system, config))
    reference = config == REFERENCE.get(family(system))
    return {"color": colors[rank] if rank < len(colors) else report.color_of(system, index),
            "marker": FAMILY_MARKERS.get(family(system), "o"),
            "linewidth": 2.2 if reference else 1.3,
            "linestyle": "-" if reference else "--"}


def fmt_us(x):
    import report
    return report.fmt_number(x)


def fmt_pct(x):
    if x >= 10:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.1f}"
    if x >= 0.01:
        return f"{x:.2f}"
    return f"{x:.4f}"


def fmt_int(x):
    return f"{x:,.0f}"


def sweep_section(res, results_dir, part, title, cases, xs, xlabel, logx, png, intro):
    """Tables of median latency, p99 and CPU over a sweep, plus a plot
    unless `png` is None."""
    cols = res.columns(part)
    out = [f"### {title}", "", intro, ""]
    head = "| " + xlabel + " | " + " | ".join(label(s, c) for s, c in cols) + " |"
    sep = "|---|" + "---|" * len(cols)
    for metric, what, fmt in (("latency_median", "Median latency (µs)", fmt_us),
                              ("latency_p99", "99th percentile latency (µs)", fmt_us),
                              ("cpu", "CPU (% of the machine)", fmt_pct),
                              ("cpu_generator", "CPU of the generator thread alone (% of the "
                               "machine, part of the CPU above)", fmt_pct)):
        out += [f"{what}:", "", head, sep]
        for case, x in zip(cases, xs):
            row = [res.text(part, case, s, c, metric, fmt) for s, c in cols]
            out.append(f"| {x} | " + " | ".join(row) + " |")
        out.append("")
    if png is None:
        return out
    series = {}
    for i, (s, c) in enumerate(cols):
        values = {}
        for case, x in zip(cases, xs):
            for metric in ("latency_median", "cpu"):
                v = res.value(part, case, s, c, metric)
                if v is not None:
                    values[(x, metric)] = v
        series[label(s, c)] = (values, series_style(s, c, i))
    if plot_lines(os.path.join(results_dir, png), title, xs, xlabel, series,
                  [("latency_median", "median latency (µs)", True),
                   ("cpu", "CPU (% of the machine)", True)], logx):
        out += [f"![{title}]({png})", ""]
    return out


def bar_chart(path, bars, xlabel, logx, mark):
    """Horizontal bars (label, value, system, config); `mark` is None or
    (x, label) for a dashed vertical line. False if there is nothing to draw."""
    if not bars:
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(bars) + 1.5))
    ys = list(range(len(bars)))
    ax.barh(ys, [max(b[1], 1e-4) if logx else b[1] for b in bars],
            color=[series_style(b[2], b[3], i)["color"] for i, b in enumerate(bars)])
    ax.set_yticks(ys)
    ax.set_yticklabels([b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    if logx:
        ax.set_xscale("log")
    if mark:
        ax.axvline(mark[0], color="black", linestyle="--", linewidth=0.8, label=mark[1])
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def idle_cases(res):
    """(the idle case from start-up, the one after traffic); None if absent."""
    cases = res.cases("idle")
    quiet = min((c for c in cases if ",traffic=" not in c), default=None)
    traffic = min((c for c in cases if ",traffic=" in c), default=None)
    return quiet, traffic


def idle_section(res, results_dir):
    cols = res.columns("idle")
    cases = [c for c in idle_cases(res) if c]
    out = ["### Idle system", "",
           "Actors alive, no message sent: the process's CPU (% of the machine) and "
           "voluntary context switches per second over the interval, and for Troupe the "
           "scheduler's wake-ups and parks in it (CAF exposes no such counters). The case "
           "with `traffic` first sends messages from a plain thread for that long "
           f"({IDLE_TRAFFIC_RATE:,} msg/s round-robin over the actors), then waits `settle` before the interval; "
           "the settle columns count Troupe's wake-ups and parks in that wait (without "
           "traffic, the 0.5 s after start-up).", "",
           "| system | case | CPU % | context switches/s | wake-ups | parks | wake-ups in the "
           "settle | parks in the settle |",
           "|---|---|---|---|---|---|---|---|"]
    bars = []
    for case in cases:
        for s, c in cols:
            row = [res.text("idle", case, s, c, m, f) for m, f in
                   (("cpu", fmt_pct), ("ctx_switches", fmt_us), ("wakeups", fmt_int),
                    ("parks", fmt_int), ("settle_wakeups", fmt_int), ("settle_parks", fmt_int))]
            out.append(f"| {label(s, c)} | `{case}` | " + " | ".join(row) + " |")
            v = res.value("idle", case, s, c, "cpu")
            if v is not None:
                after = ", after traffic" if ",traffic=" in case else ""
                bars.append((label(s, c) + after, v, s, c))
    out.append("")
    if bar_chart(os.path.join(results_dir, "latency_idle.png"), bars,
                 "CPU of the idle process (% of the machine, log scale)", True,
                 (0.05, "target for an idle Troupe: 0.05 %")):
        out += ["![idle CPU](latency_idle.png)", ""]
    return out


def max_rate_section(res, results_dir):
    cols = res.columns("max_rate")
    case = f"stages={MAIN_STAGES}"
    out = ["### Highest sustained rate", "",
           f"The highest rate {MAIN_STAGES} stages sustain: achieved rate at least 95% of the "
           "requested one and median latency under 1 ms. The search doubles from 8K msg/s "
           "until a rate fails, then bisects to within 5%, in a bounded number of probes "
           "(each probe is one pipeline run, listed in the results file). At these rates the "
           "generator wakes at most every 50 µs and sends the messages due in a bunch "
           "(`--wake-gap-us`, see benchmarks/latency/README.md).", "",
           "| system | highest sustained rate (msg/s) | probes |", "|---|---|---|"]
    bars = []
    for s, c in cols:
        line = res.line.get(("max_rate", case, s, c, "max_rate"))
        if line is None:
            continue
        v = line.get("value")
        out.append(f"| {label(s, c)} | {fmt_int(v) if v is not None else 'none passed'} | "
                   f"{line.get('probes', '—')} |")
        if v is not None:
            bars.append((label(s, c), v, s, c))
    out.append("")
    rate, pairs = max_rate_pair_runs(res)
    if pairs:
        out += [f"Troupe adaptive's search found a lower rate than adaptive-budget-0's, so both "
                f"ran again at {fmt_int(rate)} msg/s in {len(pairs)} alternating probes each: "
                f"adaptive sustained it {sum(a for a, _ in pairs)} times, adaptive-budget-0 "
                f"{sum(b for _, b in pairs)} (near the top a probe passes or fails by chance, "
                "for either).", ""]
    if bar_chart(os.path.join(results_dir, "latency_max_rate.png"), bars,
                 f"highest sustained rate through {MAIN_STAGES} stages (msg/s)", False, None):
        out += ["![max rate](latency_max_rate.png)", ""]
    return out


def breakdown_section(res):
    cols = res.columns("breakdown")
    cases = sorted(res.cases("breakdown"),
                   key=lambda c: tuple(int(kv.split("=")[1]) for kv in c.split(",")))
    out = ["### Latency breakdown (Table II)", "",
           f"Stage {DETACHED_STAGE} detached. Medians in µs of each kind of hop: g2p generator → "
           "stage 1, act event-based → event-based, rcv event-based → detached, snd detached → "
           "event-based; and the end-to-end median.", "",
           "| system | case | g2p | act | rcv | snd | end to end |", "|---|---|---|---|---|---|---|"]
    for case in cases:
        for s, c in cols:
            row = [res.text("breakdown", case, s, c, m, fmt_us)
                   for m in ("g2p", "act", "rcv", "snd", "latency_median")]
            out.append(f"| {label(s, c)} | `{case}` | " + " | ".join(row) + " |")
    return out + [""]


def wake_floor_section(res):
    cases = sorted(res.cases("wake_floor"),
                   key=lambda c: int(c.split("gap=")[1][:-2]) if "gap=" in c else 0)
    out = ["### Wake-up floor", "",
           "Futex ping-pong between two threads: the time from one thread's FUTEX_WAKE to the "
           "parked thread running again, one way, counting only wake-ups that ended a sleep. "
           "Back to back (no gap) the parked thread's CPU has only just gone idle; with a gap "
           "each thread stays parked that long first, as a worker does between messages at a "
           "low rate.", "",
           "| case | median (µs) | p99 (µs) | wake-ups that ended a sleep |", "|---|---|---|---|"]
    for case in cases:
        row = [res.text("wake_floor", case, "threads", "futex", m, f)
               for m, f in (("wake_floor", fmt_us), ("wake_floor_p99", fmt_us),
                            ("wake_floor_slept", lambda v: f"{v:.0f}%"))]
        out.append(f"| `{case}` | " + " | ".join(row) + " |")
    return out + [""]


def caf1_of(res):
    found = [s for s in res.systems if s.startswith("caf-1")]
    return found[0] if found else None


def lookup(res, part, case, system, config, metric):
    """(value, None) or (None, why it is missing); system None is an absent
    CAF 1.x."""
    if system is None:
        return None, "CAF 1.1 absent"
    name = label(system, config)
    v = res.value(part, case, system, config, metric)
    if v is not None:
        return v, None
    if (part, case, system, config) in res.failed:
        return None, f"{name} failed"
    return None, f"{name} not measured"


def numbered_runs(res, part, prefix):
    """The cases of `part` that start with `prefix` and end in ",run=K", in
    the order of K."""
    return sorted((c for c in res.cases(part) if c.startswith(prefix) and ",run=" in c),
                  key=lambda c: int(c.rsplit("=", 1)[1]))


def high_end_runs(res):
    """The high_end part's runs, each a tuple of the latency medians of
    HIGH_END_CONFIGS (None where one is missing)."""
    prefix = pipeline_case(MAIN_STAGES, HIGH_RATE) + ",run="
    return [tuple(res.value("high_end", case, "troupe", c, "latency_median")
                  for c in HIGH_END_CONFIGS)
            for case in numbered_runs(res, "high_end", prefix)]


def max_rate_pair_runs(res):
    """The max_rate pairs (see max_rate_pairs()): (rate, [(adaptive
    sustained, adaptive-budget-0 sustained), ...]), or (None, [])."""
    prefix = f"stages={MAIN_STAGES},rate="
    runs = numbered_runs(res, "max_rate", prefix)
    if not runs:
        return None, []
    rate = int(runs[0][len(prefix):].split(",")[0])

    def sustained(case, config):
        values = {m: res.value("max_rate", case, "troupe", config, m)
                  for m in ("achieved_rate", "latency_median")}
        return int(sustains(values, rate))
    return rate, [tuple(sustained(c, config) for config in HIGH_END_CONFIGS) for c in runs]


def target_runs(res, case, system, config, metric):
    """A target cell's values of `metric`: the pipeline part's run, then the
    rounds part's (`case` with ",run=K")."""
    runs = [res.value("pipeline", case, system, config, metric)]
    prefix = case + ",run="
    runs += [res.value("rounds", c, system, config, metric)
             for c in numbered_runs(res, "rounds", prefix)]
    return [v for v in runs if v is not None]


def sign_test(k, n):
    """One-sided sign test: the chance of k or more of n pairs going one way
    if both ways were equally likely (1.0 for no pairs)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n if n else 1.0


def target_adder(rows):
    """add(what, goal, quantities, check, show): appends a target row to
    `rows`; quantities are lookup() pairs, check and show take their values;
    a missing quantity makes the row "n/a" with the reason."""
    def add(what, goal, quantities, check, show):
        why = [w for _, w in quantities if w]
        if why:
            rows.append((what, "; ".join(why), goal, "n/a"))
            return
        xs = [v for v, _ in quantities]
        rows.append((what, show(*xs), goal, "**met**" if check(*xs) else "**missed**"))
    return add


def targets_section(res):
    """The targets of issue 8, each from this run's numbers."""
    caf1 = caf1_of(res)
    rows = []

    def get(part, case, system, config, metric):
        return lookup(res, part, case, system, config, metric)

    add = target_adder(rows)

    def pipe(rate, system, config, metric):
        return get("pipeline", pipeline_case(MAIN_STAGES, rate), system, config, metric)

    floor = get("wake_floor", "wake_floor", "threads", "futex", "wake_floor")
    cold = res.value("wake_floor", f"wake_floor,gap={WAKE_GAPS_US[-1]}us", "threads", "futex",
                     "wake_floor")
    cold_note = (f"; after {WAKE_GAPS_US[-1] // 1000} ms parked a wake-up takes {fmt_us(cold)} µs"
                 if cold is not None else "")
    for rate in (LOW_RATE, 1000):
        where = f"{MAIN_STAGES} stages, {rate:,} msg/s:"
        mine = pipe(rate, "troupe", "adaptive", "latency_median")
        my_cpu = pipe(rate, "troupe", "adaptive", "cpu")
        add(f"{where} adaptive median / CAF 1.1 default median", "≤ 0.70",
            [mine, pipe(rate, caf1, "default", "latency_median")],
            lambda x, y: x / y <= 0.7, lambda x, y: f"{x / y:.2f} ({fmt_us(x)} / {fmt_us(y)} µs)")
        add(f"{where} adaptive median vs wake_floor + 3 µs", "≤ wake_floor + 3 µs",
            [mine, floor], lambda x, f: x <= f + 3,
            lambda x, f: f"{fmt_us(x)} µs vs {fmt_us(f + 3)} µs{cold_note}")
        gen_cpu = pipe(rate, "troupe", "adaptive", "cpu_generator")
        gen_note = (f" (the generator thread: {fmt_pct(gen_cpu[0])} %)"
                    if gen_cpu[0] is not None else "")
        add(f"{where} adaptive CPU", "≤ 1 %", [my_cpu], lambda x: x <= 1.0,
            lambda x: f"{fmt_pct(x)} %{gen_note}")
        add(f"{where} adaptive CPU / CAF 1.1 default CPU", "≤ 0.50",
            [my_cpu, pipe(rate, caf1, "default", "cpu")], lambda x, y: x <= 0.5 * y,
            lambda x, y: f"{x / y:.2f} ({fmt_pct(x)} / {fmt_pct(y)} %)" if y > 0
            else f"{fmt_pct(x)} / 0 %")
        add(f"{where} adaptive median / Troupe polling-default median", "≤ 0.05 (1/20)",
            [mine, pipe(rate, "troupe", "polling-default", "latency_median")],
            lambda x, y: x <= y / 20, lambda x, y: f"{x / y:.3f} ({fmt_us(x)} / {fmt_us(y)} µs)")

    quiet, _ = idle_cases(res)
    add("idle system: adaptive CPU", "≤ 0.05 %",
        [get("idle", quiet, "troupe", "adaptive", "cpu")], lambda x: x <= 0.05,
        lambda x: f"{fmt_pct(x)} %")
    add("idle system: adaptive wake-ups", "0",
        [get("idle", quiet, "troupe", "adaptive", "wakeups")], lambda x: x == 0, fmt_int)

    add(f"{MAIN_STAGES} stages, 100,000 msg/s: adaptive median vs CAF 1.1 default", "≤ CAF 1.1's",
        [pipe(100000, "troupe", "adaptive", "latency_median"),
         pipe(100000, caf1, "default", "latency_median")],
        lambda x, y: x <= y, lambda x, y: f"{fmt_us(x)} vs {fmt_us(y)} µs")

    case = f"stages={MAIN_STAGES}"
    add(f"highest sustained rate, {MAIN_STAGES} stages: adaptive / CAF 1.1 default", "≥ 2.00",
        [get("max_rate", case, "troupe", "adaptive", "max_rate"),
         get("max_rate", case, caf1, "default", "max_rate")],
        lambda x, y: x >= 2 * y,
        lambda x, y: f"{x / y:.2f} ({fmt_int(x)} / {fmt_int(y)} msg/s)" if y > 0
        else f"{fmt_int(x)} / 0 msg/s")

    out = ["### Targets (issue 8)", "",
           "Each from this run's numbers. wake_floor is the back-to-back futex ping-pong "
           "median (see Wake-up floor below); the latency targets are medians of the "
           "end-to-end latency; \"n/a\" says which number is missing.", "",
           "| target | measured | goal | |", "|---|---|---|---|"]
    out += [f"| {w} | {m} | {t} | {r} |" for w, m, t, r in rows]
    return out + [""]


def arrivals_text(arrivals):
    return "Poisson" if arrivals == "poisson" else arrivals


def cold_floor(res):
    """The median wake-up after the longest gap parked (100 ms), or None."""
    return res.value("wake_floor", f"wake_floor,gap={WAKE_GAPS_US[-1]}us", "threads", "futex",
                     "wake_floor")


def targets22_section(res):
    """The targets of issue 22, each from this run's numbers."""
    caf1 = caf1_of(res)
    cold = cold_floor(res)
    cold_ms = WAKE_GAPS_US[-1] // 1000
    # Where waking a parked thread is cheap (the rule), Troupe must
    # beat CAF by more than the noise.
    median_goal = 0.7 if cold is not None and cold < 20 else 1.0
    floor_text = fmt_us(cold) if cold is not None else "not measured"

    def compare(stages, rate, arrivals, metric, goal, fmt, unit):
        """Troupe / CAF, each the median over the cell's runs."""
        case = pipeline_case(stages, rate, arrivals=arrivals)
        if caf1 is None:
            return "n/a"
        _, why_x = lookup(res, "pipeline", case, "troupe", "adaptive", metric)
        _, why_y = lookup(res, "pipeline", case, caf1, "default", metric)
        if why_x or why_y:
            return "n/a: " + "; ".join(w for w in (why_x, why_y) if w)
        xs = target_runs(res, case, "troupe", "adaptive", metric)
        ys = target_runs(res, case, caf1, "default", metric)
        x, y = statistics.median(xs), statistics.median(ys)
        runs = f" ({min(len(xs), len(ys))} runs)" if max(len(xs), len(ys)) > 1 else ""
        if y <= 0:
            return f"{fmt(x)} / {fmt(y)} {unit}{runs}: n/a"
        verdict = "**met**" if x <= goal * y else "**missed**"
        return f"{fmt(x)} / {fmt(y)} {unit}{runs} = {x / y:.2f} (≤ {goal:.2f}) {verdict}"

    cells = [(MAIN_STAGES, r) for r in PARETO_RATES] + [(4, LOW_RATE), (24, LOW_RATE)]
    out = ["### Targets (issue 22)", "",
           "Each from this run's numbers. Troupe's default configuration (`adaptive`) "
           "against CAF 1.x's default: Troupe / CAF and the ratio with its goal. A cell whose "
           f"run spans under {ROUND_SPAN_SECONDS:g} s ran the pair in alternating rounds "
           f"until they covered {ROUND_SPAN_SECONDS:g} s (part `rounds`, at most "
           f"{MAX_ROUNDS}; \"N runs\"), and each side is the median of its runs' values; a "
           "ratio within a few % of its goal is still noise. The median must be at most "
           "CAF's, and at most 0.70× CAF's where waking a thread parked for "
           f"{cold_ms} ms is cheap (under 20 µs, last column: the `wake_floor,gap="
           f"{WAKE_GAPS_US[-1]}us` median); the p99 at most CAF's; the CPU at most half "
           "CAF's.", "",
           ] + (["CAF 1.x is absent: every comparison is n/a.", ""] if caf1 is None else []) + [
           f"| cell | median | p99 | CPU | wake-up after {cold_ms} ms parked (µs) |",
           "|---|---|---|---|---|"]
    for stages, rate in cells:
        for arrivals in ARRIVALS:
            row = [compare(stages, rate, arrivals, "latency_median", median_goal, fmt_us, "µs"),
                   compare(stages, rate, arrivals, "latency_p99", 1.0, fmt_us, "µs"),
                   compare(stages, rate, arrivals, "cpu", 0.5, fmt_pct, "%")]
            out.append(f"| {stages} stages, {rate:,} msg/s, {arrivals_text(arrivals)} | "
                       + " | ".join(row) + f" | {floor_text} |")
    out.append("")

    rows = []
    add = target_adder(rows)
    cafs = [(s, c) for s, c in res.columns("pipeline") if s.startswith("caf-")]
    troupes = [c for s, c in res.columns("pipeline") if s == "troupe"]
    for rate in PARETO_RATES:
        for arrivals in ARRIVALS:
            case = pipeline_case(MAIN_STAGES, rate, arrivals=arrivals)

            def point(system, config):
                return (res.value("pipeline", case, system, config, "latency_median"),
                        res.value("pipeline", case, system, config, "cpu"))

            for s, c in cafs:
                median, why_m = lookup(res, "pipeline", case, s, c, "latency_median")
                cpu, why_c = lookup(res, "pipeline", case, s, c, "cpu")
                ours = [(t,) + point("troupe", t) for t in troupes]
                ours = [(t, m, u) for t, m, u in ours if m is not None and u is not None]
                why = why_m or why_c or (None if ours else "no Troupe configuration measured")
                what = (f"{MAIN_STAGES} stages, {rate:,} msg/s, {arrivals_text(arrivals)}: a "
                        f"Troupe configuration beats {label(s, c)}"
                        + (f" ({fmt_us(median)} µs, {fmt_pct(cpu)} %)" if not why else ""))
                if why:
                    rows.append((what, why, "lower median and lower CPU", "n/a"))
                    continue
                winners = sorted((m, t, u) for t, m, u in ours if m < median and u < cpu)
                shown = ", ".join(f"{t} ({fmt_us(m)} µs, {fmt_pct(u)} %)"
                                  for m, t, u in winners[:3]) or "none"
                if len(winners) > 3:
                    shown += f" and {len(winners) - 3} more"
                rows.append((what, shown, "lower median and lower CPU",
                              "**met**" if winners else "**missed**"))

    _, traffic = idle_cases(res)
    idle = [lookup(res, "idle", traffic, "troupe", "adaptive", m)
            for m in ("cpu", "wakeups", "settle_wakeups", "settle_parks")]
    add("idle after traffic (`" + (traffic or "idle with traffic") + "`): adaptive CPU and "
        "wake-ups in the interval", "≤ 0.05 % and 0 wake-ups", idle,
        lambda cpu, w, sw, sp: cpu <= 0.05 and w == 0,
        lambda cpu, w, sw, sp: f"{fmt_pct(cpu)} %, {fmt_int(w)} wake-ups (in the settle before "
                               f"it: {fmt_int(sw)} wake-ups, {fmt_int(sp)} parks)")

    runs = high_end_runs(res)
    per_config = [[r[i] for r in runs if r[i] is not None] for i in range(len(HIGH_END_CONFIGS))]
    pairs = [r for r in runs if None not in r]
    slower = sum(a > b for a, b in pairs)
    p_slower = sign_test(slower, len(pairs))
    add(f"{MAIN_STAGES} stages, {HIGH_RATE:,} msg/s: adaptive median / adaptive-budget-0 median "
        f"(`high_end`: the median of {min(map(len, per_config))} alternating runs' medians each)",
        "≤ 1.00, or adaptive not slower in significantly more pairs (sign test p ≥ 0.05)",
        [(statistics.median(xs), None) if xs else (None, f"Troupe {c} not measured in high_end")
         for c, xs in zip(HIGH_END_CONFIGS, per_config)],
        lambda x, y: x <= y or p_slower >= 0.05,
        lambda x, y: f"{x / y:.2f} ({fmt_us(x)} / {fmt_us(y)} µs); adaptive slower in "
                     f"{slower} of {len(pairs)} pairs (p = {p_slower:.2f})")
    case = f"stages={MAIN_STAGES}"
    rate, pairs = max_rate_pair_runs(res)
    # Pairs where only one of the two sustained the rate: adaptive alone failed.
    alone = [a < b for a, b in pairs if a != b]
    p_fails = sign_test(sum(alone), len(alone))

    def show_rate(x, y):
        out = f"{x / y:.2f} ({fmt_int(x)} / {fmt_int(y)} msg/s)" if y > 0 else f"{fmt_int(x)} / 0 msg/s"
        if pairs:
            out += (f"; at {fmt_int(rate)} msg/s in {len(pairs)} alternating pairs adaptive "
                    f"sustained {sum(a for a, _ in pairs)}, adaptive-budget-0 "
                    f"{sum(b for _, b in pairs)}; adaptive alone failed in {sum(alone)} of "
                    f"{len(alone)} pairs where one did (p = {p_fails:.2f})")
        return out
    add(f"highest sustained rate, {MAIN_STAGES} stages: adaptive / adaptive-budget-0",
        "≥ 1.00, or at the higher rate adaptive not failing alone in significantly more "
        "pairs (sign test p ≥ 0.05)",
        [lookup(res, "max_rate", case, "troupe", "adaptive", "max_rate"),
         lookup(res, "max_rate", case, "troupe", "adaptive-budget-0", "max_rate")],
        lambda x, y: x >= y or (bool(pairs) and p_fails >= 0.05),
        show_rate)

    out += ["Every CAF configuration measured against the best of Troupe's: at each rate "
            f"({MAIN_STAGES} stages) and kind of arrivals, the Troupe configurations with both "
            "a lower median and a lower CPU, lowest median first (see the Pareto picture "
            "below). Then the idle process after traffic, and the high end: the default "
            "idle budget must cost nothing against the budget of 0.", "",
            "| target | measured | goal | |", "|---|---|---|---|"]
    out += [f"| {w} | {m} | {t} | {r} |" for w, m, t, r in rows]
    return out + [""]


def pareto_optimal(points):
    """The indices of the (x, y) points that no other point beats on both
    (strictly lower x and strictly lower y)."""
    return {i for i, (x, y) in enumerate(points)
            if not any(x2 < x and y2 < y for x2, y2 in points)}


def pareto_points(res, rate, arrivals, metric):
    """[(system, config, cpu, latency)] at 12 stages, positive values only
    (the axes are logarithmic)."""
    case = pipeline_case(MAIN_STAGES, rate, arrivals=arrivals)
    found = []
    for s, c in res.columns("pipeline"):
        cpu = res.value("pipeline", case, s, c, "cpu")
        lat = res.value("pipeline", case, s, c, metric)
        if cpu is not None and lat is not None and cpu > 0 and lat > 0:
            found.append((s, c, cpu, lat))
    return found


def pareto_chart(res, path):
    """latency_pareto.png: rows are PARETO_RATES, columns median and p99,
    each a log-log scatter of latency against CPU; periodic filled, Poisson
    hollow; Pareto-optimal points ringed, each kind's frontier a step line.
    False if there is nothing to draw."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.lines import Line2D

    panels = [("latency_median", "median latency (µs)"), ("latency_p99", "p99 latency (µs)")]
    fig, axes = plt.subplots(len(PARETO_RATES), len(panels),
                             figsize=(6.2 * len(panels), 4.2 * len(PARETO_RATES)), squeeze=False)
    styles, drawn = {}, False
    for row, rate in enumerate(PARETO_RATES):
        for col, (metric, ylabel) in enumerate(panels):
            ax = axes[row][col]
            for arrivals, frontier_style in zip(ARRIVALS, ("-", "--")):
                pts = pareto_points(res, rate, arrivals, metric)
                for i, (s, c, x, y) in enumerate(pts):
                    style = series_style(s, c, i)
                    styles[(s, c)] = style
                    filled = arrivals == "periodic"
                    ax.scatter([x], [y], marker=style["marker"], s=46, linewidths=1.3,
                               edgecolors=style["color"],
                               facecolors=style["color"] if filled else "none", zorder=3)
                best = sorted((pts[i][2], pts[i][3]) for i in
                              pareto_optimal([(p[2], p[3]) for p in pts]))
                if best:
                    ax.scatter([b[0] for b in best], [b[1] for b in best], marker="o", s=190,
                               facecolors="none", edgecolors="black", linewidths=0.9, zorder=2)
                    ax.step([b[0] for b in best], [b[1] for b in best], where="post",
                            color="black", linestyle=frontier_style, linewidth=0.8, zorder=1)
                    drawn = True
            ax.set_xscale("log")
            ax.set_yscale("log")
            # Plain numbers ("300", "0.5") rather than 3 x 10^2.
            for axis in (ax.xaxis, ax.yaxis):
                axis.set_major_formatter(matplotlib.ticker.LogFormatter())
                axis.set_minor_formatter(matplotlib.ticker.LogFormatter(
                    labelOnlyBase=False, minor_thresholds=(2, 0.5)))
            ax.set_xlabel("CPU (% of the machine)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{MAIN_STAGES} stages, {rate:,} msg/s", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
    if not drawn:
        plt.close(fig)
        return False
    handles = [Line2D([], [], linestyle="", marker=st["marker"], color=st["color"],
                      label=label(s, c))
               for (s, c), st in sorted(styles.items(),
                                        key=lambda kv: (bench.system_rank(kv[0][0]),
                                                        config_rank(kv[0])))]
    handles += [Line2D([], [], linestyle="", marker="o", color="gray", label="periodic"),
                Line2D([], [], linestyle="", marker="o", markerfacecolor="none", color="gray",
                       label="Poisson"),
                Line2D([], [], linestyle="", marker="o", markersize=11, markerfacecolor="none",
                       color="black", label="Pareto-optimal"),
                Line2D([], [], linestyle="-", color="black", label="frontier, periodic"),
                Line2D([], [], linestyle="--", color="black", label="frontier, Poisson")]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle("Latency against CPU: lower left is better", fontsize=10)
    fig.tight_layout(rect=(0, 0.04 + 0.012 * len(handles) / 4, 1, 0.98))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def pareto_section(res, results_dir):
    out = ["### Latency against CPU (Pareto)", "",
           f"{MAIN_STAGES} stages at {', '.join(f'{r:,}' for r in PARETO_RATES)} msg/s, "
           "every system and configuration, periodic (filled) and Poisson (hollow) arrivals. "
           "A point is Pareto-optimal (ringed) when no other point of its kind of arrivals has "
           "both a lower latency and a lower CPU; the step line joins them.", ""]
    if pareto_chart(res, os.path.join(results_dir, "latency_pareto.png")):
        out += ["![latency against CPU](latency_pareto.png)", ""]
    out += ["What a wake-up costs on this machine (futex ping-pong, see Wake-up floor "
            "below), by how long the woken thread had been parked:", "",
            "| parked before the wake-up | median (µs) | p99 (µs) |", "|---|---|---|"]
    for gap in [0] + WAKE_GAPS_US:
        case = f"wake_floor,gap={gap}us" if gap else "wake_floor"
        if case not in res.cases("wake_floor"):
            continue  # results from before the study read this gap
        parked = ("0 (back to back)" if gap == 0
                  else f"{gap // 1000} ms" if gap >= 1000 else f"{gap} µs")
        row = [res.text("wake_floor", case, "threads", "futex", m, fmt_us)
               for m in ("wake_floor", "wake_floor_p99")]
        out.append(f"| {parked} | " + " | ".join(row) + " |")
    out += ["", "Each configuration's median, p99 and CPU; ● marks a point on the frontier "
            "of that latency against CPU.", ""]
    cols = res.columns("pipeline")
    for rate in PARETO_RATES:
        optimal = {}
        for arrivals in ARRIVALS:
            for metric in ("latency_median", "latency_p99"):
                pts = pareto_points(res, rate, arrivals, metric)
                for i in pareto_optimal([(p[2], p[3]) for p in pts]):
                    optimal[(arrivals, metric, pts[i][0], pts[i][1])] = True
        out += [f"{MAIN_STAGES} stages, {rate:,} msg/s:", "",
                "| configuration | periodic median (µs) | p99 (µs) | CPU % | Poisson median "
                "(µs) | p99 (µs) | CPU % |", "|---|---|---|---|---|---|---|"]
        for s, c in cols:
            row = []
            for arrivals in ARRIVALS:
                case = pipeline_case(MAIN_STAGES, rate, arrivals=arrivals)
                for metric in ("latency_median", "latency_p99"):
                    mark = " ●" if optimal.get((arrivals, metric, s, c)) else ""
                    row.append(res.text("pipeline", case, s, c, metric, fmt_us) + mark)
                row.append(res.text("pipeline", case, s, c, "cpu", fmt_pct))
            out.append(f"| {label(s, c)} | " + " | ".join(row) + " |")
        out.append("")
    return out


def report_section(name, lines, machine, results_dir):
    import report
    res = Results(lines)
    out = [f"## Study `{name}`", ""]
    info = (machine or {}).get("studies", {}).get(name)
    quick = (info or {}).get("scale") == "quick"
    if info:
        load = info.get("load_average_at_start")
        out += [f"{info.get('scale', '?')} mode, started {info.get('started', '?')}, took "
                f"{info.get('duration_s', 0) / 60:.1f} min"
                + (f"; load average at start {load[0]}" if load else "") + ". "
                "One run per cell; each run is many messages (see "
                "`benchmarks/latency/README.md` for the programs and the metrics).", ""]
        out += report.other_machine_note(info, machine)
    for line in res.absent:
        out.append(f"- **{report.pretty_system(line['system'])} absent:** {line.get('reason')}.")
    if res.absent:
        out.append("")
    if not res.cell and not res.failed:
        return out + ["No measurements.", ""]

    out += targets22_section(res)
    out += targets_section(res)
    if res.has_part("pipeline"):
        out += sweep_section(
            res, results_dir, "pipeline", "Latency and CPU versus pipeline length",
            [pipeline_case(n, LOW_RATE) for n in STAGE_COUNTS], STAGE_COUNTS, "stages", False,
            "latency_length.png",
            f"End-to-end latency (generator to collector) and CPU at {LOW_RATE} msg/s."
            + (" A quick run measures 8 and 16 stages in each family's reference configuration "
               "only (Troupe adaptive, CAF default)." if quick else ""))
        out += sweep_section(
            res, results_dir, "pipeline", "Latency and CPU versus rate",
            [pipeline_case(MAIN_STAGES, r) for r in RATES], RATES, "msg/s", True,
            "latency_rate.png", f"{MAIN_STAGES} stages.")
        out += pareto_section(res, results_dir)
        lengths = sorted({n for n, r in POISSON_CELLS if r == LOW_RATE})
        out += sweep_section(
            res, results_dir, "pipeline",
            "Poisson arrivals: latency and CPU versus pipeline length",
            [pipeline_case(n, LOW_RATE, arrivals="poisson") for n in lengths], lengths, "stages",
            False, None, f"As above at {LOW_RATE} msg/s, with exponential gaps between the "
            "messages (same mean rate, seed 1).")
    if res.has_part("timeout"):
        timeouts = sorted((c.split("wait-timeout=")[1] for c in res.cases("timeout")),
                          key=duration_us)
        out += sweep_section(
            res, results_dir, "timeout", "Troupe `event`: wait-timeout sweep",
            [pipeline_case(MAIN_STAGES, LOW_RATE, wait_timeout=t) for t in timeouts],
            [duration_us(t) for t in timeouts], "wait-timeout (µs)", True,
            "latency_timeout.png",
            f"{MAIN_STAGES} stages at {LOW_RATE} msg/s (the paper's Fig. 8 and 9).")
    if res.has_part("idle"):
        out += idle_section(res, results_dir)
    if res.has_part("max_rate"):
        out += max_rate_section(res, results_dir)
    if res.has_part("breakdown"):
        out += breakdown_section(res)
    if res.has_part("wake_floor"):
        out += wake_floor_section(res)
    if res.failed:
        out += ["Failed runs:", ""]
        groups = {}
        for (part, case, system, config), error in res.failed.items():
            groups.setdefault((system, config, error), []).append(f"{part} `{case}`")
        for (system, config, error), where in sorted(
                groups.items(), key=lambda kv: (bench.system_rank(kv[0][0]), kv[0][1])):
            error = error.replace("\n", " ").replace("|", "\\|")
            out.append(f"- {label(system, config)}, {len(where)} run"
                       f"{'' if len(where) == 1 else 's'} ({', '.join(sorted(where))}): {error}")
        out.append("")
    return out


def duration_us(text):
    """"10us", "1ms", "2s" -> microseconds."""
    for suffix, factor in (("us", 1), ("ms", 1000), ("s", 1_000_000)):
        if text.endswith(suffix) and text[:-len(suffix)].isdigit():
            return int(text[:-len(suffix)]) * factor
    raise ValueError(f"not a duration: {text}")
