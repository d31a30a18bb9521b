# SPDX-License-Identifier: LGPL-2.1-or-later
"""Timing of whole commands for the bench/check-*.sh scripts: the median wall-clock and
CPU seconds of N runs, and the output of the last run."""
import os
import statistics
import subprocess
import sys
import time


def run(who, cmd, env=None):
    """Run cmd once with env added; its wall-clock seconds and its output (stdout +
    stderr). Exit status 0 and 1 (some module refused) are results; any other stops the
    benchmark, named after `who`."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, **(env or {})))
    out, err = p.communicate()
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit("%s: %s exited %d: %s" % (who, " ".join(cmd), p.returncode,
                                            err.decode(errors="replace")[:300]))
    return wall, out + err


def timed(who, cmd, n, env_of=lambda i: None):
    """n runs of cmd, run i with env_of(i) added: (median wall s, median CPU s, output of
    the last run)."""
    walls, cpus, out = [], [], None
    for i in range(n):
        before = os.times()
        wall, out = run(who, cmd, env_of(i))
        after = os.times()
        walls.append(wall)
        cpus.append((after.children_user - before.children_user) +
                    (after.children_system - before.children_system))
    return statistics.median(walls), statistics.median(cpus), out
