"""The steps that touch the cluster for an Evaluation: start a run, judge it, finish it, report a pod that
cannot start, follow Kueue's admission, record an override, write the status. Each composes the pure
builders (build/) and readers (read/)."""
