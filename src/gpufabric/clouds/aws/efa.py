"""EFA wiring of one node: which interface goes on which network card, from the catalog.

Pure data (no Pulumi), so the layout is tested on its own. Rules (docs/sources.md A.2):
one EFA per network card; card 0 / device 0 is the primary interface and cannot be efa-only.

Layouts:
- efa-primary (AWS "P5 use case 1", [P]): card 0 / device 0 is `efa` (EFA + ENA, the node's one
  IP); every other card carries one `efa-only` at device 0. One EFA device per card.
- ena-primary (current AWS guide): card 0 / device 0 is a plain ENA `interface`, card 0 /
  device 1 is `efa-only`, and every other card carries one `efa-only` at device 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpufabric.catalog import InstanceType
from gpufabric.clouds.aws import facts

InterfaceType = Literal["interface", "efa", "efa-only"]


@dataclass(frozen=True)
class NicSlot:
    network_card_index: int
    device_index: int
    interface_type: InterfaceType

    @property
    def is_primary(self) -> bool:
        return self.network_card_index == 0 and self.device_index == 0

    @property
    def has_efa(self) -> bool:
        return self.interface_type in ("efa", "efa-only")


def nic_layout(itype: InstanceType, layout: Literal["efa-primary", "ena-primary"]) -> list[NicSlot]:
    """Every network interface of one node, in launch-template order."""
    if not isinstance(itype.wiring, facts.AwsFacts):
        raise ValueError(f"{itype.name} is not an AWS instance type")
    aws = itype.wiring
    cards = aws.network_cards
    if aws.efa_devices != cards:
        raise ValueError(
            f"{itype.name}: {aws.efa_devices} EFA devices on {cards} cards; "
            "this layout assumes one EFA per card"
        )
    if layout == "efa-primary":
        slots = [NicSlot(0, 0, "efa")]
    else:
        slots = [NicSlot(0, 0, "interface"), NicSlot(0, 1, "efa-only")]
    slots += [NicSlot(card, 0, "efa-only") for card in range(1, cards)]
    return slots
