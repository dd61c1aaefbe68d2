"""Pod volumes laid out in a per-pod directory, the way kubelet lays them out on a node.

ConfigMap, Secret, downwardAPI and projected volumes use kubelet's atomic-writer layout: the files live in a
timestamped `..<ts>` directory, `..data` points at it, and each top-level name is a symlink through
`..data`. Code that lists a mounted directory therefore sees what it would see on a real node.
"""

from __future__ import annotations

import base64
import datetime
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .podspec import ConfigError, ObjectSource, field_ref, resource_field

Obj = dict[str, Any]
TokenSource = Callable[[Obj, str, int], str]
"""(pod, audience, expirationSeconds) -> a service-account token bound to the pod."""

DEFAULT_MODE = 0o644


class MountError(Exception):
    """A volume cannot be set up (yet); the container stays ContainerCreating, as on a node."""


def write_atomic_dir(target: Path, files: Mapping[str, tuple[bytes, int]]) -> None:
    """Write {relative path: (content, mode)} into `target` with the atomic-writer layout."""
    target.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now(datetime.UTC).strftime("..%Y_%m_%d_%H_%M_%S.%f")
    payload = target / stamp
    payload.mkdir()
    for relative, (content, mode) in files.items():
        path = payload / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(mode)
    os.symlink(stamp, target / "..data")
    for top in sorted({relative.split("/", 1)[0] for relative in files}):
        os.symlink(f"..data/{top}", target / top)


def _mode(item: Obj, default_mode: int) -> int:
    return int(item.get("mode", default_mode))


def _keyed_files(obj: Obj | None, kind: str, source: Obj, default_mode: int) -> dict[str, tuple[bytes, int]]:
    """ConfigMap or Secret data as files: every key, or only `items` (key -> path, mode)."""
    if obj is None:
        if source.get("optional"):
            return {}
        raise MountError(f'{kind.lower()} "{source.get("name") or source.get("secretName")}" not found')
    data: dict[str, bytes] = {}
    if kind == "Secret":
        data = {k: base64.b64decode(v) for k, v in (obj.get("data") or {}).items()}
    else:
        data = {k: str(v).encode() for k, v in (obj.get("data") or {}).items()}
        data.update({k: base64.b64decode(v) for k, v in (obj.get("binaryData") or {}).items()})
    items = source.get("items")
    if not items:
        return {key: (value, default_mode) for key, value in data.items()}
    files: dict[str, tuple[bytes, int]] = {}
    for item in items:
        if item["key"] not in data:
            if source.get("optional"):
                continue
            what = (
                "configmap references non-existent config key"
                if kind == "ConfigMap"
                else ("references non-existent secret key")
            )
            raise MountError(f"{what}: {item['key']}")  # kubelet's own words
        files[item["path"]] = (data[item["key"]], _mode(item, default_mode))
    return files


def _downward_files(
    pod: Obj, items: list[Obj], default_mode: int, allocatable: Mapping[str, str]
) -> dict[str, tuple[bytes, int]]:
    files: dict[str, tuple[bytes, int]] = {}
    for item in items:
        if "fieldRef" in item:
            path = item["fieldRef"]["fieldPath"]
            if path in ("metadata.labels", "metadata.annotations"):
                pairs = pod["metadata"].get(path.split(".")[1], {})
                text = "\n".join(f'{k}="{v}"' for k, v in sorted(pairs.items()))
            else:
                text = field_ref(pod, path)
        else:
            text = resource_field(pod, item["resourceFieldRef"], allocatable)
        files[item["path"]] = (text.encode(), _mode(item, default_mode))
    return files


@dataclass(frozen=True)
class VolumeContext:
    """What a volume type may need to lay itself out."""

    pod: Obj
    target: Path
    """Where a volume the kubelet writes goes: <pod dir>/volumes/<name>."""
    objects: ObjectSource
    tokens: TokenSource
    allocatable: Mapping[str, str]

    @property
    def namespace(self) -> str:
        return str(self.pod["metadata"]["namespace"])


def _empty_dir(source: Obj, context: VolumeContext) -> Path:
    context.target.mkdir(parents=True, exist_ok=True)
    context.target.chmod(0o777)  # as kubelet makes emptyDirs: any container user may write
    return context.target


def _host_path(source: Obj, context: VolumeContext) -> Path:
    host = Path(source["path"])
    if source.get("type") == "DirectoryOrCreate":
        host.mkdir(parents=True, exist_ok=True)
    if not host.exists():
        raise MountError(f"hostPath {host} does not exist")
    return host


def _atomic(files: dict[str, tuple[bytes, int]], context: VolumeContext) -> Path:
    write_atomic_dir(context.target, files)
    return context.target


