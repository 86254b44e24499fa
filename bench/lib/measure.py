#!/usr/bin/env python3
"""Times commands the fair way on a shared, noisy machine.

    measure.py --runs N --label A -- CMD_A... --label B -- CMD_B...

Runs the commands alternately (A B A B ...), N times each, each in a fresh
process with its output thrown away, and prints one line per command:

    LABEL  median_wall_s  median_peak_rss_mib  min_wall_s  max_wall_s  median_cpu_s

Peak RSS is the child's ru_maxrss from wait4(); CPU is its user plus system
time, steadier than the wall time on a busy machine and, beside it, what
the second thread buys.  A command that fails is
reported and the whole measurement exits non-zero.
"""
import os
import statistics
import sys
import time


def parse(argv):
    runs = 3
    cmds = []
    i = 0
    while i < len(argv):
        if argv[i] == "--runs":
            runs = int(argv[i + 1])
            i += 2
        elif argv[i] == "--label":
            label = argv[i + 1]
            if argv[i + 2] != "--":
                sys.exit("measure.py: --label NAME -- CMD...")
            j = i + 3
            while j < len(argv) and argv[j] != "--label":
                j += 1
            cmds.append((label, argv[i + 3:j]))
            i = j
        else:
            sys.exit("measure.py: unknown argument " + argv[i])
    return runs, cmds


def run_once(cmd):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - start
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        sys.exit("measure.py: failed: " + " ".join(cmd))
    return wall, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


def main():
    runs, cmds = parse(sys.argv[1:])
    results = {label: [] for label, _ in cmds}
    for _ in range(runs):
        for label, cmd in cmds:
            results[label].append(run_once(cmd))
    for label, _ in cmds:
        walls = [w for w, _, _ in results[label]]
        rss = [r for _, r, _ in results[label]]
        cpu = [c for _, _, c in results[label]]
        print("%-12s %9.3f %9.1f %9.3f %9.3f %9.3f" % (
            label, statistics.median(walls), statistics.median(rss),
            min(walls), max(walls), statistics.median(cpu)))


if __name__ == "__main__":
    main()
