"""Pure readers of what the cluster shows about an Evaluation's run: a Job's outcome, the answer Job's
shards, why a pod cannot start, the statuses in between and the reduction to the Evaluation's status.
Nothing here talks to the cluster."""
