"""Turn a stack's raw config (namespaced keys) into a validated StackConfig.

One entry point for both `gpufabric plan` (stack file + -c overrides) and the Pulumi program
(pulumi.Config), so a bad value reads the same in both.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from gpufabric.catalog import catalog, lookup
from gpufabric.clouds import registry
from gpufabric.clouds.spec import CloudSpec
from gpufabric.config.model import StackConfig
from gpufabric.config.stack_reader import load_stack_file
from gpufabric.config.storage_goal import with_storage_goal
from gpufabric.config.validate import check, region_keys
from gpufabric.errors import ConfigError, MissingConfigError, UserError
from gpufabric.inputs.formats import parse_json_or_text
from gpufabric.inputs.types import article, digits

NAMESPACE = "gpufabric"


def known_keys() -> list[str]:
    """Every `gpufabric:` key: the common ones and each registered cloud's section."""
    common = {
        field.alias or name
        for name, field in StackConfig.model_fields.items()
        if name not in ("stack", "region")
    }
    return sorted(common | set(registry.names()))


class _Hidden:
    """Stands for a secret config value in error messages."""

    def __repr__(self) -> str:
        return "[secret]"


def secret_values(raw: Mapping[str, Any], secret_keys: Collection[str]) -> list[str]:
    """Every scalar inside the values of the secret keys, as text (longest first)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for item in node.values():
                walk(item)
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item)
        elif node is not None and str(node) != "":
            found.append(str(node))

    for key in secret_keys:
        if key in raw:
            walk(raw[key])
    return sorted(set(found), key=len, reverse=True)


def scrub(text: str, secrets: Collection[str]) -> str:
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value, "[secret]")
    return text


def parse(raw: Mapping[str, Any], stack: str, secret_keys: Collection[str] = ()) -> StackConfig:
    """Validate `raw` ({"gpufabric:nodes": 16, "<provider>:region": "...", ...}).

    Values of `secret_keys` never appear in an error: the value reads "[secret]"."""
    try:
        return _parse(raw, stack)
    except MissingConfigError:
        raise
    except ConfigError as exc:
        secrets = secret_values(raw, secret_keys)
        if not secrets:
            raise
        hidden = exc.key.split(".")[0] in secret_keys or str(exc.value) in secrets
        error = ConfigError(exc.key, _Hidden() if hidden else exc.value, exc.allowed)
        error.args = (scrub(str(error), secrets),)
        error.allowed = scrub(exc.allowed, secrets)
        raise error from None
    except UserError as exc:
        secrets = secret_values(raw, secret_keys)
        if not secrets or scrub(str(exc), secrets) == str(exc):
            raise
        raise UserError(scrub(str(exc), secrets)) from None


def _parse(raw: Mapping[str, Any], stack: str) -> StackConfig:
    values: dict[str, Any] = {"stack": stack}
    known = known_keys()
    for full_key, value in raw.items():
        namespace, _, key = full_key.partition(":")
        if namespace != NAMESPACE:
            continue
        if key not in known:
            near = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean '{NAMESPACE}:{near[0]}'? " if near else ""
            raise ConfigError(full_key, value, f"{hint}unknown key; known keys: {', '.join(known)}")
        values[key] = value
    values["region"] = _region(raw)
    model, cloud = _model(values)
    try:
        cfg = model.model_validate(values)
    except ValidationError as exc:
        raise _one_line(exc, values, model, cloud) from None
    if cloud is not None:
        _same_as_provider(cfg, cloud, raw)
    cfg._instance = lookup(cfg.instance_type)  # the one catalog look-up; cfg.instance from here
    cfg = with_storage_goal(cfg)  # a copy keeps it
    check(cfg)
    return cfg


def _model(values: dict[str, Any]) -> tuple[type[StackConfig], CloudSpec | None]:
    """The config model of the instance type's cloud (its package's settings.CONFIG). Another
    cloud's section is refused here: it is not a key of that model. A missing or misspelt type
    is validated with the common keys alone, so their errors come first, then the
    did-you-mean of the catalog look-up. Returns the model and its cloud (None: common keys)."""
    name = values.get("instanceType")
    entry = catalog().get(name) if isinstance(name, str) else None
    if entry is None:
        for section in (*registry.names(), "storage"):
            values.pop(section, None)
        return StackConfig, None
    for cloud in sorted(registry.names()):
        if cloud != entry.cloud and cloud in values:
            display = registry.get(entry.cloud).display_name
            raise ConfigError(
                f"{NAMESPACE}:{cloud}",
                "(set)",
                f"{cloud}-only settings; this is {article(display)} stack ({entry.name}): "
                f"remove the section, use {NAMESPACE}:{entry.cloud}",
            )
    return registry.module(entry.cloud, "settings").CONFIG, registry.get(entry.cloud)


def _region(raw: Mapping[str, Any]) -> str:
    keys = region_keys()
    for key in keys.values():
        if raw.get(key):
            return str(raw[key])
    cloud = _cloud(raw)
    if cloud is not None and cloud.region_key is None:  # the zone is the region
        zone = raw.get(f"{NAMESPACE}:zone")
        if not zone:
            raise ConfigError(
                f"{NAMESPACE}:zone", zone, f"required on {cloud.display_name}: {cloud.region_hint}"
            )
        return str(zone)
    if f"{NAMESPACE}:instanceType" in raw:  # a misspelt type says so first (did you mean)
        lookup(str(raw[f"{NAMESPACE}:instanceType"]))
    zoned = [s.display_name for s in registry.specs() if s.region_key is None]
    raise ConfigError(
        next(iter(keys.values())),
        None,
        f"set the provider region ({', '.join(keys.values())}"
        + "".join(f"; on {name} {NAMESPACE}:zone names the region" for name in zoned)
        + ")",
    )


def _same_as_provider(cfg: StackConfig, cloud: CloudSpec, raw: Mapping[str, Any]) -> None:
    """A cloud setting that repeats a provider config key holds the same value."""
    section = getattr(cfg, cloud.name)
    for field, provider_key in cloud.provider_settings:
        ours, theirs = getattr(section, field), raw.get(provider_key)
        if theirs not in (None, "") and str(theirs) != ours:
            raise ConfigError(
                f"{NAMESPACE}:{cloud.name}.{field}",
                ours,
                f"it must match {provider_key} {str(theirs)!r} (the provider's {field})",
            )


def _cloud(raw: Mapping[str, Any]) -> CloudSpec | None:
    """The cloud of the instance type the raw config names, where the catalog knows it."""
    entry = catalog().get(str(raw.get(f"{NAMESPACE}:instanceType", "")))
    return registry.get(entry.cloud) if entry is not None else None


def _one_line(
    exc: ValidationError,
    values: Mapping[str, Any],
    model: type[StackConfig],
    cloud: CloudSpec | None,
) -> ConfigError:
    """The first pydantic error as 'gpufabric:<path>: <value> ...; <what is allowed>'."""
    err = exc.errors(include_url=False)[0]
    loc = [str(part) for part in err["loc"]]
    # the storage union adds its tag ('fsx-lustre', 'managed-lustre', ...) to the location
    if loc[:1] == ["storage"] and len(loc) > 1:
        del loc[1]
    if err["type"] in ("union_tag_invalid", "union_tag_not_found"):
        loc.append("type")
    key = f"{NAMESPACE}:{'.'.join(loc)}" if loc else f"{NAMESPACE}:(stack)"
    value: Any = _lookup(values, loc)
    if err["type"] == "missing":
        description = _description(model, loc)
        return MissingConfigError(key, f"required: {description}" if description else "required")
    if err["type"] == "union_tag_invalid" and cloud is not None:
        tags = re.findall(r"'([^']+)'", str(err.get("ctx", {}).get("expected_tags", "")))
        allowed = f"{', '.join(tags[:-1])} or {tags[-1]}" if len(tags) > 1 else "".join(tags)
        return ConfigError(key, value, f"on {cloud.display_name} use {allowed}")
    message = str(err["msg"])
    message = message.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if message[1:2].islower():
        message = message[:1].lower() + message[1:]
    return ConfigError(key, value, message)


def _description(model: type[BaseModel], loc: list[str]) -> str:
    """The description of the field at `loc` (names or aliases), through nested sections."""
    current: Any = model
    description = ""
    for part in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return ""
        field = current.model_fields.get(part) or next(
            (f for f in current.model_fields.values() if f.alias == part), None
        )
        if field is None:
            return ""
        description, current = field.description or "", field.annotation
    return description


def _lookup(values: Mapping[str, Any], loc: list[str]) -> Any:
    node: Any = values
    for part in loc:
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and digits(part) and int(part) < len(node):
            node = node[int(part)]
        else:
            return node if node is not values else None
    return node


def from_pulumi(stacks_dir: Path | None = None) -> StackConfig:
    """Read the running Pulumi program's config (all namespaces) and validate it.

    With `stacks_dir`, the stack's file there goes through the same strict reader as
    `gpufabric plan` first (duplicate keys, unknown sections, ...), which Pulumi itself lets by."""
    import pulumi

    if stacks_dir is not None:
        path = stacks_dir / f"Pulumi.{pulumi.get_stack()}.yaml"
        if path.is_file():
            load_stack_file(path, NAMESPACE)
    raw = _raw_pulumi_config()
    return parse(raw, pulumi.get_stack(), secret_config_keys())


def _raw_pulumi_config() -> dict[str, Any]:
    from pulumi.runtime import config as runtime_config

    merged = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    return {key: _decode(key, text) for key, text in merged.items()}


def secret_config_keys() -> list[str]:
    """The running program's config keys that Pulumi holds as secrets."""
    from pulumi.runtime import config as runtime_config

    keys = set(runtime_config.get_config_secret_keys_env())
    return sorted(
        k for k in _raw_pulumi_config() if k in keys or runtime_config.is_config_secret(k)
    )


def secret_config_value_texts() -> list[str]:
    """The texts of the running program's secret config values (to keep outputs secret)."""
    return secret_values(_raw_pulumi_config(), secret_config_keys())


def _decode(key: str, text: str) -> Any:
    """Pulumi passes structured and numeric values as JSON text."""
    if not isinstance(text, str):
        return text
    return parse_json_or_text(text, where=key)
