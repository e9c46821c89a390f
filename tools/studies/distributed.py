"""Study `distributed`: messages between two processes of this machine over
TCP on 127.0.0.1 (benchmarks/distributed/, see its README.md).

Every system has one program, <build>/benchmarks/distributed/<system>/remote,
run once per case as

    remote <case> --threads=1 --scale=quick|full

It starts its own server (the same program) as a second process, pins the
two to different CPUs when there are two, measures itself and prints
`metric <name> <value> <unit>` lines, so run() measures with bench.measure()
like the generic runner (the systems take turns run by run; config
`threads=1`: one worker per process). --threads is ignored; --cases picks
cases, --systems systems.

report_section() writes one table per kind of case with each system's
figures beside the `threads` floor (the machine's: blocking sockets), and
Troupe's ratios to each competitor when Troupe has results.
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bench  # noqa: E402  (tools/ is on the path only now)

PROGRAM = "remote"
CASES = ["ping_pong", "throughput_small", "throughput_1k", "requests", "node_loss"]
# Plain sockets have no node to lose.
NODE_CASES = {"node_loss"}
CONFIG = "threads=1"
FLOOR = "threads"
DESCRIPTION = {
    "troupe": "Troupe's network layer",
    "threads": "blocking POSIX sockets, one thread per process (the machine's floor)",
    "asio": "plain Boost.Asio, one io_context thread per process (the engine's floor)",
}
# The metric each case is judged by.
RATE = {"ping_pong": "rtt_p50", "throughput_small": "msg_per_s",
        "throughput_1k": "msg_per_s", "requests": "responses_per_s"}


def rank(system):
    """Troupe, then CAF, then the floors: the engine's, the machine's."""
    floors = ["asio", FLOOR]
    if system in floors:
        return (2, floors.index(system), system)
    return (0 if system == "troupe" else 1,) + bench.system_rank(system)


def describe(system):
    if system in DESCRIPTION:
        return DESCRIPTION[system]
    if system.startswith("caf-"):
        return f"CAF {system[4:]}'s middleman (`publish` / `remote_actor`)"
    return system


def with_io_reasons(expected):
    """The systems searched for, with a CAF that lacks its io module
    reported absent for that reason."""
    out = {}
    for name, info in expected.items():
        if name.startswith("caf-") and info.get("found") and info.get("io") is False:
            info = dict(info, found=False,
                        reason=f"CAF {name[4:]} was found without its io module "
                               "(libcaf_io), which remoting needs")
        out[name] = info
    return out


# -- running -------------------------------------------------------------------------


def run(study, programs, expected, args, emit):
    systems = sorted(programs, key=rank)
    if args.systems:
        systems = [s for s in systems if s in args.systems]
    bench.emit_absent(study, programs, with_io_reasons(expected), args, emit)
    scale = "full" if args.full else "quick"
    for case in CASES:
        if args.cases and case not in args.cases:
            continue
        commands = [(s, [programs[s][PROGRAM], case, "--threads=1", f"--scale={scale}"])
                    for s in systems if PROGRAM in programs[s]
                    and (case not in NODE_CASES or s == "troupe" or s.startswith("caf-"))]
        bench.measure(study, case, CONFIG, commands, args, emit)


# -- report --------------------------------------------------------------------------


class Results:
    def __init__(self, lines):
        self.absent = [l for l in lines if l.get("metric") == "absent"]
        measured = [l for l in lines if l.get("metric") != "absent"]
        self.cell = {(l["case"], l["system"], l["metric"]): l for l in measured
                     if l.get("config") == CONFIG}
        self.systems = sorted({l["system"] for l in measured if l.get("case") in CASES},
                              key=rank)
        self.cases = [c for c in CASES if any(k[0] == c for k in self.cell)]

    def line(self, case, system, metric):
        return self.cell.get((case, system, metric))

    def value(self, case, system, metric):
        line = self.line(case, system, metric)
        return None if line is None else line.get("value")


def cost_ratio(a, b, higher_better):
    """a's cost over b's (below 1: a is faster): the median over rounds of
    the ratio within a round where both lines keep their samples, else the
    ratio of the medians. None if either is missing."""
    if not a or not b or not a.get("value") or not b.get("value"):
        return None
    pairs = [(x, y) for x, y in zip(a.get("samples") or [], b.get("samples") or [])
             if x and y]
    if pairs:
        return statistics.median(y / x if higher_better else x / y for x, y in pairs)
    return b["value"] / a["value"] if higher_better else a["value"] / b["value"]


def fmt(report, line, scale=1.0):
    if line is None:
        return "—"
    if line.get("value") is None:
        return "failed"
    scaled = dict(line)
    for k in ("value", "min", "max"):
        if scaled.get(k) is not None:
            scaled[k] = scaled[k] * scale
    return report.fmt_cell(scaled)


def floor_multiple(res, case, system, metric, higher_better):
    if system == FLOOR:
        return "floor"
    r = cost_ratio(res.line(case, system, metric), res.line(case, FLOOR, metric),
                   higher_better)
    if r is None:
        return "—"
    return f"{r:.0f}×" if r >= 100 else f"{r:.1f}×" if r >= 10 else f"{r:.2f}×"


def ping_pong_table(res, report):
    case = "ping_pong"
    systems = [s for s in res.systems if res.line(case, s, "time")]
    if not systems:
        return []
    out = [f"### `{case}`: one message in flight", "",
           "Round-trip latency of a small message (an int), each round trip timed on the "
           "client; median over runs of each run's percentile, least and most in brackets. "
           "CPU: both processes' CPU time over the measured round trips, per round trip. "
           "p50 / floor: the median over the `threads` floor's (within each round).", ""]
    header = ["system", "p50 (µs)", "p90 (µs)", "p99 (µs)", "max (µs)",
              "CPU per round trip (µs)", "p50 / floor"]
    out += ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for s in systems:
        row = [f"`{s}`"] + [fmt(report, res.line(case, s, m))
                            for m in ("rtt_p50", "rtt_p90", "rtt_p99", "rtt_max", "cpu_per_op")]
        row.append(floor_multiple(res, case, s, "rtt_p50", False))
        out.append("| " + " | ".join(row) + " |")
    return out + [""]


def throughput_table(res, report):
    cases = [c for c in ("throughput_small", "throughput_1k", "requests") if c in res.cases]
    systems = [s for s in res.systems if any(res.line(c, s, "time") for c in cases)]
    if not cases or not systems:
        return []
    out = ["### Throughput", "",
           "`throughput_small` and `throughput_1k`: the client streams N messages (an int; "
           "1 KiB) one way and the server answers once it has counted them. `requests`: "
           "requests and responses with 100 in flight. Rates in thousands per second, "
           "median over runs (least and most); CPU: both processes, per message or "
           "response (µs); × floor: the time per message over the `threads` floor's.", ""]
    header = ["system"]
    for case in cases:
        header += [f"`{case}` (K/s)", "CPU (µs)", "× floor"]
    header.append("peak RSS (MiB)")
    out += ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for s in systems:
        row = [f"`{s}`"]
        rss = []
        for case in cases:
            metric = RATE[case]
            row += [fmt(report, res.line(case, s, metric), 1e-3),
                    fmt(report, res.line(case, s, "cpu_per_op")),
                    floor_multiple(res, case, s, metric, True)]
            v = res.value(case, s, "rss")
            if v is not None:
                rss.append(v)
        row.append(report.fmt_number(max(rss)) if rss else "—")
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    mb = [(s, res.value("throughput_1k", s, "mb_per_s")) for s in systems]
    mb = [(s, v) for s, v in mb if v is not None]
    if mb:
        out += ["`throughput_1k` in payload MB/s: "
                + ", ".join(f"`{s}` {v:,.0f}" for s, v in mb) + ".", ""]
    return out


def node_loss_table(res, report):
    case = "node_loss"
    systems = [s for s in res.systems if res.line(case, s, "time")]
    if not systems:
        return []
    out = [f"### `{case}`: a node killed", "",
           "The client monitors the server's actor and has 1,000 requests pending on it "
           "(timeout 5 s), which the server keeps unanswered; then it kills the server "
           "(SIGKILL). Time from the kill to the monitor's down message, and to the "
           "failure of the last pending request, in ms (median over runs, least and most).",
           ""]
    out += ["| system | down message (ms) | 1,000 requests failed (ms) |", "|---|---:|---:|"]
    for s in systems:
        out.append(f"| `{s}` | {fmt(report, res.line(case, s, 'down_ms'))} | "
                   f"{fmt(report, res.line(case, s, 'requests_failed_ms'))} |")
    return out + [""]


def targets_table(res, report):
    """Issue 53's targets for Troupe, each a ratio within rounds."""
    if "troupe" not in res.systems:
        return []
    caf = next((s for s in ("caf-1.1", "caf-1.x") if s in res.systems), None)
    rows = []

    def add(what, ratio, bound, below=True):
        if ratio is None:
            met = "—"
        else:
            met = "yes" if (ratio <= bound if below else ratio >= bound) else "**no**"
        rows.append(f"| {what} | {report.fmt_ratio(ratio) if ratio is not None else '—'} | "
                    f"{'≤' if below else '≥'} {bound} | {met} |")

    pp = "ping_pong"
    add("round trip p50, over `asio`",
        cost_ratio(res.line(pp, "troupe", "rtt_p50"), res.line(pp, "asio", "rtt_p50"), False), 1.3)
    if caf:
        add(f"round trip p50, over `{caf}`",
            cost_ratio(res.line(pp, "troupe", "rtt_p50"), res.line(pp, caf, "rtt_p50"), False),
            0.5)
        add(f"round trip p99, over `{caf}`",
            cost_ratio(res.line(pp, "troupe", "rtt_p99"), res.line(pp, caf, "rtt_p99"), False),
            1.0)
    ts = "throughput_small"

    def speed(other):
        r = cost_ratio(res.line(ts, "troupe", RATE[ts]), res.line(ts, other, RATE[ts]), True)
        return None if r is None else 1 / r

    if caf:
        add(f"small messages/s, over `{caf}`", speed(caf), 3, below=False)
    add("small messages/s, over `asio`", speed("asio"), 0.7, below=False)
    if not rows:
        return []
    return ["### Targets (issue 53)", "",
            "Troupe's figure over the other system's, the median of the ratios within "
            "rounds (throughput: Troupe's rate over theirs).", "",
            "| target | ratio | bound | met |", "|---|---:|---:|---|"] + rows + [""]


