"""The clouds' registry: the clouds GPUFABRIC_CLOUDS adds (name=package, comma separated),
its refusals, and the lines naming an unknown cloud."""

from __future__ import annotations

import pytest

from gpufabric.clouds import registry
from gpufabric.errors import UserError

BUILT_IN = "aws, gcp, azure, oci, nebius"


def test_gpufabric_clouds_adds_each_name_package_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUFABRIC_CLOUDS", " sixth = pkg.sixth , seventh=pkg.seventh=x ,")
    found = registry.packages()
    assert list(found) == ["aws", "gcp", "azure", "oci", "nebius", "sixth", "seventh"]
    # the name ends at the first '='
    assert (found["sixth"], found["seventh"]) == ("pkg.sixth", "pkg.seventh=x")


@pytest.mark.parametrize("entry", ["sixth", "=pkg.sixth", "sixth=", " = "])
def test_an_entry_that_is_not_name_equals_package_is_refused(
    monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    monkeypatch.setenv("GPUFABRIC_CLOUDS", f"other=pkg.other,{entry}")
    with pytest.raises(UserError) as err:
        registry.packages()
    assert str(err.value) == f"GPUFABRIC_CLOUDS: {entry.strip()!r} is not name=package"


def test_an_unknown_cloud_is_named_beside_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPUFABRIC_CLOUDS", raising=False)
    with pytest.raises(UserError) as err:
        registry.module("nope", "settings")
    assert str(err.value) == f"cloud 'nope' is not registered; known clouds: {BUILT_IN}"
    with pytest.raises(ValueError) as bad:
        registry.known("nope")
    assert str(bad.value) == f"'nope' is not a known cloud; known: {BUILT_IN}"
    assert registry.known("oci") == "oci"


def test_a_type_token_names_its_cloud_by_its_package_prefix_or_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GPUFABRIC_CLOUDS", raising=False)
    spec = registry.for_type("aws:ec2/instance:Instance")
    assert spec is not None and spec.name == "aws"
    assert registry.for_type("pulumi:pulumi:Stack") is None
    assert registry.for_type("random:index/randomId:RandomId") is None
