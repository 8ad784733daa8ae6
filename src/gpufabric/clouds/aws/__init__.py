"""AWS: EFA clusters (p4d, p4de, p5, p5e, p5en, p6-b200) with FSx for Lustre."""

from gpufabric.clouds.spec import CloudSpec, LabelScheme

CLOUD = CloudSpec(
    name="aws",
    display_name="AWS",
    extra="aws",
    extra_modules=("pulumi_aws", "boto3"),
    pulumi_sdk="pulumi_aws",
    type_prefix="aws",
    region_key="aws:region",
    discovery_input="`aws ec2 describe-instances --output json`",
    capacity_targets=True,
    topology_source="aws",
    boot_store="S3",
    capacity_groups=True,
    topology_input="`aws ec2 describe-instance-topology` output (JSON)",
    label_schemes=(
        LabelScheme(
            name="eks",
            key="topology.k8s.aws/network-node-layer-{n}",
            citation="the labels EKS itself puts on nodes (docs.aws.amazon.com/eks/latest/"
            "userguide/ml-workload-topology.html: layer-1 the top, layer-4 only on 4-layer types)",
        ),
    ),
    nvlink_domain_field="CapacityBlockId",
)
