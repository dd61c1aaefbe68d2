"""The Evaluation kind, in layers (lowest first; each imports only the ones beneath it, kept by
tests/operator/test_layers.py):

- `api`: the resource's typed spec and status, the admission checks on them;
- `build/`: pure builders of its children (names, pod layout, snapshots, the suite split, queueing, pods,
  sidecar, Jobs, claim, egress, RunConfigs);
- `read/`: pure readers of what the cluster shows (a Job's outcome, the answers' state, why a pod cannot
  start, progress, the status reduction, the metrics' view);
- `steps/`: what reads, creates and patches on the cluster (start a run, judge, finish, pod start, Kueue
  admission, overrides, the status write), each handed the one typed view of the Evaluation its event
  shows (`steps/watched.py`);
- `handlers`: the kopf handlers that say which cluster change starts which step.
"""