def troupe_ratios(res, report):
    if "troupe" not in res.systems:
        return []
    others = [s for s in res.systems if s != "troupe"]
    columns = [("ping_pong", "rtt_p50", False, "`ping_pong` p50"),
               ("ping_pong", "rtt_p99", False, "`ping_pong` p99")]
    columns += [(c, RATE[c], True, f"`{c}`") for c in CASES[1:4]]
    columns += [(c, "cpu_per_op", False, f"`{c}` CPU") for c in CASES[:4]]
    out = ["### Troupe against the others", "",
           "Troupe's cost over each system's: latency, time per message (the inverse of "
           "the rate) and CPU per operation, each the median over rounds of the ratio "
           "within a round; below 1 (bold) Troupe is faster or cheaper.", "",
           "| system | " + " | ".join(label for *_, label in columns) + " |",
           "|---|" + "---:|" * len(columns)]
    for s in others:
        row = [f"`{s}`"]
        for case, metric, higher, _ in columns:
            row.append(report.fmt_ratio(cost_ratio(res.line(case, "troupe", metric),
                                                   res.line(case, s, metric), higher)))
        out.append("| " + " | ".join(row) + " |")
    return out + [""]


def report_section(name, lines, machine, results_dir):
    import report
    res = Results(lines)
    where = ("The cases and the programs are described in "
             "`benchmarks/distributed/README.md`.")
    out = report.study_preamble(name, machine, res.absent, where)
    if not res.cases:
        return out + ["No measurements.", ""]
    out += ["Client and server are two processes on 127.0.0.1, each pinned to its own CPU "
            "when the machine has two. Systems: "
            + "; ".join(f"`{s}`: {describe(s)}" for s in res.systems) + ".", ""]
    out += ping_pong_table(res, report)
    out += throughput_table(res, report)
    out += node_loss_table(res, report)
    out += troupe_ratios(res, report)
    out += targets_table(res, report)
    failures = [(k, l) for k, l in res.cell.items() if l.get("failed") and k[2] == "time"]
    if failures:
        out += ["Failed runs:", ""]
        for (case, system, _), line in sorted(failures, key=lambda kv: kv[0]):
            error = (line.get("error") or "").replace("\n", " ").replace("|", "\\|")
            out.append(f"- `{case}` `{system}`: {error}")
        out.append("")
    return out
