"""The Evaluation kind: its API models, the pure builders of its children (names, snapshots, runconfig,
job), the pure status reconciler and the kopf handlers that glue them to the cluster."""
