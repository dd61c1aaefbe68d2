"""The chart, rendered with `helm template` for each values file in tests/chart/values/, read as objects.

No cluster here: what the objects say (probes, security context, env the operator's settings accept, RBAC
equal to assay_operator.rbac, a NetworkPolicy that selects exactly the runner pods the operator builds),
that values.schema.json rejects typos and wrong types, and that the generated files have not drifted.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from assay_operator import rbac
from assay_operator.evaluation.api import EvaluationSpec
from assay_operator.evaluation.build.answer_job import build_answer_job
from assay_operator.evaluation.build.judge_job import build_judge_job
from assay_operator.evaluation.build.snapshots import Snapshots
from assay_operator.settings import ENV, Settings, from_environment
from tests.chart.conftest import CHART, ROOT, VALUES, Helm

Obj = dict[str, Any]
RUNNER_SPEC = EvaluationSpec.model_validate(
    {
        "brain": {"configMap": {"name": "brain-v1"}},
        "suite": {"bundled": "support-desk"},
        "agent": {"kind": "replay", "answers": {"bundled": "support-desk/answers/v1"}},
    }
)


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Rendered:
    def __init__(self, text: str) -> None:
        self.objects: list[Obj] = [o for o in yaml.safe_load_all(text) if o]

    def kinds(self) -> list[str]:
        return sorted(o["kind"] for o in self.objects)

    def all(self, kind: str) -> list[Obj]:
        return [o for o in self.objects if o["kind"] == kind]

    def one(self, kind: str) -> Obj:
        found = self.all(kind)
        assert len(found) == 1, f"{len(found)} {kind} objects"
        return found[0]

    def operators(self, kind: str) -> list[Obj]:
        """The operator's own objects of `kind` (not the approvals' role: tests/chart/test_approvals.py)."""
        return [
            o
            for o in self.all(kind)
            if o["metadata"]["labels"].get("app.kubernetes.io/component") != "approvals"
        ]


def render(helm: Helm, name: str, namespace: str = "assay-system") -> Rendered:
    return Rendered(helm.template(VALUES / f"{name}.yaml", namespace=namespace))


def container(rendered: Rendered) -> Obj:
    containers = rendered.one("Deployment")["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    result: Obj = containers[0]
    return result


def env_of(rendered: Rendered, namespace: str) -> dict[str, str]:
    """The operator container's environment as the kubelet gives it: fieldRefs resolved, $(VAR) expanded."""
    values: dict[str, str] = {}
    for entry in container(rendered)["env"]:
        if "valueFrom" in entry:
            field = entry["valueFrom"]["fieldRef"]["fieldPath"]
            assert field in ("metadata.namespace", "metadata.name"), entry
            values[entry["name"]] = namespace if field == "metadata.namespace" else "assay-operator-pod"
        else:
            values[entry["name"]] = re.sub(r"\$\((\w+)\)", lambda m: values[m.group(1)], entry["value"])
    return values


