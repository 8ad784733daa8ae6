"""Constrained types for values that enter from outside: files, cloud answers, node reports.

Each type is a pydantic `Annotated` string whose refusal is one line saying what is allowed.
Use them as model fields, or check one value with `check(Type, value, where)`, which raises a
UserError naming `where` and the value. Cloud id formats live with their cloud
(`gpufabric.clouds.<cloud>.ids`); the network membership of an address with `inside`.

Sources of the rules:
- IPv4 addresses: dotted quad, four decimal octets 0-255, no leading zeros (Python's
  `ipaddress`, which follows inet_pton);
- host names: RFC 1123 section 2.1 (labels of letters, digits and '-', 1-63 characters, not
  starting or ending with '-', at most 253 in all), ASCII only;
- Slurm node and switch names: SchedMD/slurm src/common/hostlist.c (',' and whitespace separate
  names, '[' starts a range, MAXHOSTNAMELEN 64) and src/common/parse_config.c ('#' starts a
  comment, '\\' escapes, '"' quotes, a newline ends the line);
- Kubernetes label keys and values: k8s.io/apimachinery pkg/util/validation/validation.go
  (IsQualifiedName: an optional DNS-1123 subdomain prefix of at most 253 characters, '/', a
  name of at most 63 matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]; IsValidLabelValue:
  the same pattern, at most 63, or empty).
"""

from __future__ import annotations

import ipaddress
import posixpath
import re
from collections.abc import Iterable
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BeforeValidator, TypeAdapter, ValidationError

from gpufabric.errors import UserError

T = TypeVar("T")


def _string(value: Any) -> str:
    """Only a real string: YAML's `no` read as False, a number or a list is not a name."""
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    return a_type(value)


def _plain(value: str) -> str:
    """No control character anywhere (a newline would start a line of its own)."""
    bad = next((c for c in value if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0), None)
    if bad is not None:
        raise ValueError(f"holds the control character {bad!r}")
    return value


def _ascii(value: str) -> str:
    bad = next((c for c in value if ord(c) > 0x7E), None)
    if bad is not None:
        raise ValueError(f"holds the non-ASCII character {bad!r} (U+{ord(bad):04X})")
    return value


# --- addresses -------------------------------------------------------------------------


def _ipv4(value: str) -> str:
    try:
        return str(ipaddress.IPv4Address(value))
    except ValueError:
        raise ValueError("must be an IPv4 address like 10.0.0.5 (four numbers 0-255)") from None


IPv4Address = Annotated[str, BeforeValidator(_string), AfterValidator(_ipv4)]
"""A dotted-quad IPv4 address: `10.0.0.999`, `nan`, `not-an-ip/32` are refused."""


def _host_address(value: str) -> str:
    address = ipaddress.IPv4Address(value)
    for flag, why in (
        (address.is_unspecified, "the unspecified address"),
        (address.is_multicast, "a multicast address"),
        (address.is_link_local, "a link-local address"),
        (address == ipaddress.IPv4Address("255.255.255.255"), "the broadcast address"),
        (address.is_reserved, "a reserved address"),
    ):
        if flag:
            raise ValueError(f"is {why}, not a host's address")
    return value


HostAddress = Annotated[IPv4Address, AfterValidator(_host_address)]
"""An IPv4 address a host can have: not 0.0.0.0, multicast, link-local, broadcast, reserved."""


def networks(cidrs: Iterable[Any]) -> list[ipaddress.IPv4Network]:
    """The IPv4 networks among `cidrs` (values that are not a CIDR, e.g. an offline plan's
    placeholders, are left out: they check nothing)."""
    out: list[ipaddress.IPv4Network] = []
    for cidr in cidrs:
        try:
            out.append(ipaddress.IPv4Network(str(cidr), strict=False))
        except ValueError:
            continue
    return out


def inside(address: str, cidrs: Iterable[Any]) -> bool:
    """True when `address` lies in one of `cidrs`, or when no CIDR is known (nothing to check)."""
    nets = networks(cidrs)
    if not nets:
        return True
    addr = ipaddress.IPv4Address(address)
    return any(addr in net for net in nets)


# --- names -----------------------------------------------------------------------------

_LABEL_1123 = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME_RE = re.compile(rf"{_LABEL_1123}(?:\.{_LABEL_1123})*", re.ASCII)
HOST_NAME_MAX = 253


