"""The Campaign kind: its API models, the pure plan and decision, and the kopf handlers."""
