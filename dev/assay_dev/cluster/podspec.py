"""What a container runs: its image's local stand-in, argv and environment, resolved the way kubelet and
a container runtime do (command/args over the image's Entrypoint/Cmd, `$(VAR)` expansion, env sources)."""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

Obj = dict[str, Any]

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class ImageSpec:
    """The parts of an OCI image config a container sees (images.pull reads them from the local store).

    Like a runtime, the container's `command` replaces `entrypoint` (and drops `cmd`); its `args` replace
    `cmd`.
    """

    entrypoint: tuple[str, ...] = ()
    cmd: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    workdir: str = "/"
    user: str = ""
    """The image's USER: `uid` or `uid:gid`, numeric; empty is root. securityContext overrides it."""


class ConfigError(Exception):
    """The container cannot be configured yet (a missing ConfigMap, Secret or key); kubelet retries these
    and shows them as waiting reason CreateContainerConfigError."""


class ObjectSource(Protocol):
    """Reads the objects a pod refers to (ConfigMaps, Secrets, claims and their volumes); None when absent."""

    def config_map(self, namespace: str, name: str) -> Obj | None: ...

    def secret(self, namespace: str, name: str) -> Obj | None: ...

    def persistent_volume_claim(self, namespace: str, name: str) -> Obj | None: ...

    def persistent_volume(self, name: str) -> Obj | None: ...


def expand(value: str, env: Mapping[str, str]) -> str:
    """Kubernetes `$(VAR)` expansion: defined names are replaced, undefined ones kept, `$$` is `$`."""
    out: list[str] = []
    i = 0
    while i < len(value):
        if value[i] == "$" and i + 1 < len(value):
            following = value[i + 1]
            if following == "$":
                out.append("$")
                i += 2
                continue
            if following == "(":
                end = value.find(")", i + 2)
                if end != -1:
                    name = value[i + 2 : end]
                    out.append(env.get(name, value[i : end + 1]))
                    i = end + 1
                    continue
        out.append(value[i])
        i += 1
    return "".join(out)


def sub_path_of(mount: Obj, env: Mapping[str, str]) -> str:
    """A volume mount's `subPath`, or its `subPathExpr` with `$(VAR)` expanded from the container's
    environment (an Indexed Job's pods mount `shard-$(JOB_COMPLETION_INDEX)`); "" for the volume's root.
    As kubelet refuses them: both at once, an absolute path, or one that climbs out with `..`."""
    if mount.get("subPath") and mount.get("subPathExpr"):
        raise ConfigError(f"volume mount {mount['name']!r}: subPath and subPathExpr are mutually exclusive")
    raw = str(mount.get("subPath") or "")
    if mount.get("subPathExpr"):
        raw = expand(str(mount["subPathExpr"]), env)
    if raw.startswith("/") or ".." in raw.split("/"):
        raise ConfigError(f"volume mount {mount['name']!r}: subPath {raw!r} must be a relative path within")
    return raw


def container_argv(container: Obj, image: ImageSpec, env: Mapping[str, str]) -> list[str]:
    command = container.get("command")
    args = container.get("args")
    if command:
        argv = [expand(c, env) for c in command] + [expand(a, env) for a in args or []]
    else:
        argv = list(image.entrypoint) + ([expand(a, env) for a in args] if args else list(image.cmd))
    if not argv:
        raise ConfigError("no command specified")
    return argv


# Kubernetes' quantity grammar (apimachinery resource.Quantity): a signed decimal, then a binary suffix
# (Ki ... Ei), a decimal one (n u m "" k M G T P E) or a decimal exponent (e3, E-2).
_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|([KMGTPE]i|[numkMGTPE])?)$"
)
_SUFFIX = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("0.001"),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(quantity: str | int | float) -> Decimal:
    match = _QUANTITY.match(str(quantity))
    if not match:
        raise ConfigError(f"unsupported quantity {quantity!r}")
    number, exponent, suffix = match.groups()
    if exponent is not None:
        return Decimal(number).scaleb(int(exponent))
    return Decimal(number) * _SUFFIX[suffix or ""]


def resource_field(pod: Obj, ref: Obj, allocatable: Mapping[str, str]) -> str:
    """resourceFieldRef: a limit or request divided by `divisor`, rounded up; an unset limit is the node's
    allocatable, as kubelet reports it."""
    container = next(
        (c for c in pod["spec"]["containers"] if c["name"] == ref.get("containerName")),
        pod["spec"]["containers"][0],
    )
    kind, _, resource = ref["resource"].partition(".")
    value = container.get("resources", {}).get(kind, {}).get(resource)
    if value is None and kind == "limits":
        value = allocatable.get(resource)
    if value is None:
        return "0"
    divisor = parse_quantity(ref.get("divisor", "1"))
    return str(math.ceil(parse_quantity(value) / divisor))


_LABEL_REF = re.compile(r"^metadata\.(labels|annotations)\['(.+)'\]$")


def field_ref(pod: Obj, path: str) -> str:
    meta, spec, status = pod["metadata"], pod["spec"], pod.get("status", {})
    match = _LABEL_REF.match(path)
    if match:
        return str(meta.get(match.group(1), {}).get(match.group(2), ""))
    simple: dict[str, Any] = {
        "metadata.name": meta["name"],
        "metadata.namespace": meta["namespace"],
        "metadata.uid": meta["uid"],
        "spec.nodeName": spec.get("nodeName", ""),
        "spec.serviceAccountName": spec.get("serviceAccountName", ""),
        "status.hostIP": status.get("hostIP", ""),
        "status.hostIPs": ",".join(ip["ip"] for ip in status.get("hostIPs", [])),
        "status.podIP": status.get("podIP", ""),
        "status.podIPs": ",".join(ip["ip"] for ip in status.get("podIPs", [])),
    }
    if path not in simple:
        raise ConfigError(f"unsupported fieldRef {path!r}")
    return str(simple[path])


