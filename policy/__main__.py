"""The gpufabric policy pack: `pulumi preview --policy-pack policy` (or `pulumi policy publish`).

Only constructs the pack: PolicyPack(...) serves gRPC to the Pulumi CLI and never returns.
The policies live in gpufabric.policies, importable and tested offline (tests/policy/).
"""

from pulumi_policy import EnforcementLevel, PolicyPack

from gpufabric.policies.pack import PACK_NAME, pack_policies

PolicyPack(
    name=PACK_NAME,
    policies=pack_policies(),
    enforcement_level=EnforcementLevel.MANDATORY,
)
