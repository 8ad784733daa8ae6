"""Stack configuration: parsed once into a typed, validated model and passed down."""

from gpufabric.config.load import from_pulumi, parse
from gpufabric.config.model import StackConfig

__all__ = ["StackConfig", "from_pulumi", "parse"]
