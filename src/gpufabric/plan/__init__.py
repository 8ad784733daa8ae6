"""The offline plan: the real Pulumi program run under recording mocks."""

from gpufabric.plan.runner import Plan, PlannedResource, run_plan

__all__ = ["Plan", "PlannedResource", "run_plan"]
