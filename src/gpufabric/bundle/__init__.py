"""First boot is local: a configuration bundle per stack, and the node user data that runs it.

render    the versioned, content-hashed bundle (roles, playbooks, each node group's variables)
userdata  the cloud-config that fetches it, checks its sha256 and runs `ansible-playbook -c local`
boot      the script that does so on the node (standard library only) and leaves a result file
status    reading that result file
"""
