"""Capacity by network position: where reserved capacity sits before launch, and the choice.

Cloud-agnostic: `model` holds what a reader hands over (units of capacity the stack config can
name, each on one network leaf, with its free hosts and health); `choose` picks the set of units
that holds the nodes on the fewest leaves. Each cloud's reader lives in
`gpufabric.clouds.<cloud>.capacity`.
"""
