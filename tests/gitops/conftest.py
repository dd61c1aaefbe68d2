"""The GitOps tests share the chart tests' fixtures: `k8s_bin` (kubectl, located at collection time) and `crd`
(the Evaluation CRD, installed the documented way). The control-plane fixtures come from tests/conftest.py."""

from tests.chart.conftest import crd, k8s_bin, pytest_collection_modifyitems

__all__ = ["crd", "k8s_bin", "pytest_collection_modifyitems"]
