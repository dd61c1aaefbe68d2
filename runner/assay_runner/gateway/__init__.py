"""Model calls through an OpenAI-compatible gateway: the HTTP client, cassettes, usage and cost."""
