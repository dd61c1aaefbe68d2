"""Agents: what answers a ticket in a fresh workspace (a command, a CLI preset, the chat agent, replay)."""
