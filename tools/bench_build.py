#!/usr/bin/env python3
"""Builds the benchmark programs so that one competitor cannot stop the run.

    tools/bench_build.py --build-dir build/bench [--parallel N]

Reads <build>/benchmarks/programs.json (written when CMake configures the
benchmarks) and builds, in this order:

1. Troupe's programs (`troupe` and `troupe-actors`) and the launcher. A
   failure here fails the build: there is nothing to compare with.
2. Every competitor's program (CAF 0.17, CAF 1.x, threads, tbb,
   sequential), going on past
   failures. A competitor program that does not build, e.g. because the
   installed CAF changed its API, is built once more on its own to capture the
   compiler's output, and its executable from an earlier build is removed so
   that it cannot be measured as if it were current.

The failures go to <build>/benchmarks/build-failures.json (rewritten on every
run, empty when all built), with the first error line of each; the full
output of each is in <build>/benchmarks/build-failures/<target>.log.
tools/bench.py leaves such a program out and reports its system absent from
the study with that error line.

Standard library only.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Lines that say what went wrong, best first: the compiler's error at a place
# in a file, the linker's, any other "error:" (e.g. collect2's summary), then
# anything that says "error".
ERROR_PATTERNS = [
    re.compile(r":\d+(:\d+)?: (fatal )?error:"),
    re.compile(r"undefined reference to|multiple definition of"),
    re.compile(r":\s*(fatal )?error:"),
    re.compile(r"\berror\b", re.IGNORECASE),
]
# Lines of the build tool around the compiler's output.
NOISE = re.compile(r"^(FAILED:|ninja: |make(\[\d+\])?: |\[\d+/\d+\] |gmake)")


def first_error(output, build_dir):
    """The line of a failed build's output that names the first error."""
    lines = [l.strip() for l in output.splitlines()]
    lines = [l for l in lines if l and not NOISE.match(l)]
    # The compiler command line contains paths and flags, not errors; it is
    # the line right after FAILED: in ninja's output and starts with the
    # compiler, so skip lines that look like commands.
    lines = [l for l in lines if not re.match(r"^\S*(c\+\+|g\+\+|clang\+\+|cc|gcc)(-\d+)? ", l)]
    for pattern in ERROR_PATTERNS:
        for line in lines:
            if pattern.search(line):
                return shorten(line, build_dir)
    return shorten(lines[-1], build_dir) if lines else "no output"


def shorten(line, build_dir, limit=300):
    for prefix in (os.path.join(build_dir, ""), os.path.join(REPO, "")):
        line = line.replace(prefix, "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


def generator(build_dir):
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("CMAKE_GENERATOR:"):
                    return line.partition("=")[2].strip()
    except OSError:
        pass
    return ""


def cmake_build(build_dir, targets, parallel, keep_going=False, capture=False):
    cmd = ["cmake", "--build", build_dir, "--target", *targets]
    if parallel:
        cmd += ["--parallel", str(parallel)]
    if keep_going:
        gen = generator(build_dir)
        if gen.startswith("Ninja"):
            cmd += ["--", "-k", "0"]
        elif gen.endswith("Makefiles"):
            cmd += ["--", "-k"]
    if capture:
        # LC_ALL=C: GCC quotes with ASCII apostrophes, not typographic ones.
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace", env=dict(os.environ, LC_ALL="C"))
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd)


def program_path(bench_root, program):
    return os.path.join(bench_root, program["study"], program["system"], program["case"])


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default="build/bench",
                   help="configured CMake build directory (default: build/bench)")
    p.add_argument("--parallel", type=int, help="build jobs (default: the build tool's)")
    args = p.parse_args(argv)
    build_dir = os.path.abspath(args.build_dir if os.path.isabs(args.build_dir)
                                or os.path.isdir(args.build_dir)
                                else os.path.join(REPO, args.build_dir))
    bench_root = os.path.join(build_dir, "benchmarks")
    try:
        with open(os.path.join(bench_root, "programs.json"), encoding="utf-8") as f:
            programs = json.load(f)["programs"]
    except (OSError, ValueError, KeyError) as e:
        print(f"bench_build.py: no program list in {bench_root} ({e}); "
              "configure with -DTROUPE_BUILD_BENCHMARKS=ON first", file=sys.stderr)
        return 1

    own = ["troupe_bench_launch"] + [x["target"] for x in programs if not x["competitor"]]
    competitors = [x for x in programs if x["competitor"]]

    if cmake_build(build_dir, own, args.parallel).returncode != 0:
        print("bench_build.py: Troupe's benchmark programs failed to build", file=sys.stderr)
        return 1

    failures = []
    log_dir = os.path.join(bench_root, "build-failures")
    shutil.rmtree(log_dir, ignore_errors=True)
    if competitors and cmake_build(build_dir, [x["target"] for x in competitors],
                                   args.parallel, keep_going=True).returncode != 0:
        # Which ones failed, and why: each alone (an up-to-date one is a no-op).
        for program in competitors:
            result = cmake_build(build_dir, [program["target"]], args.parallel, capture=True)
            if result.returncode == 0:
                continue
            os.makedirs(log_dir, exist_ok=True)
            log = os.path.join(log_dir, program["target"] + ".log")
            with open(log, "w", encoding="utf-8") as f:
                f.write(result.stdout)
            path = program_path(bench_root, program)
            if os.path.exists(path):
                os.remove(path)  # from an earlier build: not what the sources say now
            failure = {k: program[k] for k in ("study", "system", "case", "target")}
            failure["program"] = f"{program['study']}/{program['system']}/{program['case']}"
            failure["error"] = first_error(result.stdout, build_dir)
            failure["log"] = log
            failures.append(failure)
            print(f"bench_build.py: {failure['program']} failed to build: {failure['error']} "
                  f"(full output: {log})", flush=True)

    with open(os.path.join(bench_root, "build-failures.json"), "w", encoding="utf-8") as f:
        json.dump({"failures": failures}, f, indent=2)
        f.write("\n")
    if failures:
        systems = sorted({x["system"] for x in failures})
        print(f"bench_build.py: {len(failures)} competitor program(s) of "
              f"{', '.join(systems)} failed to build; the studies report them absent",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
