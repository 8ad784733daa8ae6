"""Parsers for the fabric tools' real output, one short module per tool.

Each parser takes the text (or JSON) a tool prints and returns typed, frozen dataclasses;
`host.summarize` combines them into the one fact the Ansible roles use (`gpufabric_facts`),
and `decisions` holds the role decisions taken from it (run EFA? DOCA-OFED? hugepages?).
`gpg` reads gpg's key listing to check a vendor's repository key by fingerprint. Nothing here
runs a tool: the roles gather the output on the node, the library parses it on
the controller (through the `gpufabric` filter plugin).
"""
