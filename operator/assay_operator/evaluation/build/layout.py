"""The runner pods' layout, shared by the RunConfigs (which name paths) and the Jobs (which mount them).

A run is two Jobs with a trust boundary between them (docs/trust-model.md):
- the answer Job (Indexed, `spec.parallelism` pods), container `answer` (`assay answer`): the agents, with
  the brain, the suite's public part (questions, judges, KB) and the gateway token; each pod writes its
  shard's answers tree onto the generation's claim, mounted at ANSWERS_DIR through SHARD_SUBPATH (it sees
  its own shard only). The answer keys, MLflow and a service-account token are never mounted here, and an
  emptyDir covers the image's bundled examples when the agent runs code.
- the judge Job (one pod), container `judge` (`assay score`): the judges, with the answer keys, every
  shard's answers (the claim's root, read-only), the judge's gateway token and the MLflow token; it runs no
  agent, keeps result.json and the report on the claim (RESULT_SUBPATH, mounted at OUTPUT_DIR) and writes
  the RunSummary to its termination message.
A bundled suite, or one pulled from an OCI registry by digest (`suite.oci`), is split inside each pod by a
first init container `split` (runner code, no agent; for `suite.oci` the only container holding the
install's registry CA and credentials) into two emptyDirs, one per part; the answer container mounts only the
public one.
A suite with conversational tickets has a third part, its customers (each such ticket's `conversation`,
nothing else of its key): mounted at CUSTOMER_DIR into the answer container alone, where its runner plays
the customers and no agent's sandbox grants it (the runner refuses an agent program there without the
kernel's sandbox). The judge reads the customers in the key.
"""

from __future__ import annotations

from assay_runner.contract import CUSTOMERS_FILE, SHARD_DIR, SHARD_INDEX_ENV

BRAIN_DIR, SUITE_DIR, KEY_DIR, KB_DIR, RUN_DIR = (
    "/etc/assay/brain",
    "/etc/assay/suite",
    "/etc/assay/key",
    "/etc/assay/kb",
    "/etc/assay/run",
)
SECRETS_DIR = "/etc/assay/secrets"
REGISTRY_CA_DIR, REGISTRY_AUTH_DIR = "/etc/assay/registry/ca", "/etc/assay/registry/auth"
"""An OCI suite's registry CA bundle and docker config, in the `split` init container only."""
CUSTOMER_DIR = "/etc/assay/customer"
"""The answer container's customers part (a ConfigMap suite's snapshot, or the answer pod's split's emptyDir);
the answer phase's RunConfig always names CUSTOMERS_PATH: no file there is a suite with no conversation."""
EVIDENCE_DIR = "/etc/assay/evidence"
"""The run's evidence key (`EVIDENCE_KEY_FILE`), on the claim (EVIDENCE_SUBPATH): made there by each answer
pod's init container `evidence`, read-only to the answer container (its runner seals the cells with it; the
agents' sandbox grants no path of it) and to the judge, which verifies the seals and authenticates result.json
with it."""
CUSTOMERS_PATH = f"{CUSTOMER_DIR}/{CUSTOMERS_FILE}"
EVIDENCE_KEY_FILE = f"{EVIDENCE_DIR}/key"
EVIDENCE_SUBPATH = ".evidence"
WORK_DIR, TMP_DIR = "/work", "/tmp"
ANSWERS_DIR = f"{WORK_DIR}/answers"
"""Answer pod: its shard's tree. Judge pod: the claim's root, read-only (`shard-<i>/` each)."""
OUTPUT_DIR = f"{WORK_DIR}/out"
"""Judge pod: result.json, summary.json and the report, on the claim (RESULT_SUBPATH)."""
SHARD_SUBPATH = SHARD_DIR.format(index=f"$({SHARD_INDEX_ENV})")
"""Each answer pod's subPathExpr on the claim: the Job controller sets JOB_COMPLETION_INDEX in each pod."""
RESULT_SUBPATH = "result"
RUN_CONFIG_KEY = "config.json"
"""The judge phase's RunConfig (with the keys); the answer phase reads ANSWER_CONFIG_KEY (without)."""
ANSWER_CONFIG_KEY = "answer.json"
TERMINATION_LOG = "/dev/termination-log"
ANSWER_CONTAINER, JUDGE_CONTAINER, SPLIT_CONTAINER = "answer", "judge", "split"
EVIDENCE_CONTAINER = "evidence"
