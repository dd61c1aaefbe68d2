"""Each cell's agent program in a sandbox the kernel enforces, with no privilege (Landlock)."""
