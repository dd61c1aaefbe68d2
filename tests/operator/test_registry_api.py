"""The registry requests the operator's verifier and the development cluster's puller share: one
repository's URLs and headers, and the answer to an anonymous bearer-token challenge (the registry cases,
where a real registry answers, are tests/registry)."""

from __future__ import annotations

from assay_operator.registry_api import RepositoryAuth, sha256_digest


def test_urls_and_headers_carry_the_token_once_had() -> None:
    auth = RepositoryAuth("registry.example:5000", "team/assay-runner")
    assert auth.url("manifests/v1") == "https://registry.example:5000/v2/team/assay-runner/manifests/v1"
    assert auth.headers() == {}
    assert auth.headers("application/json") == {"Accept": "application/json"}
    assert auth.take_token(b'{"access_token": "t0k"}')
    assert auth.headers("application/json") == {"Authorization": "Bearer t0k", "Accept": "application/json"}


def test_a_bearer_challenge_asks_for_a_pull_token_once() -> None:
    auth = RepositoryAuth("registry.example", "team/runner")
    challenge = 'Bearer realm="https://auth.example/token",service="registry.example"'
    assert auth.token_request(challenge) == (
        "https://auth.example/token",
        {"service": "registry.example", "scope": "repository:team/runner:pull"},
    )
    scoped = 'bearer realm="https://auth.example/token",scope="repository:other:pull",error="x"'
    assert auth.token_request(scoped) == ("https://auth.example/token", {"scope": "repository:other:pull"})
    assert auth.take_token(b'{"token": "abc"}')
    assert auth.token_request(challenge) is None  # asked once: a second challenge is a refusal


def test_no_token_to_ask_for() -> None:
    auth = RepositoryAuth("registry.example", "team/runner")
    assert auth.token_request('Basic realm="registry"') is None
    assert auth.token_request('Bearer service="registry.example"') is None
    assert not auth.take_token(b'{"token": ""}')
    for unreadable in (b"<html>busy</html>", b'["t0k"]', b'{"token": 42}'):  # a token service's bad day
        assert not auth.take_token(unreadable)
    assert auth.token is None


def test_sha256_digest() -> None:
    assert sha256_digest(b"") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
