"""The pipeline identities' permission documents: AWS linted by parliament (a real IAM
linter), GCP / Azure checked for shape; the fabric identity may only read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from parliament import analyze_policy_string

REPO = Path(__file__).resolve().parents[2]
PERMS = REPO / "permissions"
IDENTITIES = ["preview", "deploy", "fabric"]
ACCEPTED = yaml.safe_load((PERMS / "aws" / "accepted-findings.yaml").read_text())


def findings(text: str) -> set[str]:
    policy = analyze_policy_string(text, include_community_auditors=True)
    return {f.issue for f in policy.findings}


@pytest.mark.parametrize("name", IDENTITIES)
def test_aws_policy_passes_parliament(name: str) -> None:
    found = findings((PERMS / "aws" / f"{name}.json").read_text())
    accepted = set(ACCEPTED.get(f"{name}.json", {}))
    assert found - accepted == set(), f"aws/{name}.json: {sorted(found - accepted)}"
    assert accepted - found == set(), f"stale accepted findings for {name}.json"


def test_parliament_really_lints() -> None:
    bad = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["ec2:DescribeInstancez"], "Resource": "*"},
            {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::bucket"},
        ],
    }  # fmt: skip
    assert {"UNKNOWN_ACTION", "RESOURCE_MISMATCH"} <= findings(json.dumps(bad))


def aws_actions(name: str) -> list[str]:
    doc = json.loads((PERMS / "aws" / f"{name}.json").read_text())
    return [a for s in doc["Statement"] for a in s["Action"]]


def gcp_permissions(name: str) -> list[str]:
    return yaml.safe_load((PERMS / "gcp" / f"{name}.yaml").read_text())["includedPermissions"]


def azure_actions(name: str) -> list[str]:
    doc = json.loads((PERMS / "azure" / f"{name}.json").read_text())
    return doc["Actions"] + doc["DataActions"]


@pytest.mark.parametrize("name", IDENTITIES)
def test_no_wildcard_in_any_permission(name: str) -> None:
    for action in aws_actions(name) + gcp_permissions(name) + azure_actions(name):
        assert "*" not in action, f"{name}: {action}"


@pytest.mark.parametrize("name", IDENTITIES)
def test_gcp_role_and_azure_definition_have_the_shape_their_cli_takes(name: str) -> None:
    role = yaml.safe_load((PERMS / "gcp" / f"{name}.yaml").read_text())
    assert set(role) == {"title", "description", "stage", "includedPermissions"}
    perms = role["includedPermissions"]
    assert perms == sorted(set(perms))
    assert all(re.fullmatch(r"[a-z]+\.[a-zA-Z]+\.[a-zA-Z]+", p) for p in perms), perms
    doc = json.loads((PERMS / "azure" / f"{name}.json").read_text())
    assert set(doc) == {"Name", "IsCustom", "Description", "Actions", "NotActions",
                        "DataActions", "NotDataActions", "AssignableScopes"}  # fmt: skip
    assert doc["IsCustom"] is True and doc["AssignableScopes"]
    for action in doc["Actions"] + doc["DataActions"]:
        assert re.fullmatch(r"Microsoft\.[A-Za-z]+(/[A-Za-z]+)+", action), action


CA_SECRET = "arn:aws:secretsmanager:us-east-1:111122223333:secret:gpufabric/ipsec-ca-??????"


def test_fabric_and_preview_identities_only_read() -> None:
    for name in ("fabric", "preview"):
        doc = json.loads((PERMS / "aws" / f"{name}.json").read_text())
        for statement in doc["Statement"]:
            if statement["Resource"] == CA_SECRET:  # the IPsec CA's one secret, fabric only
                assert name == "fabric"
                assert statement["Action"] == ["secretsmanager:GetSecretValue",
                                               "secretsmanager:PutSecretValue"]  # fmt: skip
                continue
            for action in statement["Action"]:
                if action.startswith("s3:"):
                    assert name == "preview" and action in ("s3:GetObject", "s3:ListBucket")
                    continue
                assert re.match(r"\w+:(Describe|Get|List)", action), f"aws/{name}: {action}"
        for perm in gcp_permissions(name):
            assert perm.rsplit(".", 1)[1] in ("get", "list"), f"gcp/{name}: {perm}"
        for action in azure_actions(name):
            assert action.endswith("/read"), f"azure/{name}: {action}"
    assert set(aws_actions("fabric")) == {
        "ec2:DescribeInstances",
        "ec2:DescribeInstanceTopology",
        "secretsmanager:GetSecretValue",
        "secretsmanager:PutSecretValue",
    }


# What returns a node's user data (which may hold the user's own credentials) or decrypts
# stack secrets: never for the unreviewed preview identity.
PREVIEW_NEVER = {
    "aws": {"kms:Decrypt", "ec2:DescribeLaunchTemplateVersions", "ec2:DescribeInstanceAttribute"},
    "gcp": {"compute.instanceTemplates.get", "compute.instances.get", "compute.instances.list",
            "cloudkms.cryptoKeyVersions.useToDecrypt"},
    "azure": {"Microsoft.KeyVault/vaults/keys/decrypt/action"},
}  # fmt: skip


def test_the_preview_identity_decrypts_nothing_and_reads_no_user_data() -> None:
    found = {
        "aws": set(aws_actions("preview")),
        "gcp": set(gcp_permissions("preview")),
        "azure": set(azure_actions("preview")),
    }
    for cloud, never in PREVIEW_NEVER.items():
        assert found[cloud] & never == set(), cloud


def test_aws_deploy_manages_iam_only_under_the_gpufabric_path_with_the_cluster_tag() -> None:
    doc = json.loads((PERMS / "aws" / "deploy.json").read_text())
    assert "-node-" not in json.dumps(doc)
    iam = [s for s in doc["Statement"] if any(a.startswith("iam:") for a in s["Action"])]
    for statement in iam:
        if statement["Action"] == ["iam:CreateServiceLinkedRole"]:
            continue
        resources = statement["Resource"]
        resources = [resources] if isinstance(resources, str) else resources
        assert all(re.fullmatch(r"arn:aws:iam::\d+:(role|instance-profile)/gpufabric/\*", r)
                   for r in resources), statement["Sid"]  # fmt: skip
        tags = json.dumps(statement.get("Condition", {}))
        assert "Tag/gpufabric:cluster" in tags, statement["Sid"]


def test_the_aws_plan_puts_the_node_role_where_the_deploy_identity_may_act() -> None:
    from gpufabric.plan import run_plan

    plan = run_plan(REPO, "aws-h100")
    for token in ("aws:iam/role:Role", "aws:iam/instanceProfile:InstanceProfile"):
        (res,) = plan.of_type(token)
        assert res.inputs["path"] == "/gpufabric/", token
        assert "gpufabric:cluster" in res.inputs["tags"], token


def test_gcp_deploy_role_has_no_project_wide_act_as_or_set_metadata() -> None:
    perms = set(gcp_permissions("deploy"))
    assert {"iam.serviceAccounts.actAs", "compute.instances.setMetadata"} & perms == set()


def test_docs_reference_every_permission_document() -> None:
    readme = (PERMS / "README.md").read_text()
    for path in sorted(PERMS.glob("*/*")):
        if path.name != "accepted-findings.yaml":
            assert f"({path.relative_to(PERMS)})" in readme, path


# OCI's policy grammar ("allow <subject> to <verb> <resource-type> in <location> where ..."),
# its verbs, and the resource types this project uses (OCI Policy Reference; "File Storage
# with Lustre Policies"). No offline OCI policy linter exists: this is the syntax check.
OCI_STATEMENT = re.compile(
    r"Allow (group|dynamic-group|service) ([\w-]+) to (inspect|read|use|manage) ([\w-]+) "
    r"in compartment ([\w-]+)( where .+)?"
)
OCI_TYPES = {
    "virtual-network-family", "compute-management-family", "instance-family",
    "compute-capacity-reservations", "lustre-file-family", "objectstorage-namespaces", "objects",
    "buckets", "secret-bundles", "secrets",
}  # fmt: skip


def oci_statements(name: str = "deploy") -> list[str]:
    lines = (PERMS / "oci" / f"{name}.policy").read_text().splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def test_oci_policy_statements_parse_and_stay_in_the_compartment() -> None:
    statements = oci_statements()
    assert statements
    for line in statements:
        match = OCI_STATEMENT.fullmatch(line)
        assert match, f"oci/deploy.policy: not a policy statement: {line}"
        assert match[4] in OCI_TYPES, f"oci/deploy.policy: unknown resource type {match[4]}"
        assert match[5] == "gpufabric"  # never `in tenancy`
    objects = [s for s in statements if " objects " in s]
    assert objects and all("where target.bucket.name" in s for s in objects)
    assert not any("all-resources" in s for s in statements)
    assert OCI_STATEMENT.fullmatch("Allow group g to manage all-resources in tenancy") is None


def test_oci_fabric_policy_only_reads_in_the_compartment() -> None:
    statements, kinds = oci_statements("fabric"), set()
    assert statements
    for line in statements:
        match = OCI_STATEMENT.fullmatch(line)
        assert match, f"oci/fabric.policy: not a policy statement: {line}"
        group, verb, kind, where = match[2], match[3], match[4], match[5]
        assert (group, where) == ("gpufabric-fabric", "gpufabric")
        if kind in ("secret-bundles", "secrets"):  # the IPsec CA's one secret, nothing more
            assert match[6] == " where target.secret.name = 'gpufabric-ipsec-ca'", line
            assert verb == ("read" if kind == "secret-bundles" else "use"), line
        else:
            assert (verb, match[6]) == ("read", None), line
        kinds.add(kind)
    assert kinds == {
        "compute-management-family", "instance-family", "virtual-network-family",
        "secret-bundles", "secrets",
    }  # fmt: skip


def test_nebius_fabric_identity_only_views_its_project() -> None:
    doc = yaml.safe_load((PERMS / "nebius" / "fabric.yaml").read_text())
    assert doc["scope"] == "project" and doc["roles"] == ["viewer"]
    assert doc["serviceAccount"] != "gpufabric-deploy"


def test_nebius_deploy_identity_is_project_scoped_and_no_admin() -> None:
    doc = yaml.safe_load((PERMS / "nebius" / "deploy.yaml").read_text())
    assert doc["scope"] == "project" and "admin" not in doc["roles"]
    assert set(doc["roles"]) <= {"viewer", "editor"}


@pytest.mark.parametrize("name", ["deploy-nodes", "deploy-boot", "fabric-ca"])
def test_extra_gcp_roles_have_the_shape_their_cli_takes(name: str) -> None:
    role = yaml.safe_load((PERMS / "gcp" / f"{name}.yaml").read_text())
    assert set(role) == {"title", "description", "stage", "includedPermissions"}
    perms = role["includedPermissions"]
    assert perms == sorted(set(perms)) and all("*" not in p for p in perms)
    assert all(re.fullmatch(r"[a-z]+\.[a-zA-Z]+\.[a-zA-Z]+", p) for p in perms), perms


def test_the_azure_ca_role_only_reads_and_sets_secrets() -> None:
    doc = json.loads((PERMS / "azure" / "fabric-ca.json").read_text())
    assert doc["Actions"] == [] and doc["IsCustom"] is True
    assert doc["DataActions"] == [
        "Microsoft.KeyVault/vaults/secrets/getSecret/action",
        "Microsoft.KeyVault/vaults/secrets/setSecret/action",
    ]
