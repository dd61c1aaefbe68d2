"""How the pods of one run find each other's files and sockets: the environment and paths they share."""

SHARD_INDEX_ENV = "JOB_COMPLETION_INDEX"
"""Where an answer pod of an Indexed Job finds its shard (the Job controller sets it)."""
SHARD_DIR = "shard-{index}"
"""The judge phase reads shard i's tree from `answersDir/shard-i` when the answers come in shards."""
GATEWAY_SOCKET_ENV = "ASSAY_GATEWAY_SOCKET"
"""The answer phase reaches the gateway through the gateway sidecar's Unix socket at this path, and then
holds no gateway token (the sidecar does: `assay gateway-sidecar`)."""
GATEWAY_LEDGER_ENV = "ASSAY_GATEWAY_LEDGER_DIR"
"""The judge phase reconciles each answers tree with the gateway sidecar's ledger found here: `ledger.json`
for a whole run's tree, `shard-<i>/ledger.json` for shard i's."""
POD_UID_ENV = "ASSAY_POD_UID"
"""The gateway sidecar's pod (the downward API's metadata.uid): a ledger another pod left (a retried
shard's earlier attempt) is set aside, not carried on."""
