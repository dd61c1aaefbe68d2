"""Metering the agents' model traffic: a loopback proxy, the upstream's usage, the budget, recordings."""
