"""What the clouds' steps cost a checkpoint goal: rated throughput / needed, per cloud.

For a sweep of goals (checkpoint size x write time) prints, per service, the smallest valid
configuration and the ratio of its rated throughput to the goal's need (1.00 = no step
overhead), side by side. Pure arithmetic on src/gpufabric/storage/steps.yaml; no timing.

    python benchmarks/storage_sizing.py
"""

from __future__ import annotations

from gpufabric.storage.sizing import Goal, services, size

GOALS = [Goal(256, 60), Goal(2048, 60), Goal(2048, 300), Goal(16384, 120), Goal(65536, 300)]


def main() -> None:
    names = [name for name in services() if name != "fsx-lustre"] + ["fsx-lustre"]
    print(f"{'goal':34} " + " ".join(f"{n:>34}" for n in names))
    for goal in GOALS:
        cells = []
        for name in names:
            svc = services()[name]
            sized = size(svc, goal)
            if sized is None:
                cells.append(f"{'no size meets it':>34}")
                continue
            cell = (
                f"{sized.capacity:,} {svc.unit}@{sized.tier} "
                f"x{sized.rated_gbps / goal.needed_gbps:.2f}"
            )
            cells.append(f"{cell:>34}")
        head = f"{goal.size_gib:,} GiB in {goal.write_seconds:g} s = {goal.needed_gbps:.1f} GB/s"
        print(f"{head:34} " + " ".join(cells))


if __name__ == "__main__":
    main()
