"""Test harness: a real Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager) built from
source, and a local kubelet that runs pods under runc from the project's images. See docs/control-plane.md
and docs/runtime.md."""

from .controlplane import ControlPlane
from .images import PullFault
from .kubeapi import ApiError, Credentials, KubeApi
from .kubelet import LocalKubelet
from .processes import ControlPlaneError, locate_binaries

__all__ = [
    "ApiError",
    "ControlPlane",
    "ControlPlaneError",
    "Credentials",
    "KubeApi",
    "LocalKubelet",
    "PullFault",
    "locate_binaries",
]