def _host_name(value: str) -> str:
    _plain(value)
    _ascii(value)
    if len(value) > HOST_NAME_MAX or not _HOST_NAME_RE.fullmatch(value):
        raise ValueError(
            "must be an RFC 1123 host name: labels of letters, digits and '-' (1-63, not "
            "starting or ending with '-') joined by '.', at most 253 characters"
        )
    return value


HostName = Annotated[str, BeforeValidator(_string), AfterValidator(_host_name)]
"""An RFC 1123 host name, ASCII only (a Cyrillic look-alike, `x;reboot`, a newline refused)."""

SLURM_NAME_MAX = 64
_SLURM_NAME_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?", re.ASCII)


def _slurm_name(value: str) -> str:
    _plain(value)
    _ascii(value)
    if not _SLURM_NAME_RE.fullmatch(value):
        raise ValueError(
            f"must be a Slurm name: 1-{SLURM_NAME_MAX} letters, digits, '.', '_' or '-', "
            "starting and ending with a letter or digit"
        )
    return value


SlurmName = Annotated[str, BeforeValidator(_string), AfterValidator(_slurm_name)]
"""A Slurm node, switch or block name: nothing hostlist or the config parser reads apart."""

NODE_ID_MAX = 255


def _node_id(value: str) -> str:
    _plain(value)
    if not value.strip() or len(value) > NODE_ID_MAX:
        raise ValueError(f"must be 1-{NODE_ID_MAX} characters, not only spaces")
    bad = next((c for c in value if c.isspace() and c != " "), None)
    if bad is not None:
        raise ValueError(f"holds the line or space separator {bad!r}")
    return value


def _node_id_before(value: Any) -> str:
    """A string, or a whole number written without quotes (YAML `path: [1, 2]`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _string(value)


NodeId = Annotated[str, BeforeValidator(_node_id_before), AfterValidator(_node_id)]
"""An opaque id a provider or a node reports (switch, block, cluster): printable (spaces
allowed, no other white space or control character), at most 255 characters. Writers still
make names of it or escape it."""

_DNS1123_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_RE = re.compile(rf"{_DNS1123_LABEL}(?:\.{_DNS1123_LABEL})*", re.ASCII)
_QNAME_RE = re.compile(r"(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)
LABEL_NAME_MAX = 63
LABEL_PREFIX_MAX = 253
LABEL_VALUE_MAX = 63


def _dns_subdomain(value: str) -> str:
    if len(value) > LABEL_PREFIX_MAX or not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        raise ValueError(
            "must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', "
            "alphanumeric at both ends, at most 253 characters"
        )
    return value


DnsSubdomain = Annotated[str, BeforeValidator(_string), AfterValidator(_dns_subdomain)]
"""A Kubernetes object name (node, Topology): a lowercase RFC 1123 subdomain."""


def _label_key(value: str) -> str:
    prefix, slash, name = value.rpartition("/")
    if slash and (not prefix or "/" in prefix):
        raise ValueError("must be NAME or PREFIX/NAME with one '/' and a non-empty prefix")
    if slash:
        try:
            _dns_subdomain(prefix)
        except ValueError:
            raise ValueError(
                f"has the prefix {prefix!r}, which is not a DNS-1123 subdomain (lowercase "
                "letters, digits, '-' and '.', at most 253 characters)"
            ) from None
    if len(name) > LABEL_NAME_MAX or not _QNAME_RE.fullmatch(name):
        raise ValueError(
            "must have a name part of 1-63 letters, digits, '-', '_' or '.', alphanumeric at "
            "both ends"
        )
    return value


LabelKey = Annotated[str, BeforeValidator(_string), AfterValidator(_label_key)]
"""A Kubernetes label key (a qualified name)."""


def _label_value(value: str) -> str:
    if value and (len(value) > LABEL_VALUE_MAX or not _QNAME_RE.fullmatch(value)):
        raise ValueError(
            "must be empty or 1-63 letters, digits, '-', '_' or '.', alphanumeric at both ends"
        )
    return value


LabelValue = Annotated[str, BeforeValidator(_string), AfterValidator(_label_value)]
"""A Kubernetes label value."""


# --- paths and other names ---------------------------------------------------------------

_PATH_SEGMENT_RE = re.compile(r"[A-Za-z0-9._-]+", re.ASCII)
MOUNT_PATH_MAX = 255


def _mount_path(value: str) -> str:
    _plain(value)
    if not value.startswith("/") or value == "/":
        raise ValueError("must be an absolute directory other than /")
    segments = value.split("/")[1:]
    if any(s in ("", ".", "..") for s in segments) or posixpath.normpath(value) != value:
        raise ValueError("must be a normalised path: no '..', '.', '//' or trailing '/'")
    bad = next((s for s in segments if not _PATH_SEGMENT_RE.fullmatch(s)), None)
    if bad is not None or len(value) > MOUNT_PATH_MAX:
        raise ValueError(
            "must hold only letters, digits, '.', '_', '-' and '/' (nothing a shell, an fstab "
            f"line or YAML reads apart), at most {MOUNT_PATH_MAX} characters"
        )
    return value


MountPath = Annotated[str, BeforeValidator(_string), AfterValidator(_mount_path)]
"""A mount point written into cloud-init and mount commands: `/shared"x`, `/lustre;reboot`,
`/lustre$(id)`, `/shared/../etc` are refused."""

_IMAGE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,254}", re.ASCII)


def _image_name(value: str) -> str:
    _plain(value)
    if not _IMAGE_RE.fullmatch(value) or "//" in value or ".." in value:
        raise ValueError(
            "must be an image name, family or reference: 1-255 letters, digits, '.', '_', "
            "':', '/', '@', '+' or '-', starting with a letter or digit"
        )
    return value


ImageName = Annotated[str, BeforeValidator(_string), AfterValidator(_image_name)]
"""An image name, family, URN or path (no white space, quotes or shell characters)."""

_TAG_KEY_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/=+@-]{0,127}", re.ASCII)
TAG_VALUE_MAX = 256


def _tag_key(value: str) -> str:
    _plain(value)
    if not _TAG_KEY_RE.fullmatch(value):
        raise ValueError(
            "must be a tag key of 1-128 letters, digits, '_', '.', ':', '/', '=', '+', '@' or "
            "'-', starting with a letter or digit"
        )
    return value


TagKey = Annotated[str, BeforeValidator(_string), AfterValidator(_tag_key)]
"""A resource tag key that every cloud's tag rules and a shell line hold unchanged."""


