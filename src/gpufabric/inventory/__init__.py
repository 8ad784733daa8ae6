"""Dynamic Ansible inventory from Pulumi stack outputs (`pulumi stack output --json`).

`outputs.load` reads and validates the outputs; `aws.discover` finds a group's nodes with
EC2 (describe_instances with the outputs' discovery filters) and their leaf switch
(describe_instance_topology); `build.inventory` turns it into Ansible's JSON inventory with
the cluster switches `gpufabric_*` as group variables.
"""
