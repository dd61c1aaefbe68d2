"""Pure builders of an Evaluation's children: names and labels, the runner pods' layout, input snapshots, the
suite split, Kueue queueing, the pods, the gateway sidecar, the answer and judge Jobs, the answers claim,
the answer pods' NetworkPolicy and the RunConfigs. Nothing here talks to the cluster."""
