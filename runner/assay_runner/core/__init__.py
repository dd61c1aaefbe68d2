"""The scoring core, pure: verdicts to scores, the gate, repetition figures, the summary, the decision."""
