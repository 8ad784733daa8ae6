"""Which clouds each policy applies to is data the policy declares; the report names the
policies that did not apply, and SSH from anything wider than an admin range is refused the
same way on all five clouds (a policy violation naming the rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufabric.clouds.registry import names
from gpufabric.policies.model import stack_clouds
from gpufabric.policies.offline import check_and_report
from gpufabric.policies.registry import ALL_POLICIES, not_applicable

from .helpers import STACKS, plan, stack

ONE_STACK_PER_CLOUD = {"aws": "aws-h100", "gcp": "gcp-a3-mega", "azure": "azure-ndv5",
                       "oci": "oci-h100", "nebius": "nebius-h100"}  # fmt: skip


def test_every_policy_names_known_clouds() -> None:
    for policy in ALL_POLICIES:
        assert policy.clouds, policy.name
        assert set(policy.clouds) <= {*names(), "*"}, policy.name


def test_every_cloud_has_a_shipped_stack_here() -> None:
    assert set(ONE_STACK_PER_CLOUD) == set(names())
    assert set(ONE_STACK_PER_CLOUD.values()) <= set(STACKS)


@pytest.mark.parametrize(("cloud", "name"), sorted(ONE_STACK_PER_CLOUD.items()))
def test_the_report_names_the_policies_that_did_not_apply(cloud: str, name: str) -> None:
    view = stack(name)
    assert stack_clouds(view.resources) == {cloud}
    skipped = {p.name for p in not_applicable(view)}
    assert skipped == {p.name for p in ALL_POLICIES if not {cloud, "*"} & set(p.clouds)}
    violations, text = check_and_report(plan(name))
    assert violations == []
    applied = len(ALL_POLICIES) - len(skipped)
    lines = text.splitlines()
    assert lines[0] == f"policy: all {applied} gpufabric policies that apply pass"
    if skipped:
        assert lines[1].startswith("policy: not applicable to this stack's cloud: ")
        for policy in not_applicable(view):
            assert f"{policy.name} ({', '.join(policy.clouds)} only)" in lines[1]
    else:
        assert len(lines) == 1


def test_policies_for_every_cloud_run_on_a_cloud_of_a_new_package() -> None:
    from gpufabric.policies.model import Resource, Stack
    from gpufabric.policies.registry import applies

    view = Stack([Resource("newcloud:net/rule:Rule", "r", "r", {})], {})
    skipped = {p.name for p in not_applicable(view)}
    assert "ssh-from-admin-ranges-only" not in skipped and "imdsv2-required" in skipped
    assert all(applies(p, {"newcloud"}) == ("*" in p.clouds) for p in ALL_POLICIES)


def test_aws_only_policies_do_not_run_on_oci() -> None:
    skipped = {p.name for p in not_applicable(stack("oci-h100"))}
    assert {"imdsv2-required", "efa-security-group-self-only"} <= skipped
    assert "ssh-from-admin-ranges-only" not in skipped


@pytest.mark.parametrize("cloud", sorted(ONE_STACK_PER_CLOUD))
@pytest.mark.parametrize("cidr", ["1.0.0.0/8", "10.0.0.0/15", "0.0.0.0/1"])
def test_ssh_wider_than_an_admin_range_is_refused_on_every_cloud(cloud: str, cidr: str) -> None:
    violations, _ = check_and_report(
        plan(ONE_STACK_PER_CLOUD[cloud], f"gpufabric:network.managementCidr={cidr}")
    )
    ssh = [v for v in violations if v.policy == "ssh-from-admin-ranges-only"]
    assert ssh, f"{cloud}: SSH from {cidr} passed"
    assert all(f"from {cidr}," in v.reason for v in ssh)
    world = {v.policy for v in violations if v.policy == "no-ingress-from-internet"}
    assert bool(world) == (cidr == "0.0.0.0/1"), cloud


def test_a_cloud_whose_policy_data_is_not_a_cloud_policy_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpufabric.errors import UserError
    from gpufabric.policies import cloud

    package = tmp_path / "badpolicycloud"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from gpufabric.clouds.spec import CloudSpec\n"
        "CLOUD = CloudSpec(name='bad', display_name='Bad', extra='bad', extra_modules=(),\n"
        "    pulumi_sdk='pulumi', type_prefix='bad', region_key=None, discovery_input='',\n"
        "    topology_source='')\n"
    )
    (package / "policy.py").write_text("POLICY = {'node_types': ()}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("GPUFABRIC_CLOUDS", "bad=badpolicycloud")
    with pytest.raises(UserError, match=r"^cloud 'bad': badpolicycloud\.policy\.POLICY must be a "):
        cloud.policies()
