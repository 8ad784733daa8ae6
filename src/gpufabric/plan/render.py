"""Human form of a plan: the notice, the fabric facts, and what would be created."""

from __future__ import annotations

from collections import Counter

from rich.console import Console
from rich.table import Table
from rich.tree import Tree

from gpufabric.plan.runner import OFFLINE_NOTICE, Plan
from gpufabric.plan.summary import fabric_summary


def render_plan(plan: Plan, console: Console | None = None) -> None:
    console = console or Console()
    console.print(f"[bold]Plan for stack {plan.stack}[/bold] ([yellow]{OFFLINE_NOTICE}[/yellow])")
    facts = Table(title="Fabric", show_header=False, title_justify="left")
    # at 80 columns values wrap at spaces (a token longer than the column folds): never "..."
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for label, value in fabric_summary(plan):
        facts.add_row(label, value)
    console.print(facts)

    counts = Counter(r.type for r in plan.resources)
    tree = Tree(f"{len(plan.resources)} resources would be created")
    by_type: dict[str, Tree] = {}
    for resource in plan.resources:
        if resource.type not in by_type:
            by_type[resource.type] = tree.add(
                f"[cyan]{resource.type}[/cyan] x{counts[resource.type]}"
            )
        by_type[resource.type].add(resource.name)
    console.print(tree)
