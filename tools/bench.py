#!/usr/bin/env python3
"""Runs the benchmark studies and writes benchmarks/results/<study>.jsonl.

Every program of a study takes the same command line,

    <build>/benchmarks/<study>/<system>/<case> --threads=T --scale=quick|full

and is timed as a whole process (wall clock from spawn to exit, as CAF's
benchmarks repository does), together with its user + system CPU time and
its peak resident memory, both from the kernel's accounting of that one
child (wait4, in the small launcher <build>/benchmarks/troupe_bench_launch). For each case and thread count, the systems take turns run
by run, so that a slow drift of the machine hits all of them alike.

Each measurement becomes one JSON line (see "Benchmark results format" in
the design):

    {"study": "core", "case": "ping_pong", "system": "caf-1.1",
     "config": "threads=2", "metric": "time", "value": 0.41, "unit": "s",
     "runs": 3, "min": 0.40, "max": 0.43}

with metrics time (s), cpu (s) and rss (MiB), and whatever the program
reports itself in lines `metric <name> <value> <unit>` (the median over
runs, like the others). The time line, and each line of a metric the
program printed, also has "samples": each run's value in the order the
systems took turns (null for a failed run or one that did not print it),
so that two systems measured together can be compared round by round. A run that
fails or times out is not retried: the line gets "failed" (how many) and
"error" (the tail of its stderr), and "value" is null if no run succeeded.
A system that was not found, or has no programs in the study, gets one
line with metric "absent" and a "reason"; so does each competitor program that tools/bench_build.py
could not build (its reason names the program and the first error line, and
the system's other programs are measured). The machine is described in
benchmarks/results/machine.json, and each study's entry there keeps the
machine it ran on (report.py says so where it differs).

Studies whose programs measure themselves (latency, micro) have a module
tools/studies/<study>.py with a function

    run(study, programs, expected, args, emit)

that runs them and emits the JSON lines; the generic runner above is used
for every other study. Helpers for such modules (measure, run_program,
emit_absent, absent_line, system_rank) live here.

Standard library only.
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "benchmarks", "results")

# Columns of the report follow this order; other systems come after.
SYSTEM_ORDER = ["troupe", "caf-1", "caf-0", "threads"]


def system_rank(name):
    for i, prefix in enumerate(SYSTEM_ORDER):
        if name.startswith(prefix):
            return (i, name)
    return (len(SYSTEM_ORDER), name)


def is_program(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def discover(bench_root):
    """Returns {study: {system: {case: path}}} for every built program."""
    studies = {}
    if not os.path.isdir(bench_root):
        return studies
    for study in sorted(os.listdir(bench_root)):
        study_dir = os.path.join(bench_root, study)
        if not os.path.isdir(study_dir) or study == "CMakeFiles":
            continue
        systems = {}
        for system in sorted(os.listdir(study_dir)):
            system_dir = os.path.join(study_dir, system)
            if not os.path.isdir(system_dir) or system == "CMakeFiles":
                continue
            cases = {c: os.path.join(system_dir, c) for c in sorted(os.listdir(system_dir))
                     if is_program(os.path.join(system_dir, c))}
            if cases:
                systems[system] = cases
        if systems:
            studies[study] = systems
    return studies


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def command_output(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, cwd=REPO)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip()


# What says which machine a study ran on; each study's entry in machine.json
# keeps these, so a study re-run elsewhere does not relabel the others.
MACHINE_KEYS = ("cpu", "logical_cpus", "physical_cores", "usable_cpus", "virtualised",
                "memory_gib", "kernel")


def machine_summary(machine):
    return {k: machine.get(k) for k in MACHINE_KEYS}


def describe_machine(systems_info):
    cpuinfo = read_text("/proc/cpuinfo")
    model = None
    cores = set()
    physical_id = core_id = None
    hypervisor = False
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name" and model is None:
            model = value
        elif key == "physical id":
            physical_id = value
        elif key == "core id":
            core_id = value
            cores.add((physical_id, core_id))
        elif key == "flags" and "hypervisor" in value.split():
            hypervisor = True
    mem_total = None
    for line in read_text("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            mem_total = round(int(line.split()[1]) / 1024 / 1024, 1)
    governor = read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").strip()
    compilers = {}
    for name in ("c++", "g++", "clang++"):
        version = command_output([name, "--version"])
        if version:
            compilers[name] = version.splitlines()[0]
    machine = {
        "cpu": model or platform.processor() or "unknown",
        "logical_cpus": os.cpu_count(),
        "physical_cores": len(cores) or None,
        "usable_cpus": len(os.sched_getaffinity(0)),
        "virtualised": hypervisor,
        "memory_gib": mem_total,
        "cpu_governor": governor or None,
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "compilers": compilers,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "git": command_output(["git", "describe", "--always", "--dirty"]) or "no commit yet",
    }
    if systems_info:
        machine["build"] = {k: systems_info[k] for k in ("compiler", "build_type", "cxx_flags")
                            if k in systems_info}
        machine["systems"] = systems_info.get("systems", {})
    return machine


class Run:
    """One finished run of a program."""

    def __init__(self, ok, wall, cpu, rss_mib, stdout, error):
        self.ok = ok
        self.wall = wall
        self.cpu = cpu
        self.rss_mib = rss_mib
        self.stdout = stdout
        self.error = error


def tail(text, lines=8, chars=600):
    text = "\n".join(text.strip().splitlines()[-lines:])
    return text[-chars:]


def run_program(cmd, timeout, launcher):
    """Runs `cmd` in an empty directory, through `launcher` when there is one.

    The launcher (benchmarks/common/launch.cpp) forks the program from a
    process of about 1 MiB and reports its wall time, CPU time and peak RSS.
    Without it, the numbers come from wait4 on the child forked here, whose
    peak RSS cannot be less than this interpreter's (about 16 MiB).
    """
    with tempfile.TemporaryDirectory(prefix="troupe-bench-") as cwd, \
            tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        report = os.path.join(cwd, "launch-report")
        full_cmd = [launcher, report] + cmd if launcher else cmd
        timed_out = threading.Event()
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(full_cmd, stdout=out, stderr=err, cwd=cwd,
                                    start_new_session=True)
        except OSError as e:
            return Run(False, 0.0, 0.0, 0.0, "", f"could not start: {e}")

        def kill():
            # The child is not reaped before the timer is cancelled (WNOWAIT
            # below), so its process group cannot belong to anyone else yet.
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
            wall = time.perf_counter() - start
        except BaseException:
            kill()  # interrupted: the child has its own session, end it too
            raise
        finally:
            timer.cancel()
            timer.join()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        rss_mib = usage.ru_maxrss / 1024.0  # KiB on Linux
        returncode = proc.returncode
        if launcher and not timed_out.is_set():
            fields = read_text(report).split()
            if len(fields) == 5:
                wall, user, system = (float(x) for x in fields[:3])
                cpu = user + system
                rss_mib = int(fields[3]) / 1024.0
                returncode = int(fields[4])
            elif returncode == 0:
                returncode = -1  # the launcher exited without a report
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if timed_out.is_set():
        what = f"timed out after {timeout:g} s"
    elif returncode < 0:
        what = f"killed by signal {-returncode}"
    elif returncode > 0:
        what = f"exit status {returncode}"
    else:
        return Run(True, wall, cpu, rss_mib, stdout, None)
    stderr = tail(stderr)
    return Run(False, wall, cpu, rss_mib, stdout, f"{what}: {stderr}" if stderr else what)


def program_metrics(stdout):
    """{name: (value, unit)} from the lines `metric <name> <value> <unit>` a
    program prints about itself (e.g. live_actors' bytes per actor)."""
    metrics = {}
    for text in stdout.splitlines():
        fields = text.split()
        if len(fields) == 4 and fields[0] == "metric":
            try:
                metrics[fields[1]] = (float(fields[2]), fields[3])
            except ValueError:
                continue
    return metrics


def summarise(study, case, system, config, runs):
    """The JSON lines of one case x system x config: time, cpu and rss of
    every program, then the metrics it printed itself."""
    good = [r for r in runs if r.ok]
    failed = [r for r in runs if not r.ok]
    lines = []
    measures = [("time", "s", lambda r: r.wall),
                ("cpu", "s", lambda r: r.cpu),
                ("rss", "MiB", lambda r: r.rss_mib)]
    printed = [program_metrics(r.stdout) for r in good]
    for name in sorted({n for m in printed for n in m}):
        unit = next(m[name][1] for m in printed if name in m)
        measures.append((name, unit, lambda r, name=name: program_metrics(r.stdout).get(
            name, (None,))[0]))
    for metric, unit, pick in measures:
        per_run = [pick(r) if r.ok else None for r in runs]
        values = [v for v in per_run if v is not None]
        line = {"study": study, "case": case, "system": system, "config": config,
                "metric": metric,
                "value": round(statistics.median(values), 6) if values else None,
                "unit": unit, "runs": len(values),
                "min": round(min(values), 6) if values else None,
                "max": round(max(values), 6) if values else None}
        if metric not in ("cpu", "rss"):
            line["samples"] = [None if v is None else round(v, 6) for v in per_run]
        if failed:
            line["failed"] = len(failed)
            line["error"] = failed[0].error
        lines.append(line)
    return lines


def absent_line(study, system, reason):
    return {"study": study, "case": None, "system": system, "config": None,
            "metric": "absent", "value": None, "unit": None, "reason": reason}


def build_failures(bench_root):
    """{study: {system: [failure, ...]}} from tools/bench_build.py's list of
    competitor programs that failed to build (empty without that list)."""
    try:
        with open(os.path.join(bench_root, "build-failures.json"), encoding="utf-8") as f:
            failures = json.load(f).get("failures", [])
    except (OSError, ValueError):
        return {}
    out = {}
    for failure in failures:
        out.setdefault(failure["study"], {}).setdefault(failure["system"], []).append(failure)
    return out


def drop_unlisted(programs, bench_root):
    """Leaves out every program that the build's programs.json does not list:
    one of a system that this configuration no longer finds (e.g. a CAF 1.x
    from an earlier CAF_ROOT) is still on disk."""
    try:
        with open(os.path.join(bench_root, "programs.json"), encoding="utf-8") as f:
            listed = {(p["study"], p["system"], p["case"]) for p in json.load(f)["programs"]}
    except (OSError, ValueError, KeyError):
        return  # configured before programs.json existed: keep what is there
    for study in list(programs):
        for system in list(programs[study]):
            cases = programs[study][system]
            for case in [c for c in cases if (study, system, c) not in listed]:
                del cases[case]
            if not cases:
                del programs[study][system]
        if not programs[study]:
            del programs[study]


def drop_failed(programs, failures):
    """Leaves out of `programs` every program that failed to build: what is
    on disk for it is from an earlier build."""
    for study, systems in failures.items():
        for system, failed in systems.items():
            cases = programs.get(study, {}).get(system, {})
            for failure in failed:
                cases.pop(failure["case"], None)
            if study in programs and not cases:
                programs[study].pop(system, None)
        if study in programs and not programs[study]:
            del programs[study]


def emit_absent(study, programs, expected, args, emit):
    """One absent line for each system searched for that has no program here,
    and one for each of a system's programs that failed to build."""
    failures = getattr(args, "build_failures", {}).get(study, {})
    for name in sorted(set(expected) | set(failures), key=system_rank):
        info = expected.get(name, {})
        if args.systems and name not in args.systems:
            continue
        if name in failures:
            # The system was found but (some of) its programs do not build
            # against it; the others, if any, are measured.
            for failure in failures[name]:
                reason = f"{failure['program']} failed to build: {failure['error']}"
                line = absent_line(study, name, reason)
                line["program"] = failure["program"]
                emit(line)
                print(f"[{study}] {name}: absent ({reason})", flush=True)
            continue
        if name in programs:
            continue
        if "studies" in info and study not in info["studies"]:
            continue  # a system of other studies only (e.g. tbb)
        if not info.get("found", False):
            reason = info.get("reason", f"{name} was not found")
        else:
            reason = f"no {name} programs are built for study {study}"
        emit(absent_line(study, name, reason))
        print(f"[{study}] {name}: absent ({reason})", flush=True)


def study_module(study):
    """tools/studies/<study>.py, imported, or None if the study has none."""
    path = os.path.join(REPO, "tools", "studies", f"{study}.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location(f"troupe_study_{study}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_study(study, programs, expected, args, out):
    """Runs one study; writes its lines to `out` as they become known."""
    def emit(line):
        out.write(json.dumps(line) + "\n")
        out.flush()

    module = study_module(study)
    if module is not None and hasattr(module, "run"):
        module.run(study, programs, expected, args, emit)
        return

    systems = sorted(programs, key=system_rank)
    if args.systems:
        systems = [s for s in systems if s in args.systems]
    emit_absent(study, programs, expected, args, emit)

    cases = sorted({c for s in systems for c in programs[s]})
    if args.cases:
        cases = [c for c in cases if c in args.cases]
    scale = "full" if args.full else "quick"
    for case in cases:
        for threads in args.threads:
            commands = [(s, [programs[s][case], f"--threads={threads}", f"--scale={scale}"])
                        for s in systems if case in programs[s]]
            measure(study, case, f"threads={threads}", commands, args, emit)


def measure(study, case, config, commands, args, emit):
    """Runs each (system, argv) of `commands` args.runs times, the systems
    taking turns run by run, and emits the summaries of each system."""
    runs = {system: [] for system, _ in commands}
    for i in range(args.runs):
        for system, cmd in commands:
            # A failure is not retried: it would most likely repeat, and a
            # hanging system would eat the whole time budget.
            if any(not r.ok for r in runs[system]):
                continue
            run = run_program(cmd, args.timeout, args.launcher)
            runs[system].append(run)
            status = (f"{run.wall:8.3f} s  cpu {run.cpu:7.3f} s  "
                      f"rss {run.rss_mib:7.1f} MiB  "
                      + "  ".join(run.stdout.split("\n")).strip()
                      if run.ok else "FAILED: " + run.error.replace("\n", " | "))
            print(f"[{study}] {case:20} {config:10} {system:9} "
                  f"run {i + 1}/{args.runs}: {status}", flush=True)
    for system, _ in commands:
        for line in summarise(study, case, system, config, runs[system]):
            emit(line)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default="build/release",
                   help="CMake build directory with TROUPE_BUILD_BENCHMARKS=ON "
                        "(default: build/release)")
    p.add_argument("--study", action="append", default=[],
                   help="study to run (repeatable; default: every study with programs)")
    scale = p.add_mutually_exclusive_group()
    scale.add_argument("--quick", action="store_true", help="quick sizes (the default)")
    scale.add_argument("--full", action="store_true", help="full sizes")
    p.add_argument("--runs", type=int, help="runs per measurement (default 3 quick, 5 full)")
    p.add_argument("--systems", help="comma-separated systems to run, e.g. troupe,caf-1.1")
    p.add_argument("--cases", help="comma-separated cases to run (default: all)")
    p.add_argument("--threads", default="1,2",
                   help="comma-separated worker thread counts (default: 1,2)")
    p.add_argument("--timeout", type=float,
                   help="seconds before a run is killed (default 120 quick, 600 full)")
    p.add_argument("--results-dir", default=RESULTS,
                   help="where the .jsonl files and machine.json go "
                        "(default: benchmarks/results)")
    args = p.parse_args(argv)
    args.runs = args.runs or (5 if args.full else 3)
    args.timeout = args.timeout or (600.0 if args.full else 120.0)
    args.systems = [s for s in args.systems.split(",") if s] if args.systems else None
    args.cases = [c for c in args.cases.split(",") if c] if args.cases else None
    try:
        args.threads = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        p.error("--threads takes comma-separated integers")
    if args.runs < 1 or not args.threads or min(args.threads) < 1:
        p.error("--runs and --threads must be positive")
    return args


def resolve_build_dir(path):
    if os.path.isabs(path) or os.path.isdir(path):
        return os.path.abspath(path)
    return os.path.join(REPO, path)


def main(argv):
    args = parse_args(argv)
    build_dir = resolve_build_dir(args.build_dir)
    bench_root = os.path.join(build_dir, "benchmarks")
    systems_json = os.path.join(bench_root, "systems.json")
    systems_info = json.loads(read_text(systems_json) or "{}")
    expected = systems_info.get("systems", {})
    programs = discover(bench_root)
    drop_unlisted(programs, bench_root)
    args.build_failures = build_failures(bench_root)
    drop_failed(programs, args.build_failures)
    if not programs:
        print(f"bench.py: no benchmark programs under {bench_root}; configure with "
              "-DTROUPE_BUILD_BENCHMARKS=ON and build first", file=sys.stderr)
        return 1
    args.launcher = os.path.join(bench_root, "troupe_bench_launch")
    if not is_program(args.launcher):
        print(f"bench.py: {args.launcher} is missing; measuring from Python, so peak "
              "RSS includes the interpreter's (about 16 MiB)", file=sys.stderr)
        args.launcher = None
    studies = args.study or sorted(programs)
    unknown = [s for s in studies if s not in programs]
    if unknown:
        print(f"bench.py: no programs for stud{'ies' if len(unknown) > 1 else 'y'} "
              f"{', '.join(unknown)} (have: {', '.join(sorted(programs))})", file=sys.stderr)
        return 1
    if args.systems:
        # A name that matches nothing would run nothing and look like success.
        known = set(expected) | {s for study in programs.values() for s in study}
        unknown = [s for s in args.systems if s not in known]
        if unknown:
            print(f"bench.py: --systems names no system {', '.join(unknown)} (have: "
                  f"{', '.join(sorted(known, key=system_rank))}; a study's configurations, "
                  "e.g. troupe-locality-local, all run under their system)", file=sys.stderr)
            return 1

    os.makedirs(args.results_dir, exist_ok=True)
    machine_path = os.path.join(args.results_dir, "machine.json")
    try:
        previous = json.loads(read_text(machine_path) or "{}")
    except json.JSONDecodeError:
        previous = {}
    machine = describe_machine(systems_info)
    machine["studies"] = previous.get("studies", {})
    # Studies measured before keep the machine they ran on.
    if previous.get("cpu"):
        for info in machine["studies"].values():
            info.setdefault("machine", machine_summary(previous))

    for study in studies:
        started = datetime.datetime.now(datetime.timezone.utc)
        load = [round(x, 2) for x in os.getloadavg()]
        t0 = time.perf_counter()
        path = os.path.join(args.results_dir, f"{study}.jsonl")
        with open(path, "w", encoding="utf-8") as out:  # fresh file per study run
            run_study(study, programs[study], expected, args, out)
        machine["studies"][study] = {
            "scale": "full" if args.full else "quick",
            "runs": args.runs,
            "threads": args.threads,
            "started": started.isoformat(timespec="seconds"),
            # Studies run at different times may come from different commits.
            "git": machine.get("git"),
            "load_average_at_start": load,
            "duration_s": round(time.perf_counter() - t0, 1),
            "machine": machine_summary(machine),
        }
        with open(machine_path, "w", encoding="utf-8") as f:
            json.dump(machine, f, indent=2)
            f.write("\n")
        print(f"[{study}] done in {machine['studies'][study]['duration_s']:.0f} s: {path}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
