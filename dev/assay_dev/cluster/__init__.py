"""Test harness: a real Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager) built from
source, and a local kubelet that runs pods as local processes. See docs/control-plane.md."""

from .controlplane import ControlPlane, ControlPlaneError, locate_binaries
from .kubeapi import ApiError, Credentials, KubeApi
from .kubelet import LocalKubelet
from .podspec import ImageSpec

__all__ = [
    "ApiError",
    "ControlPlane",
    "ControlPlaneError",
    "Credentials",
    "ImageSpec",
    "KubeApi",
    "LocalKubelet",
    "locate_binaries",
]