def _tag_value(value: str) -> str:
    _plain(value)
    if len(value) > TAG_VALUE_MAX:
        raise ValueError(f"must be at most {TAG_VALUE_MAX} characters")
    return value


TagValue = Annotated[str, BeforeValidator(_string), AfterValidator(_tag_value)]
"""A resource tag value: at most 256 characters, no control character."""


# --- id formats ------------------------------------------------------------------------


def matching(pattern: str, allowed: str) -> Any:
    """A string type that must match `pattern` whole (ASCII); refused as 'must be {allowed}'.
    Each cloud builds its id formats with it (gpufabric.clouds.<cloud>.ids)."""
    regex = re.compile(pattern, re.ASCII)

    def _match(value: str) -> str:
        _plain(value)
        if not regex.fullmatch(value):
            raise ValueError(f"must be {allowed}")
        return value

    return Annotated[str, BeforeValidator(_string), AfterValidator(_match)]


# --- checking one value ----------------------------------------------------------------

_ADAPTERS: dict[int, TypeAdapter[Any]] = {}


def _adapter(kind: Any) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(id(kind))
    if adapter is None:
        adapter = _ADAPTERS[id(kind)] = TypeAdapter(kind)
    return adapter


def reason(exc: ValidationError) -> str:
    """The first error of `exc` as one line, without pydantic's 'Value error, ' prefix."""
    first = exc.errors()[0]
    return str(first["msg"]).removeprefix("Value error, ").replace("\n", " ")


def problem(kind: Any, value: Any) -> str:
    """'' when `value` is a valid `kind`, else why not (one line)."""
    try:
        _adapter(kind).validate_python(value)
    except ValidationError as exc:
        return reason(exc)
    return ""


def check(kind: Any, value: Any, where: str) -> Any:
    """`value` as a valid `kind` (normalised where the type normalises), or a UserError
    `where: VALUE: why`."""
    try:
        return _adapter(kind).validate_python(value)
    except ValidationError as exc:
        raise UserError(f"{where}: {show(value)} {reason(exc)}") from None


def digits(text: str) -> bool:
    """Whether `text` is one or more ASCII digits, so that int(text) reads it: str.isdigit()
    also holds for '²' or '٣', which int() refuses or reads as another script's digit."""
    return text.isascii() and text.isdigit()


def article(word: str) -> str:
    """The word with its article, as an error line says it: 'an int', 'a list', 'an OCID'."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def a_type(value: Any) -> str:
    """The value's type with its article: 'an int', 'a list'."""
    return article(type(value).__name__)


def show(value: Any) -> str:
    """The value as the error shows it: quoted, control characters escaped, cut at 80."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
