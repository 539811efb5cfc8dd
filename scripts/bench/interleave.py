"""Runs commands in turn, round after round, and prints each one's median wall time and the
ratio of the first to each of the others.

hyperfine runs one command all its times, then the next: on a machine whose load drifts, the
two medians then come from different minutes. Taking turns puts both under the same load.

Usage: python3 scripts/bench/interleave.py ROUNDS NAME=COMMAND NAME=COMMAND...
(a COMMAND is split on spaces; prefix it with `env VAR=value` to give it an environment).
The first three rounds are a warm-up and are not counted.
"""

import statistics
import subprocess
import sys
import time

WARMUP = 3


def main() -> None:
    rounds = int(sys.argv[1])
    commands = [arg.split("=", 1) for arg in sys.argv[2:]]
    times: dict[str, list[float]] = {name: [] for name, _ in commands}
    for round_number in range(rounds + WARMUP):
        for name, command in commands:
            started = time.perf_counter()
            subprocess.run(
                command.split(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            if round_number >= WARMUP:
                times[name].append((time.perf_counter() - started) * 1000)
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(
            f"  {name:12s} median {medians[name]:6.2f} ms"
            f"  (min {min(values):6.2f}, max {max(values):6.2f}, {len(values)} runs)"
        )
    first = commands[0][0]
    for other, _ in commands[1:]:
        print(f"  {first} / {other}: {medians[first] / medians[other]:.2f}x")


if __name__ == "__main__":
    main()
