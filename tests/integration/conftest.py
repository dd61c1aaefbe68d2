"""The control-plane fixtures (`control_plane`, `kubelet`, `namespace`) live in tests/conftest.py, shared with
tests/operator_cluster; `PYTHON_IMAGE` stays importable from here."""

from tests.conftest import PYTHON_IMAGE

__all__ = ["PYTHON_IMAGE"]