def walk(node: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(node, dict):
        return [(p, v) for key, value in node.items() for p, v in walk(value, f"{path}.{key}")] + [
            (path, node)
        ]
    if isinstance(node, list):
        return [(p, v) for i, value in enumerate(node) for p, v in walk(value, f"{path}[{i}]")] + [
            (path, node)
        ]
    return [(path, node)]


# --- lint ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("values", sorted(p.stem for p in VALUES.glob("*.yaml")))
def test_helm_lint_strict(helm: Helm, values: str) -> None:
    result = helm.run("lint", "--strict", str(CHART), "--values", str(VALUES / f"{values}.yaml"))
    assert "1 chart(s) linted, 0 chart(s) failed" in result.stdout


# --- the default install ------------------------------------------------------------------------------------


def test_default_objects(helm: Helm) -> None:
    rendered = render(helm, "default")
    cluster_scoped = ["ClusterRole", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    assert rendered.kinds() == sorted(
        # The cluster-scoped three are the approvals' (the approver role is bound to nobody by default).
        [
            "Deployment",
            "NetworkPolicy",
            "Role",
            "RoleBinding",
            "Secret",
            "Service",
            "ServiceAccount",
            *cluster_scoped,
        ]
    )
    for obj in rendered.objects:
        if obj["kind"] in cluster_scoped:
            assert "namespace" not in obj["metadata"] and obj["metadata"]["name"].endswith("assay-system")
        else:
            assert obj["metadata"]["namespace"] == "assay-system", obj["kind"]


def test_deployment_is_one_recreated_replica_with_probes(helm: Helm) -> None:
    rendered = render(helm, "default")
    deployment = rendered.one("Deployment")
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    pod = deployment["spec"]["template"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert pod["spec"]["terminationGracePeriodSeconds"] == 30
    assert pod["spec"]["serviceAccountName"] == "assay-operator"
    main = container(rendered)
    ports = {p["name"]: p["containerPort"] for p in main["ports"]}
    assert ports == {"health": 8080, "metrics": 8081}
    for probe in ("livenessProbe", "readinessProbe"):
        assert main[probe]["httpGet"] == {"path": "/healthz", "port": "health"}
    # The probes hit the endpoint the operator serves: ASSAY_LIVENESS, read by assay_operator.__main__.
    assert env_of(rendered, "assay-system")["ASSAY_LIVENESS"] == "http://0.0.0.0:8080/healthz"
    assert main["resources"]["requests"] == {"cpu": "100m", "memory": "256Mi"}
    assert main["resources"]["limits"]["memory"] == "512Mi"


def test_pod_security_is_restricted_without_a_fixed_uid(helm: Helm) -> None:
    rendered = render(helm, "default")
    pod = rendered.one("Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"] == {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    main = container(rendered)
    assert main["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
    }
    # OpenShift assigns the UID and group: a fixed one is rejected by restricted-v2.
    keys = {path.rsplit(".", 1)[-1] for path, _ in walk(pod)}
    assert not keys & {"runAsUser", "runAsGroup", "fsGroup", "hostNetwork", "hostPID", "privileged"}
    # Read-only root: /tmp is the one writable place, an emptyDir; the decision key is mounted read-only.
    assert main["volumeMounts"] == [
        {"name": "tmp", "mountPath": "/tmp"},
        {"name": "decision-key", "mountPath": "/etc/assay-operator/decision-key", "readOnly": True},
    ]
    assert pod["volumes"] == [
        {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
        {
            "name": "decision-key",
            "secret": {"secretName": "assay-operator-decision-key", "optional": True, "defaultMode": 0o444},
        },
    ]


def test_operator_env_is_accepted_by_the_operator_settings(helm: Helm) -> None:
    rendered = render(helm, "default")
    env = env_of(rendered, "assay-system")
    assert env["ASSAY_NAMESPACES"] == "assay-system"  # the release namespace, through $(POD_NAMESPACE)
    assert env["POD_NAMESPACE"] == "assay-system"
    # kopf asks getpass.getuser() for a name: an arbitrary UID (OpenShift) has none without USER.
    assert env["USER"] == "assay-operator" and env["HOME"] == "/tmp"
    names = [e["name"] for e in container(rendered)["env"]]
    assert names.index("POD_NAMESPACE") < names.index("ASSAY_NAMESPACES")  # $(VAR) needs it defined first
    # Every ASSAY_ variable the chart sets is one the operator reads (no silently ignored setting).
    known = set(ENV.values()) | {"ASSAY_LIVENESS"}
    assert {n for n in env if n.startswith("ASSAY_")} <= known
    settings = from_environment(env)
    assert settings == Settings(
        runner_image="ghcr.io/assay-dev/assay-runner:0.1.0",
        namespaces=("assay-system",),
        job_ttl_seconds=3600,
        backoff_limit=1,
        metrics_port=8081,
        decision_key_file="/etc/assay-operator/decision-key/key",
    )
    assert "ASSAY_DEFAULT_GATEWAY" not in env and "ASSAY_DEFAULT_MLFLOW_URI" not in env


def test_token_secret_defaults_reach_the_operator_as_names_only(helm: Helm) -> None:
    extra = [
        "--set", "defaults.gatewayTokenSecret=gateway",
        "--set", "defaults.judgeGatewayTokenSecret=judge/bearer",
        "--set", "defaults.mlflowTokenSecret=mlflow",
    ]  # fmt: skip
    rendered = Rendered(helm.template(VALUES / "default.yaml", extra=extra))
    settings = from_environment(env_of(rendered, "assay-system"))
    assert (
        settings.default_gateway_token_secret,
        settings.default_judge_gateway_token_secret,
        settings.default_mlflow_token_secret,
    ) == ("gateway", "judge/bearer", "mlflow")
    # The operator names Secrets; it never reads them, and its Role has no rule for them.
    assert "secrets" not in json.dumps(rendered.one("Role")["rules"])


def test_the_suite_registry_reaches_the_operator_and_the_judge_policy(helm: Helm) -> None:
    extra = [
        "--set", "suiteRegistry.caSecret=suite-registry/bundle.pem",
        "--set", "suiteRegistry.pullSecret=suite-registry-pull",
        "--set", "networkPolicy.suiteRegistry.cidrs={10.9.0.0/16}",
        "--set", "networkPolicy.suiteRegistry.ports={5000}",
    ]  # fmt: skip
    rendered = Rendered(helm.template(VALUES / "default.yaml", extra=extra))
    settings = from_environment(env_of(rendered, "assay-system"))
    assert settings.suite_registry_ca_secret == "suite-registry/bundle.pem"
    assert settings.suite_registry_auth_secret == "suite-registry-pull"
    assert settings.suite_registry_network.cidrs == ("10.9.0.0/16",)
    registry = {"to": [{"ipBlock": {"cidr": "10.9.0.0/16"}}], "ports": [{"protocol": "TCP", "port": 5000}]}
    assert registry in rendered.one("NetworkPolicy")["spec"]["egress"]  # the judge pods' split pulls it
    refused = helm.run(
        "template", "assay", str(CHART), "--set", "suiteRegistry.pullSecret=Not_A_Name", check=False
    )
    assert refused.returncode != 0 and "pullSecret" in refused.stderr, refused.stderr


def test_image_verification_reaches_the_operator_with_its_key_and_ca_mounted(helm: Helm) -> None:
    digest = "sha256:" + "ab" * 32
    extra = [
        "--set", "imageVerification.publicKeySecret=assay-cosign",
        "--set", "imageVerification.registryCASecret=registry-ca",
        "--set", f"runner.image.digest={digest}",
    ]  # fmt: skip
    rendered = Rendered(helm.template(VALUES / "default.yaml", extra=extra))
    settings = from_environment(env_of(rendered, "assay-system"))
    assert settings.runner_image.endswith(f"@{digest}")
    mounts = {m["name"]: m["mountPath"] for m in container(rendered)["volumeMounts"]}
    assert settings.image_verification_key_file == f"{mounts['image-verification']}/cosign.pub"
    assert settings.registry_ca_file == f"{mounts['registry-ca']}/ca.crt"
    volumes = {v["name"]: v for v in rendered.one("Deployment")["spec"]["template"]["spec"]["volumes"]}
    assert volumes["image-verification"]["secret"]["secretName"] == "assay-cosign"
    assert volumes["registry-ca"]["secret"]["secretName"] == "registry-ca"
    # Not optional: an install that verifies does not start without its key.
    assert "optional" not in volumes["image-verification"]["secret"]
    refused = helm.run(
        "template",
        "assay",
        str(CHART),
        "--set",
        "imageVerification.publicKeySecret=assay-cosign",
        check=False,
    )
    assert refused.returncode != 0 and "runner.image.digest" in refused.stderr, refused.stderr
    default = Rendered(helm.template(VALUES / "default.yaml"))
    assert "ASSAY_IMAGE_VERIFICATION_KEY_FILE" not in env_of(default, "assay-system")


def test_the_network_probes_targets_reach_the_operator(helm: Helm) -> None:
    extra = ["--set", "networkPolicy.probeTargets={assay-operator-metrics.assay-system:8081,10.0.0.9:5000}"]
    rendered = Rendered(helm.template(VALUES / "default.yaml", extra=extra))
    settings = from_environment(env_of(rendered, "assay-system"))
    assert settings.network_probe_targets == ("assay-operator-metrics.assay-system:8081", "10.0.0.9:5000")
    refused = helm.run(
        "template", "assay", str(CHART), "--set", "networkPolicy.probeTargets={mlflow}", check=False
    )
    assert refused.returncode != 0 and "probeTargets" in refused.stderr, refused.stderr


def test_an_mlflow_server_without_a_credential_is_refused_unless_the_install_says_so(helm: Helm) -> None:
    """MLflow holds every answer key: the default install logs to a server only with a credential."""
    server = ["--set", "defaults.mlflowTrackingUri=http://mlflow.mlflow.svc:5000"]
    refused = helm.run("template", "assay", str(CHART), *server, check=False)
    assert refused.returncode != 0 and "defaults.mlflowTokenSecret is empty" in refused.stderr, refused.stderr
    for extra in (
        ["--set", "defaults.mlflowTokenSecret=mlflow-writer"],
        ["--set", "defaults.mlflowAnonymous=true"],
    ):
        rendered = Rendered(helm.template(VALUES / "default.yaml", extra=[*server, *extra]))
        assert (
            from_environment(env_of(rendered, "assay-system")).default_mlflow_uri
            == "http://mlflow.mlflow.svc:5000"
        )
    local = Rendered(
        helm.template(VALUES / "default.yaml", extra=["--set", "defaults.mlflowTrackingUri=sqlite:///m.db"])
    )
    assert from_environment(env_of(local, "assay-system")).default_mlflow_uri == "sqlite:///m.db"  # no server


def test_rbac_is_the_operator_table(helm: Helm) -> None:
    rendered = render(helm, "default")
    role = rendered.one("Role")
    assert role["rules"] == rbac.role_rules()
    binding = rendered.one("RoleBinding")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "assay-operator",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "assay-operator", "namespace": "assay-system"}
    ]
    assert not rendered.operators("ClusterRole") and not rendered.operators("ClusterRoleBinding")
    flat = json.dumps(role["rules"])
    assert '"*"' not in flat and "secrets" not in flat and "pods/exec" not in flat


def test_metrics_service_selects_the_operator_pod(helm: Helm) -> None:
    rendered = render(helm, "default")
    service = rendered.one("Service")
    pod_labels = rendered.one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert service["spec"]["ports"] == [
        {"name": "metrics", "port": 8081, "targetPort": "metrics", "protocol": "TCP"}
    ]


def test_network_policy_selects_exactly_the_judge_pods(helm: Helm) -> None:
    rendered = render(helm, "default")
    policy = rendered.one("NetworkPolicy")
    selector = policy["spec"]["podSelector"]["matchLabels"]
    settings = Settings(runner_image="runner:1")
    snapshots = Snapshots("ev-brain-0123456789", "sha256:0123456789")
    job = build_judge_job(RUNNER_SPEC, "ev", 1, snapshots, settings, 600).body()
    judge_labels = job["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= judge_labels.items()
    assert selector == {
        "app.kubernetes.io/component": "judge",
        "app.kubernetes.io/managed-by": "assay-operator",
    }
    # Not the answer pods: policies add up, and this one opens MLflow (theirs is the operator's, per
    # Evaluation: the gateway and DNS only).
    answers = build_answer_job(RUNNER_SPEC, "ev", 1, snapshots, settings).body()
    assert not selector.items() <= answers["spec"]["template"]["metadata"]["labels"].items()
    # ... and not the operator itself.
    operator_labels = rendered.one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert not selector.items() <= operator_labels.items()
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert policy["spec"]["ingress"] == []
    # Nothing configured: DNS only.
    assert policy["spec"]["egress"] == [
        {"ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}
    ]


# --- other values files -------------------------------------------------------------------------------------


def test_cluster_wide_rbac(helm: Helm) -> None:
    rendered = render(helm, "cluster-wide", namespace="assay")
    assert not rendered.all("Role") and not rendered.all("RoleBinding")
    (role,) = rendered.operators("ClusterRole")
    assert role["metadata"]["name"] == "assay-operator-assay"
    assert role["rules"] == rbac.role_rules()
    binding = rendered.one("ClusterRoleBinding")
    assert (
        binding["roleRef"]["kind"] == "ClusterRole" and binding["roleRef"]["name"] == "assay-operator-assay"
    )
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "assay-operator", "namespace": "assay"}]
    assert env_of(rendered, "assay")["ASSAY_NAMESPACES"] == "team-a,team-b"
    assert from_environment(env_of(rendered, "assay")).namespaces == ("team-a", "team-b")
    # Runner pods run where the Evaluations are: a NetworkPolicy in each watched namespace.
    assert sorted(p["metadata"]["namespace"] for p in rendered.all("NetworkPolicy")) == ["team-a", "team-b"]


def test_namespaced_rbac_in_each_watched_namespace(helm: Helm) -> None:
    rendered = render(helm, "openshift", namespace="assay")
    roles = rendered.all("Role")
    assert sorted(r["metadata"]["namespace"] for r in roles) == ["assay-canary", "assay-evals"]
    assert all(r["rules"] == rbac.role_rules() for r in roles)
    for binding in rendered.all("RoleBinding"):
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": "assay-operator", "namespace": "assay"}
        ]
    assert not rendered.operators("ClusterRole")


def test_service_monitor(helm: Helm) -> None:
    rendered = render(helm, "service-monitor")
    monitor = rendered.one("ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    service = rendered.one("Service")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert monitor["spec"]["endpoints"] == [
        {"port": "metrics", "path": "/metrics", "interval": "15s", "scrapeTimeout": "10s"}
    ]
    assert service["spec"]["ports"][0]["port"] == 9090
    assert {p["name"]: p["containerPort"] for p in container(rendered)["ports"]}["metrics"] == 9090
    assert env_of(rendered, "assay-system")["ASSAY_METRICS_PORT"] == "9090"


def test_service_monitor_needs_the_service(helm: Helm) -> None:
    result = helm.run(
        "template",
        "assay",
        str(CHART),
        "--values",
        str(VALUES / "service-monitor.yaml"),
        "--set",
        "metrics.service.enabled=false",
        check=False,
    )
    assert result.returncode != 0
    assert "metrics.serviceMonitor.enabled needs metrics.service.enabled" in result.stderr


def test_network_policy_with_cidrs_and_selectors(helm: Helm) -> None:
    rendered = render(helm, "network-cidrs")
    policy = rendered.one("NetworkPolicy")
    dns, gateway, mlflow = policy["spec"]["egress"]
    # The operator gets the same gateway, for the answer pods' policy of each Evaluation (never MLflow).
    env = env_of(rendered, "assay-system")
    peers = from_environment(env).gateway_network
    assert peers.cidrs == ("203.0.113.0/24", "2001:db8::/32") and peers.ports == (443, 4000)
    assert env["ASSAY_ANSWER_NETWORK_POLICY"] == "true" and "mlflow" not in env["ASSAY_GATEWAY_NETWORK"]
    assert dns == {"ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}
    assert gateway == {
        "to": [{"ipBlock": {"cidr": "203.0.113.0/24"}}, {"ipBlock": {"cidr": "2001:db8::/32"}}],
        "ports": [{"protocol": "TCP", "port": 443}, {"protocol": "TCP", "port": 4000}],
    }
    # One peer with both selectors: pods labelled mlflow in the namespace named mlflow (an AND, not an OR).
    assert mlflow == {
        "to": [
            {
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "mlflow"}},
                "podSelector": {"matchLabels": {"app.kubernetes.io/name": "mlflow"}},
            }
        ],
        "ports": [{"protocol": "TCP", "port": 5000}],
    }


def test_openshift_values(helm: Helm) -> None:
    rendered = render(helm, "openshift", namespace="assay")
    policies = rendered.all("NetworkPolicy")
    assert len(policies) == 2
    for policy in policies:
        dns_ports = policy["spec"]["egress"][0]["ports"]
        assert {(p["protocol"], p["port"]) for p in dns_ports} == {
            (proto, port) for proto in ("UDP", "TCP") for port in (53, 5353)
        }
        gateway_peer = policy["spec"]["egress"][1]["to"]
        assert gateway_peer == [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ai-gateway"}}}
        ]
    main = container(rendered)
    assert main["image"] == (
        "image-registry.openshift-image-registry.svc:5000/assay/assay-operator@sha256:" + "1" * 64
    )
    settings = from_environment(env_of(rendered, "assay"))
    assert settings.runner_image.endswith("/assay-runner@sha256:" + "2" * 64)
    assert settings.default_gateway == "http://litellm.ai-gateway.svc:4000/v1"
    assert settings.default_mlflow_uri == "http://mlflow.mlflow.svc:5000"
    assert settings.namespaces == ("assay-evals", "assay-canary")


# --- values and their schema --------------------------------------------------------------------------------


def leaf_paths(node: Any, prefix: str = "") -> set[str]:
    if isinstance(node, dict) and node:
        return {
            p for key, value in node.items() for p in leaf_paths(value, f"{prefix}.{key}" if prefix else key)
        }
    return {prefix}


def schema_paths(schema: Obj, root: Obj, prefix: str = "") -> set[str]:
    if "$ref" in schema:
        schema = root["definitions"][schema["$ref"].rsplit("/", 1)[-1]]
    properties = schema.get("properties")
    if schema.get("type") != "object" or not properties:
        return {prefix}
    nested = (
        schema_paths(sub, root, f"{prefix}.{key}" if prefix else key) for key, sub in properties.items()
    )
    return {prefix}.union(*nested)


def test_every_value_has_a_comment_and_a_schema() -> None:
    """A comment right above each value, or above the object it belongs to (`resources:` is one value)."""
    text = (CHART / "values.yaml").read_text()
    lines = text.splitlines()
    uncommented = []
    commented_parents: list[tuple[int, bool]] = []  # (indent, has a comment) of the enclosing keys
    for number, line in enumerate(lines):
        match = re.match(r"^(\s*)([A-Za-z]\w*):\s*(\S.*)?$", line)
        if not match:
            continue
        indent = len(match.group(1))
        commented_parents = [(i, c) for i, c in commented_parents if i < indent]
        above = lines[number - 1] if number else ""
        commented = bool(re.match(rf"^{match.group(1)}# \S", above))
        if match.group(3) and not commented and not any(c for _, c in commented_parents):
            uncommented.append(f"line {number + 1}: {line.strip()}")
        commented_parents.append((indent, commented))
    assert uncommented == []
    schema = json.loads((CHART / "values.schema.json").read_text())
    values = yaml.safe_load(text)
    covered = schema_paths(schema, schema)
    assert leaf_paths(values) - covered == set()
    # and every object in the schema is closed
    for path, node in walk(schema):
        if isinstance(node, dict) and node.get("type") == "object" and "properties" in node:
            assert node.get("additionalProperties") is False, path


SCHEMA_REJECTS = [
    (["--set", "replicas=2"], "at '': additional properties 'replicas' not allowed"),
    (["--set", "networkPolicy.openshiftDNS=true"], "additional properties 'openshiftDNS' not allowed"),
    (["--set", "rbac.clusterwide=true"], "additional properties 'clusterwide' not allowed"),
    (["--set", "jobs.backoffLimit=abc"], "at '/jobs/backoffLimit': got string, want integer"),
    (["--set", "jobs.backoffLimit=7"], "at '/jobs/backoffLimit'"),
    (["--set", "image.pullPolicy=Sometimes"], "at '/image/pullPolicy'"),
    (["--set", "rbac.create=yes"], "at '/rbac/create': got string, want boolean"),
    (["--set", "watchNamespaces[0]=Team_A"], "at '/watchNamespaces/0'"),
    (["--set", "runner.image.digest=sha256:nothex"], "at '/runner/image/digest'"),
    (["--set", "metrics.port=80"], "at '/metrics/port'"),
    (["--set", "networkPolicy.gateway.cidrs[0]=gateway.example.com"], "at '/networkPolicy/gateway/cidrs/0'"),
    (["--set", "networkPolicy.mlflow.ports=null"], "networkPolicy/mlflow"),
    (
        ["--set-json", 'metrics.serviceMonitor.labels={"release":1}'],
        "at '/metrics/serviceMonitor/labels/release'",
    ),
    (["--set", "defaults.gateway=litellm:4000"], "at '/defaults/gateway'"),
    (["--set", "defaults.mlflowTokenSecret=Not_A_Name"], "at '/defaults/mlflowTokenSecret'"),
    (
        ["--set-json", 'operator.tolerations=[{"key":"a","effect":"Sometimes"}]'],
        "at '/operator/tolerations/0",
    ),
]


@pytest.mark.parametrize(("args", "message"), SCHEMA_REJECTS, ids=[a[1] for a, _ in SCHEMA_REJECTS])
def test_schema_rejects_typos_and_wrong_types(helm: Helm, args: list[str], message: str) -> None:
    result = helm.run("template", "assay", str(CHART), *args, check=False)
    assert result.returncode != 0, f"accepted: {args}"
    assert "values don't meet the specifications of the schema" in result.stderr
    assert message in result.stderr, result.stderr


def test_schema_accepts_every_values_file(helm: Helm) -> None:
    for path in sorted(VALUES.glob("*.yaml")):
        assert helm.template(path)


# --- generated files ----------------------------------------------------------------------------------------


def test_chart_files_have_not_drifted() -> None:
    generator = load_script("gen_chart_files")
    assert generator.drift() == [], "run python scripts/gen_chart_files.py"
    sources = sorted(p.name for p in (ROOT / "crds").glob("*.yaml"))
    assert sources == ["assay.dev_campaigns.yaml", "assay.dev_evaluations.yaml"]
    assert sorted(p.name for p in (CHART / "crds").glob("*.yaml")) == sources
    for name in sources:
        assert (CHART / "crds" / name).read_text().endswith((ROOT / "crds" / name).read_text())


def test_drift_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generator = load_script("gen_chart_files")
    stale = tmp_path / "operator-rules.yaml"
    stale.write_text(generator.rules_yaml().replace("delete", ""))
    monkeypatch.setattr(generator, "RULES", stale)
    diffs = generator.drift()
    assert len(diffs) == 1 and "+  verbs: [create, get, list, watch, delete]" in diffs[0]


def test_the_chart_renders_the_rule_with_its_thresholds(helm: Helm) -> None:
    text = helm.template(
        extra=[
            "--set",
            "metrics.prometheusRule.enabled=true,metrics.prometheusRule.severity=critical",
            "--set",
            "metrics.prometheusRule.blockedWindow=6h",
            "--set-json",
            "metrics.prometheusRule.blockedRatio=0.25",
            "--show-only",
            "templates/prometheusrule.yaml",
        ]
    )
    rule = yaml.safe_load(text)
    by_name = {r["alert"]: r for r in rule["spec"]["groups"][0]["rules"]}
    assert (
        "> 0.25" in by_name["AssayBlockedRateHigh"]["expr"]
        and "[6h]" in by_name["AssayBlockedRateHigh"]["expr"]
    )
    assert {r["labels"]["severity"] for r in by_name.values()} == {"critical"}
    assert rule["metadata"]["namespace"] == "assay-system"


def test_two_replicas_elect_a_leader_spread_and_keep_one(helm: Helm) -> None:
    rendered = render(helm, "ha")
    deployment = rendered.one("Deployment")
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0},
    }
    env = env_of(rendered, "assay-system")
    settings = from_environment({**env, "POD_NAMESPACE": "assay-system"})
    assert settings.leader_election and settings.lease_seconds == 6 and settings.all_namespaces
    names = [e["name"] for e in container(rendered)["env"]]
    assert "POD_NAME" in names
    pod = deployment["spec"]["template"]["spec"]
    term = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert term["podAffinityTerm"]["labelSelector"]["matchLabels"].items() <= pod_labels(deployment).items()
    pdb = rendered.one("PodDisruptionBudget")
    assert pdb["spec"]["minAvailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"].items() <= pod_labels(deployment).items()
    # The Lease permission, only in the release namespace; the reconciling rules cluster-wide.
    lease_role = next(
        r for r in rendered.all("Role") if r["metadata"]["name"] == "assay-operator-leader-election"
    )
    assert lease_role["metadata"]["namespace"] == "assay-system"
    assert lease_role["rules"] == rbac.leader_election_rules()
    assert rendered.operators("ClusterRole")[0]["rules"] == rbac.role_rules()


def test_one_replica_has_no_election_no_budget(helm: Helm) -> None:
    rendered = render(helm, "default")
    assert not rendered.all("PodDisruptionBudget")
    assert [r["metadata"]["name"] for r in rendered.all("Role")] == ["assay-operator"]
    assert "ASSAY_LEADER_ELECTION" not in env_of(rendered, "assay-system")
    assert "affinity" not in rendered.one("Deployment")["spec"]["template"]["spec"]


def pod_labels(deployment: Obj) -> dict[str, str]:
    labels: dict[str, str] = deployment["spec"]["template"]["metadata"]["labels"]
    return labels
