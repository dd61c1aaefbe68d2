"""The runner pod's layout, shared by the RunConfig (which names paths) and the Job (which mounts them).

The pod has two phases with a trust boundary between them (docs/trust-model.md):
- init container `answer` (`assay answer`): the agents, with the brain, the suite's public part (questions,
  judges, KB) and the gateway token; it writes the answers tree into the `answers` emptyDir. The answer keys
  are never mounted here, and an emptyDir covers the image's bundled examples when the agent runs code.
- container `runner` (`assay score`): the judges, with the answer keys, the answers (read-only), the
  judge's gateway token and the MLflow token; it runs no agent and writes the RunSummary.
A bundled suite is split inside the pod by a first init container `split` (runner code, no agent) into two
emptyDirs, one per phase.
"""

from __future__ import annotations

BRAIN_DIR, SUITE_DIR, KEY_DIR, KB_DIR, RUN_DIR = (
    "/etc/assay/brain",
    "/etc/assay/suite",
    "/etc/assay/key",
    "/etc/assay/kb",
    "/etc/assay/run",
)
SECRETS_DIR = "/etc/assay/secrets"
WORK_DIR, TMP_DIR = "/work", "/tmp"
ANSWERS_DIR = f"{WORK_DIR}/answers"
RUN_CONFIG_KEY = "config.json"
"""The judge phase's RunConfig (with the keys); the answer phase reads ANSWER_CONFIG_KEY (without)."""
ANSWER_CONFIG_KEY = "answer.json"
TERMINATION_LOG = "/dev/termination-log"
ANSWER_CONTAINER, JUDGE_CONTAINER, SPLIT_CONTAINER = "answer", "runner", "split"