def _config_map(source: Obj, context: VolumeContext) -> Path:
    config_map = context.objects.config_map(context.namespace, source["name"])
    mode = int(source.get("defaultMode", DEFAULT_MODE))
    return _atomic(_keyed_files(config_map, "ConfigMap", source, mode), context)


def _secret(source: Obj, context: VolumeContext) -> Path:
    secret = context.objects.secret(context.namespace, source["secretName"])
    mode = int(source.get("defaultMode", DEFAULT_MODE))
    return _atomic(_keyed_files(secret, "Secret", source, mode), context)


def _downward_api(source: Obj, context: VolumeContext) -> Path:
    mode = int(source.get("defaultMode", DEFAULT_MODE))
    return _atomic(_downward_files(context.pod, source.get("items", []), mode, context.allocatable), context)


def _projected(source: Obj, context: VolumeContext) -> Path:
    files = _projected_files(context.pod, source, context.objects, context.tokens, context.allocatable)
    return _atomic(files, context)


def _persistent_volume_claim(source: Obj, context: VolumeContext) -> Path:
    """The claim's bound PersistentVolume, as a path on this node: the volumes the local-path provisioner
    makes (storage.py) are `hostPath` (or `local`) volumes. Until the claim is Bound the pod waits, as it
    would for a volume being attached."""
    name = source["claimName"]
    claim = context.objects.persistent_volume_claim(context.namespace, name)
    if claim is None:
        raise MountError(f'persistentvolumeclaim "{name}" not found')
    volume_name = (claim.get("spec") or {}).get("volumeName")
    if (claim.get("status") or {}).get("phase") != "Bound" or not volume_name:
        raise MountError(f'persistentvolumeclaim "{name}" is not bound yet')
    volume = context.objects.persistent_volume(volume_name)
    spec = (volume or {}).get("spec") or {}
    found = (spec.get("hostPath") or spec.get("local") or {}).get("path")
    if not found:
        raise MountError(f'persistentvolume "{volume_name}" has no hostPath or local path on this node')
    path = Path(found)
    if not path.is_dir():
        raise MountError(f'persistentvolume "{volume_name}": {path} does not exist on this node')
    return path


VolumeType = Callable[[Obj, VolumeContext], Path]
VOLUME_TYPES: dict[str, VolumeType] = {
    "emptyDir": _empty_dir,
    "hostPath": _host_path,
    "configMap": _config_map,
    "secret": _secret,
    "downwardAPI": _downward_api,
    "projected": _projected,
    "persistentVolumeClaim": _persistent_volume_claim,
}
"""One function per volume type: (the volume's source object, context) -> the host path to bind."""


def materialize(
    pod: Obj,
    volume: Obj,
    volumes_dir: Path,
    *,
    objects: ObjectSource,
    tokens: TokenSource,
    allocatable: Mapping[str, str],
) -> Path:
    """Create one volume under `volumes_dir` (or name the host path) and return its source path."""
    kinds = [kind for kind in volume if kind != "name"]
    handler = VOLUME_TYPES.get(kinds[0]) if len(kinds) == 1 else None
    if handler is None:
        raise MountError(
            f"volume {volume['name']}: type {sorted(kinds)} is not supported by the local kubelet"
        )
    context = VolumeContext(pod, volumes_dir / str(volume["name"]), objects, tokens, allocatable)
    try:
        return handler(volume[kinds[0]] or {}, context)
    except ConfigError as error:
        raise MountError(str(error)) from error


def _projected_files(
    pod: Obj, projected: Obj, objects: ObjectSource, tokens: TokenSource, allocatable: Mapping[str, str]
) -> dict[str, tuple[bytes, int]]:
    namespace = pod["metadata"]["namespace"]
    default_mode = int(projected.get("defaultMode", DEFAULT_MODE))
    files: dict[str, tuple[bytes, int]] = {}
    for source in projected.get("sources") or []:
        if "configMap" in source:
            ref = source["configMap"]
            config_map = objects.config_map(namespace, ref["name"])
            files.update(_keyed_files(config_map, "ConfigMap", ref, default_mode))
        elif "secret" in source:
            ref = source["secret"]
            files.update(_keyed_files(objects.secret(namespace, ref["name"]), "Secret", ref, default_mode))
        elif "downwardAPI" in source:
            items = source["downwardAPI"].get("items", [])
            files.update(_downward_files(pod, items, default_mode, allocatable))
        elif "serviceAccountToken" in source:
            ref = source["serviceAccountToken"]
            token = tokens(pod, ref.get("audience", ""), int(ref.get("expirationSeconds", 3607)))
            files[ref["path"]] = (token.encode(), default_mode)
        else:
            raise MountError(f"projected source {sorted(source)} is not supported by the local kubelet")
    return files
