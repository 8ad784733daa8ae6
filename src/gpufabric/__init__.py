"""gpufabric: GPU training clusters whose network is fast by construction."""

__version__ = "0.1.0"
