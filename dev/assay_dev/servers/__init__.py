"""Real servers on loopback for tests and demos: a scripted chat-completions gateway, an MLflow server."""
