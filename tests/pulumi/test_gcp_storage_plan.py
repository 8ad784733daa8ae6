"""GCP's three storage services through the real program under mocks: each resource's inputs and
the `storage` output the nodes mount from, each instance created under the cluster component
and only after the private-service-access peering it sits behind."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

import pulumi
import pytest
from tests.pulumi.plans import REPO, plan_for

from gpufabric.clouds.gcp.network import GcpNetwork
from gpufabric.clouds.gcp.settings import GcpStackConfig
from gpufabric.clouds.gcp.storage import NFS_OPTIONS, build_storage
from gpufabric.config.model import NoStorage
from gpufabric.errors import UserError
from gpufabric.plan import Plan, run_plan, runner
from gpufabric.plan.mocks import CapturingMonitor, RecordingMocks

MEGA = "gcp-a3-mega"
LUSTRE = "gcp:lustre/instance:Instance"
PARALLELSTORE = "gcp:parallelstore/instance:Instance"
FILESTORE = "gcp:filestore/instance:Instance"
PSA = "gcp:servicenetworking/connection:Connection"
CLUSTER = "gpufabric:gcp:Cluster"
LABELS = {"gpufabric-cluster": MEGA, "gpufabric-stack": MEGA}
PARALLEL = {
    "type": "parallelstore",
    "capacityGib": 16000,
    "deploymentType": "PERSISTENT",
    "mountPoint": "/mnt/daos",
}
NFS = {
    "type": "filestore",
    "tier": "HIGH_SCALE_SSD",
    "capacityGib": 12800,
    "shareName": "ckpt",
    "mountPoint": "/mnt/ckpt",
}


def _storage(doc: dict[str, object]) -> str:
    return "gpufabric:storage=" + json.dumps(doc)


@dataclass
class Registered:
    """Each registered resource's URN -> (type, name, parent URN, explicit dependencies)."""

    nodes: dict[str, tuple[str, str, str, list[str]]] = field(default_factory=dict)

    def one(self, token: str) -> tuple[str, str, list[str]]:
        """The one resource of `token`: its name, its parent's type and its dependencies' types."""
        ((name, parent, deps),) = [(n, p, d) for t, n, p, d in self.nodes.values() if t == token]
        return name, self.nodes[parent][0], [self.nodes[urn][0] for urn in deps]


def registered(
    monkeypatch: pytest.MonkeyPatch, *overrides: str, mocks: type[RecordingMocks] = RecordingMocks
) -> tuple[Plan, Registered]:
    seen = Registered()

    class Monitor(CapturingMonitor):
        def RegisterResource(self, request):
            response = super().RegisterResource(request)
            seen.nodes[response.urn] = (
                request.type,
                request.name,
                request.parent,
                list(request.dependencies),
            )
            return response

    monkeypatch.setattr(runner, "CapturingMonitor", Monitor)
    return run_plan(REPO, MEGA, list(overrides), make_mocks=mocks), seen


@pytest.mark.parametrize(
    ("storage", "token"),
    [(None, LUSTRE), (PARALLEL, PARALLELSTORE), (NFS, FILESTORE)],
)
def test_each_service_waits_for_the_peering_under_the_cluster(
    monkeypatch: pytest.MonkeyPatch, storage: dict[str, object] | None, token: str
) -> None:
    overrides = [] if storage is None else [_storage(storage)]
    _, seen = registered(monkeypatch, *overrides)
    name, parent, deps = seen.one(token)
    assert name.startswith(f"{MEGA}-")
    assert parent == CLUSTER
    assert PSA in deps  # created before the peering exists, the instance has no route in


def test_parallelstore_resource_and_mount_output() -> None:
    plan = plan_for(MEGA, _storage(PARALLEL))
    (store,) = plan.of_type(PARALLELSTORE)
    assert store.name == f"{MEGA}-parallelstore"
    assert store.inputs == {
        "capacityGib": "16000",
        "deploymentType": "PERSISTENT",
        "description": f"gpufabric {MEGA}: Parallelstore in us-central1-a",
        "instanceId": f"{MEGA}-parallelstore",
        "labels": LABELS,
        "location": "us-central1-a",
        "network": f"{MEGA}-host-0",
        "project": "my-gpu-project",
        "reservedIpRange": f"{MEGA}-storage-range",
    }
    assert plan.outputs["storage"] == {
        "type": "parallelstore",
        "dnsName": "10.0.32.2,10.0.32.3,10.0.32.4",  # every access point, in the cloud's order
        "mountName": "default-pool/default-container",
        "mountPoint": "/mnt/daos",
        "zone": "us-central1-a",
        "mountCommand": "dfuse -m /mnt/daos --pool default-pool --container default-container "
        "--multi-user",
    }


