"""Assay's development kit: the real parts that tests, `make demo` and the benchmarks start.

Not product code and not in any image: a local Kubernetes cluster (`cluster`: etcd, kube-apiserver and
kube-controller-manager built from source, and a local kubelet that runs pods as processes) and servers
that speak the protocols Assay talks to (`servers`: a chat-completions gateway, MLflow).
"""
