"""Saved cloud CLI output for test nodes, in the shapes the clouds' CLIs print.

Shapes (fields beyond the ones discovery reads are kept, as the CLIs print them):
- `aws ec2 describe-instances --output json`: the EC2 DescribeInstances response
  (botocore service model ec2/2016-11-15: Reservations[].Instances[] with InstanceId, State
  {Code, Name}, PrivateIpAddress, PrivateDnsName, Tags [{Key, Value}], Placement ...); EC2
  tags an Auto Scaling group's instances with `aws:autoscaling:groupName`.
- `gcloud compute instances list --format=json`: a list of Compute Engine Instance resources
  (REST v1, camelCase: name, id, zone URL, machineType URL, status, networkInterfaces[].networkIP,
  metadata.items [{key, value}] with `created-by` = projects/NUMBER/zones/ZONE/
  instanceGroupManagers/NAME for managed instance group members, resourceStatus).
- `az vmss nic list -o json`: a list of NetworkInterface objects as az prints them (flattened
  properties: ipConfigurations[].privateIPAddress, primary, virtualMachine.id =
  .../virtualMachineScaleSets/NAME/virtualMachines/N, provisioningState).
"""

from __future__ import annotations

from typing import Any

PROJECT_NUMBER = "123456789012"
SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"


def aws_instance(
    iid: str,
    ip: str,
    *,
    asg: str = "",
    state: str = "running",
    itype: str = "p5.48xlarge",
    zone: str = "us-east-1a",
) -> dict[str, Any]:
    codes = {"pending": 0, "running": 16, "stopping": 64, "stopped": 80, "terminated": 48}
    tags = [{"Key": "gpufabric:role", "Value": "gpu-node"}]
    if asg:
        tags.append({"Key": "aws:autoscaling:groupName", "Value": asg})
    inst: dict[str, Any] = {
        "AmiLaunchIndex": 0,
        "ImageId": "ami-0123456789abcdef0",
        "InstanceId": iid,
        "InstanceType": itype,
        "LaunchTime": "2026-11-30T10:00:00+00:00",
        "Monitoring": {"State": "disabled"},
        "Placement": {"AvailabilityZone": zone, "GroupName": "pg", "Tenancy": "default"},
        "PrivateDnsName": f"ip-{ip.replace('.', '-')}.ec2.internal" if ip else "",
        "ProductCodes": [],
        "PublicDnsName": "",
        "State": {"Code": codes[state], "Name": state},
        "SubnetId": "subnet-0123456789abcdef0",
        "VpcId": "vpc-0123456789abcdef0",
        "Architecture": "x86_64",
        "Tags": tags,
    }
    if ip:
        inst["PrivateIpAddress"] = ip
    return inst


def aws_describe_instances(*instances: dict[str, Any]) -> dict[str, Any]:
    return {
        "Reservations": [
            {
                "Groups": [],
                "Instances": [inst],
                "OwnerId": "123456789012",
                "ReservationId": f"r-{inst['InstanceId'][2:]}",
            }
            for inst in instances
        ]
    }


def gcp_instance(
    name: str,
    ip: str,
    *,
    zone: str,
    project: str,
    mig: str = "",
    status: str = "RUNNING",
    machine: str = "a3-megagpu-8g",
    topology: dict[str, str] | None = None,
    number: int = 1,
) -> dict[str, Any]:
    base = f"https://www.googleapis.com/compute/v1/projects/{project}"
    items = [{"key": "enable-oslogin", "value": "TRUE"}]
    if mig:
        items += [
            {
                "key": "instance-template",
                "value": f"projects/{PROJECT_NUMBER}/global/instanceTemplates/{mig}-t",
            },
            {
                "key": "created-by",
                "value": f"projects/{PROJECT_NUMBER}/zones/{zone}/instanceGroupManagers/{mig}",
            },
        ]
    nic0: dict[str, Any] = {
        "kind": "compute#networkInterface",
        "name": "nic0",
        "network": f"{base}/global/networks/host-0",
        "nicType": "GVNIC",
        "stackType": "IPV4_ONLY",
        "subnetwork": f"{base}/regions/r/subnetworks/host-0",
    }
    if ip:
        nic0["networkIP"] = ip
    inst: dict[str, Any] = {
        "kind": "compute#instance",
        "id": str(7000000000000000000 + number),
        "name": name,
        "creationTimestamp": "2026-11-30T02:00:00.000-08:00",
        "cpuPlatform": "Intel Sapphire Rapids",
        "machineType": f"{base}/zones/{zone}/machineTypes/{machine}",
        "metadata": {"fingerprint": "abc=", "items": items, "kind": "compute#metadata"},
        "networkInterfaces": [nic0],
        "scheduling": {
            "automaticRestart": True,
            "onHostMaintenance": "TERMINATE",
            "provisioningModel": "STANDARD",
        },
        "selfLink": f"{base}/zones/{zone}/instances/{name}",
        "status": status,
        "zone": f"{base}/zones/{zone}",
    }
    if topology:
        inst["resourceStatus"] = {"physicalHostTopology": topology}
    return inst