def _source_value(objects: ObjectSource, namespace: str, kind: str, ref: Obj) -> str | None:
    getter = objects.config_map if kind == "ConfigMap" else objects.secret
    obj = getter(namespace, ref["name"])
    optional = bool(ref.get("optional"))
    if obj is None:
        if optional:
            return None
        raise ConfigError(f'{kind.lower()} "{ref["name"]}" not found')
    data = obj.get("data") or {}
    if ref["key"] not in data:
        if optional:
            return None
        raise ConfigError(f"couldn't find key {ref['key']} in {kind} {namespace}/{ref['name']}")
    value = data[ref["key"]]
    return base64.b64decode(value).decode() if kind == "Secret" else str(value)


def container_env(
    pod: Obj,
    container: Obj,
    image: ImageSpec,
    *,
    objects: ObjectSource,
    service_env: Mapping[str, str],
    allocatable: Mapping[str, str],
) -> dict[str, str]:
    """The process environment: image env, then the service variables, envFrom, env (later wins), each
    env value expanded against what is defined before it."""
    namespace = pod["metadata"]["namespace"]
    defined: dict[str, str] = dict(service_env)
    for source in container.get("envFrom") or []:
        kind, ref = (
            ("ConfigMap", source["configMapRef"])
            if "configMapRef" in source
            else ("Secret", source["secretRef"])
        )
        getter = objects.config_map if kind == "ConfigMap" else objects.secret
        obj = getter(namespace, ref["name"])
        if obj is None:
            if ref.get("optional"):
                continue
            raise ConfigError(f'{kind.lower()} "{ref["name"]}" not found')
        for key, value in (obj.get("data") or {}).items():
            text = base64.b64decode(value).decode() if kind == "Secret" else str(value)
            defined[source.get("prefix", "") + key] = text
    for var in container.get("env") or []:
        name = var["name"]
        value_from = var.get("valueFrom")
        if value_from is None:
            defined[name] = expand(var.get("value", ""), defined)
        elif "fieldRef" in value_from:
            defined[name] = field_ref(pod, value_from["fieldRef"]["fieldPath"])
        elif "resourceFieldRef" in value_from:
            defined[name] = resource_field(pod, value_from["resourceFieldRef"], allocatable)
        elif "configMapKeyRef" in value_from or "secretKeyRef" in value_from:
            kind = "ConfigMap" if "configMapKeyRef" in value_from else "Secret"
            ref = value_from.get("configMapKeyRef") or value_from["secretKeyRef"]
            value = _source_value(objects, namespace, kind, ref)
            if value is not None:
                defined[name] = value
        else:
            raise ConfigError(f"unsupported env source for {name}: {sorted(value_from)}")
    # A runtime sets HOME from the image's /etc/passwd; an arbitrary uid (OpenShift) has no entry: "/".
    home = "/root" if identity(pod, container, image).uid == 0 else "/"
    env = {"PATH": DEFAULT_PATH, "HOME": home, **image.env, "HOSTNAME": pod_hostname(pod)}
    env.update(defined)
    return env


def pod_hostname(pod: Obj) -> str:
    return str(pod["spec"].get("hostname") or pod["metadata"]["name"])[:63]


@dataclass(frozen=True)
class Identity:
    """Who the container's process runs as."""

    uid: int
    gid: int
    groups: tuple[int, ...]


def identity(pod: Obj, container: Obj, image: ImageSpec) -> Identity:
    """runAsUser/runAsGroup (container over pod over image), supplementalGroups and fsGroup; refuses
    runAsNonRoot with uid 0 with kubelet's own message."""
    pod_context = pod["spec"].get("securityContext") or {}
    context = container.get("securityContext") or {}

    def setting(key: str, default: Any) -> Any:
        return context.get(key, pod_context.get(key, default))

    image_uid, image_gid = image_user(image.user)
    uid = int(setting("runAsUser", image_uid))
    if setting("runAsNonRoot", False) and uid == 0:
        meta = pod["metadata"]
        raise ConfigError(
            f'container has runAsNonRoot and image will run as root (pod: "{meta["name"]}_{meta["namespace"]}'
            f'({meta["uid"]})", container: {container["name"]})'
        )
    groups = {int(g) for g in pod_context.get("supplementalGroups") or []}
    if "fsGroup" in pod_context:
        groups.add(int(pod_context["fsGroup"]))
    return Identity(uid=uid, gid=int(setting("runAsGroup", image_gid)), groups=tuple(sorted(groups)))


def image_user(text: str) -> tuple[int, int]:
    """An image's USER as (uid, gid): numeric `uid` or `uid:gid`; empty is root (gid 0 unless named). A
    name would need the image's /etc/passwd to check runAsNonRoot; kubelet refuses it then, and so do we."""
    if not text:
        return 0, 0
    user, _, group = text.partition(":")
    if not user.isdigit() or (group and not group.isdigit()):
        raise ConfigError(f"image has non-numeric user ({text}), which the local kubelet does not resolve")
    return int(user), int(group) if group else 0
