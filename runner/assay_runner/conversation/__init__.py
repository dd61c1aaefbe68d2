"""Conversational tickets: the customer who answers back, and the loop of turns between it and the agent."""
