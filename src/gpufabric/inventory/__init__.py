"""Dynamic Ansible inventory from Pulumi stack outputs (`pulumi stack output --json`).

`outputs.load` reads and validates the outputs; gpufabric.discovery finds the groups' nodes
through the cloud's own package (live, or from its CLI's saved JSON) and, where the cloud says,
their leaf switch; `build.inventory` turns them into Ansible's JSON inventory with the cluster
switches `gpufabric_*` as group variables.
"""
