"""Running an evaluation: cells through agents and judges, and the scheduling that keeps the slots busy."""
