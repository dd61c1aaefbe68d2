"""User code (code judges) run in a worker process of its own: standard library only."""