def test_filestore_resource_and_mount_output() -> None:
    plan = plan_for(MEGA, _storage(NFS))
    (store,) = plan.of_type(FILESTORE)
    assert store.name == f"{MEGA}-filestore"
    assert store.inputs == {
        "description": f"gpufabric {MEGA}: Filestore HIGH_SCALE_SSD in us-central1-a",
        "fileShares": {"capacityGb": 12800, "name": "ckpt"},
        "labels": LABELS,
        "location": "us-central1-a",
        "name": f"{MEGA}-filestore",
        "networks": [
            {
                "connectMode": "PRIVATE_SERVICE_ACCESS",
                "modes": ["MODE_IPV4"],
                "network": f"{MEGA}-host-0",
                "reservedIpRange": f"{MEGA}-storage-range",
            }
        ],
        "project": "my-gpu-project",
        "tier": "HIGH_SCALE_SSD",
    }
    assert NFS_OPTIONS == "hard,timeo=600,retrans=3,rsize=1048576,wsize=1048576,resvport"
    assert plan.outputs["storage"] == {
        "type": "filestore",
        "dnsName": "10.0.32.2",
        "mountName": "ckpt",
        "mountPoint": "/mnt/ckpt",
        "zone": "us-central1-a",
        "mountCommand": f"mount -t nfs -o {NFS_OPTIONS} 10.0.32.2:/ckpt /mnt/ckpt",
    }


def test_managed_lustre_output_names_its_own_file_system_and_mount_point() -> None:
    doc: dict[str, object] = {
        "type": "managed-lustre",
        "filesystem": "scratch",
        "mountPoint": "/mnt/scratch",
    }
    plan = plan_for(MEGA, _storage(doc))
    (lustre,) = plan.of_type(LUSTRE)
    assert lustre.inputs["filesystem"] == "scratch"
    assert plan.outputs["storage"] == {
        "type": "managed-lustre",
        "dnsName": "10.0.32.2",  # the address of the service's mount point, without @tcp:/fs
        "mountName": "scratch",
        "mountPoint": "/mnt/scratch",
        "zone": "us-central1-a",
        "mountCommand": "mount -t lustre 10.0.32.2@tcp:/scratch /mnt/scratch",
    }


def _filestore_answering(networks: list[dict[str, Any]] | None) -> type[RecordingMocks]:
    """A fake cloud whose Filestore instance reports `networks` (None: no address in each)."""

    class Answer(RecordingMocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
            rid, out = super().new_resource(args)
            if args.typ == FILESTORE:
                if networks is None:
                    out["networks"] = [{**n, "ipAddresses": []} for n in out["networks"]]
                else:
                    out["networks"] = networks
            return rid, out

    return Answer


@pytest.mark.parametrize("networks", [None, []], ids=["no-address", "no-network"])
def test_filestore_without_an_address_yet_names_none(
    monkeypatch: pytest.MonkeyPatch, networks: list[dict[str, Any]] | None
) -> None:
    plan, _ = registered(monkeypatch, _storage(NFS), mocks=_filestore_answering(networks))
    storage = plan.outputs["storage"]
    assert storage["dnsName"] == ""
    assert storage["mountCommand"] == f"mount -t nfs -o {NFS_OPTIONS} :/ckpt /mnt/ckpt"


def test_a_storage_type_of_another_cloud_is_refused_by_the_builder() -> None:
    base = plan_for(MEGA).config
    assert isinstance(base, GcpStackConfig)
    cfg = base.model_copy(update={"storage": NoStorage(type="none")})
    peering = object.__new__(pulumi.CustomResource)  # a resource never registered: no runtime
    net = cast(GcpNetwork, type("Net", (), {"psa": peering})())
    with pytest.raises(ValueError) as err:
        build_storage(cfg, net, {}, cast(pulumi.Resource, None))
    assert str(err.value) == "GcpClusterArgs.config.storage: none is not a GCP storage type"


def _answering(token: str, **answer: object) -> type[RecordingMocks]:
    """A fake cloud whose `token` instance answers `answer` for its computed outputs."""

    class Answer(RecordingMocks):
        def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict]:
            rid, out = super().new_resource(args)
            return rid, ({**out, **answer} if args.typ == token else out)

    return Answer


@pytest.mark.parametrize(
    ("storage", "mocks", "line"),
    [
        (
            None,
            _answering(LUSTRE, mountPoint="10.0.32.2@tcp:/lustre\nreboot"),
            "storage.mountCommand: word 4 '10.0.32.2@tcp:/lustre\\nreboot' "
            "holds the control character '\\n'",
        ),
        (
            NFS,
            _filestore_answering([{"ipAddresses": ["10.0.32.2\n"]}]),
            "storage.mountCommand: word 6 '10.0.32.2\\n:/ckpt' holds the control character '\\n'",
        ),
    ],
    ids=["managed-lustre", "filestore"],
)
def test_a_cloud_answer_the_mount_command_cannot_hold_is_one_line_naming_it(
    storage: dict[str, object] | None, mocks: type[RecordingMocks], line: str
) -> None:
    overrides = [] if storage is None else [_storage(storage)]
    with pytest.raises(UserError) as err:
        run_plan(REPO, MEGA, overrides, make_mocks=mocks)
    assert str(err.value) == line


def test_managed_lustre_answering_a_failover_pair_names_the_first_mgs() -> None:
    pair = "10.0.32.2@tcp:10.0.32.3@tcp:/lustre"  # Lustre's mgsnid[:mgsnid]:/fsname
    plan = run_plan(REPO, MEGA, [], make_mocks=_answering(LUSTRE, mountPoint=pair))
    assert plan.outputs["storage"]["dnsName"] == "10.0.32.2"
    assert plan.outputs["storage"]["mountCommand"] == f"mount -t lustre {pair} /lustre"