def azure_nic(rg: str, vmss: str, index: int, ip: str) -> dict[str, Any]:
    prefix = f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{rg}/providers"
    vm = f"{prefix}/Microsoft.Compute/virtualMachineScaleSets/{vmss}/virtualMachines/{index}"
    config: dict[str, Any] = {
        "id": f"{vm}/networkInterfaces/{vmss}-nic/ipConfigurations/{vmss}-ip",
        "name": f"{vmss}-ip",
        "primary": True,
        "privateIPAddressVersion": "IPv4",
        "privateIPAllocationMethod": "Dynamic",
        "provisioningState": "Succeeded",
        "resourceGroup": rg,
        "subnet": {
            "id": f"{prefix}/Microsoft.Network/virtualNetworks/v/subnets/compute",
            "resourceGroup": rg,
        },
    }
    if ip:
        config["privateIPAddress"] = ip
    return {
        "dnsSettings": {"appliedDnsServers": [], "dnsServers": []},
        "enableAcceleratedNetworking": True,
        "enableIPForwarding": False,
        "id": f"{vm}/networkInterfaces/{vmss}-nic",
        "ipConfigurations": [config],
        "macAddress": "00-0D-3A-00-00-0" + str(index % 10),
        "name": f"{vmss}-nic",
        "primary": True,
        "provisioningState": "Succeeded",
        "resourceGroup": rg,
        "virtualMachine": {"id": vm, "resourceGroup": rg},
    }


# OCI CLI (JSON, kebab-case keys, the response body under "data"):
# - `oci compute-management instance-pool list-instances`: InstanceSummary (id, display-name,
#   state, availability-domain, compartment-id, fault-domain, instance-configuration-id,
#   load-balancer-backends, region, shape, time-created);
# - `oci compute vnic-attachment list`: VnicAttachment (id, instance-id, vnic-id, nic-index,
#   lifecycle-state, availability-domain, compartment-id, subnet-id, display-name, time-created,
#   vlan-tag);
# - `oci network vnic get`: Vnic (id, private-ip, is-primary, hostname-label, mac-address,
#   lifecycle-state, subnet-id, public-ip, ...).
# the compartment of the oci-h100 stack (stacks/Pulumi.oci-h100.yaml)
OCI_COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaareplacewithyourcompartment"


def oci_pool_instance(iid: str, name: str, *, zone: str, state: str = "Running") -> dict[str, Any]:
    return {
        "availability-domain": zone,
        "compartment-id": OCI_COMPARTMENT,
        "display-name": name,
        "fault-domain": "FAULT-DOMAIN-1",
        "id": iid,
        "instance-configuration-id": "ocid1.instanceconfiguration.oc1.iad.aaaa",
        "load-balancer-backends": [],
        "region": "iad",
        "shape": "BM.GPU.H100.8",
        "state": state,
        "time-created": "2026-11-30T10:00:00.000000+00:00",
    }


def oci_vnic_attachment(
    iid: str, vnic: str, *, zone: str, nic_index: int = 0, state: str = "ATTACHED"
) -> dict[str, Any]:
    return {
        "availability-domain": zone,
        "compartment-id": OCI_COMPARTMENT,
        "display-name": None,
        "id": f"ocid1.vnicattachment.oc1.iad.{vnic[-8:]}",
        "instance-id": iid,
        "lifecycle-state": state,
        "nic-index": nic_index,
        "subnet-id": "ocid1.subnet.oc1.iad.aaaa",
        "time-created": "2026-11-30T10:00:00+00:00",
        "vlan-id": None,
        "vlan-tag": 0,
        "vnic-id": vnic,
    }


def oci_vnic(vnic: str, ip: str, *, primary: bool = True) -> dict[str, Any]:
    return {
        "data": {
            "availability-domain": "Uocm:US-ASHBURN-AD-1",
            "compartment-id": OCI_COMPARTMENT,
            "hostname-label": None,
            "id": vnic,
            "is-primary": primary,
            "lifecycle-state": "AVAILABLE",
            "mac-address": "02:00:17:00:00:01",
            "private-ip": ip,
            "public-ip": None,
            "skip-source-dest-check": False,
            "subnet-id": "ocid1.subnet.oc1.iad.aaaa",
            "time-created": "2026-11-30T10:00:00+00:00",
        }
    }


# `nebius compute instance list --format json`: {"items": [Instance]} (metadata, spec, status;
# snake_case as the proto JSON names them)
def nebius_instance(
    name: str,
    ip: str,
    *,
    project: str,
    gpu_cluster: str | None,
    state: str = "RUNNING",
    path: list[str] | None = None,
) -> dict[str, Any]:
    status: dict[str, Any] = {
        "state": state,
        "network_interfaces": [
            {
                "name": "eth0",
                "ip_address": {"address": f"{ip}/32"},
                "mac_address": "02:00:00:00:00:01",
            }
        ]
        if ip
        else [],
        "reconciling": False,
    }
    if path:
        status["infiniband_topology_path"] = {"path": path}
    spec: dict[str, Any] = {
        "resources": {"platform": "gpu-h100-sxm", "preset": "8gpu-128vcpu-1600gb"},
        "recovery_policy": "RECOVER",
    }
    if gpu_cluster:
        spec["gpu_cluster"] = {"id": gpu_cluster}
    return {
        "metadata": {
            "id": f"computeinstance-{name}",
            "parent_id": project,
            "name": name,
            "labels": {},
            "resource_version": 1,
        },
        "spec": spec,
        "status": status,
    }
