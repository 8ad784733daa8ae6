"""`gpufabric plan`: what a stack would build, offline, as a readable summary or JSON."""

from __future__ import annotations

from typing import Annotated

import typer

from gpufabric.plan.project import project_root
from gpufabric.plan.render import render_plan
from gpufabric.plan.runner import run_plan


def plan(
    stack: Annotated[
        str, typer.Option("--stack", "-s", help="Stack name (stacks/Pulumi.<stack>.yaml)")
    ],
    config: Annotated[
        list[str] | None,
        typer.Option(
            "--config",
            "-c",
            help="KEY=VALUE override, as with `pulumi up -c`; KEY.sub sets a nested value",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON")] = False,
    policy: Annotated[
        bool,
        typer.Option("--policy", help="Also run gpufabric's policies; exit 1 on any violation"),
    ] = False,
) -> None:
    """Run the real Pulumi program under recording mocks: no cloud, no credentials."""
    result = run_plan(project_root(), stack, config or [])
    if as_json:
        typer.echo(result.to_json())
    else:
        render_plan(result)
    if policy:
        from gpufabric.policies.offline import check_and_report

        violations, text = check_and_report(result)
        typer.echo(text, err=as_json)  # --json keeps stdout pure JSON
        if violations:
            raise typer.Exit(1)
