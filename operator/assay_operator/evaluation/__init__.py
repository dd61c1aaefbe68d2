"""The Evaluation kind: its API models, the pure builders of its children, the pure status reconciler and
the kopf handlers that glue them to the cluster."""
