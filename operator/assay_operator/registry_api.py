"""What the operator's image verifier and the development cluster's node puller (assay_dev.cluster.
registry_pull) both say to a registry, apart from the HTTP library each sends it with (urllib3 here, httpx
there): the manifest types asked for, what a digest looks like and hashes to, one repository's URLs and
headers, and the answer to a registry's anonymous bearer-token challenge.
"""

from __future__ import annotations

import hashlib
import json
import re

MANIFEST_TYPES = (
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
CHUNK = 1 << 20
"""How much of a blob is read at a time when it is streamed and hashed."""


def sha256_digest(data: bytes) -> str:
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


class RepositoryAuth:
    """One repository's request URLs and headers, holding the bearer token once a challenge is answered
    (once: a second challenge means the token was refused)."""

    def __init__(self, host: str, repository: str) -> None:
        self.host = host
        self.repository = repository
        self.token: str | None = None

    def url(self, path: str) -> str:
        return f"https://{self.host}/v2/{self.repository}/{path}"

    def headers(self, accept: str | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        if accept:
            headers["Accept"] = accept
        return headers

    def token_request(self, challenge: str) -> tuple[str, dict[str, str]] | None:
        """The realm and query to ask for a pull token answering `challenge` (a 401's WWW-Authenticate);
        None when there is none to ask for (not a bearer challenge, no realm, or a token was had already)."""
        if not challenge.lower().startswith("bearer ") or self.token is not None:
            return None
        fields = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
        if "realm" not in fields:
            return None
        params = {k: v for k, v in fields.items() if k in ("service", "scope")}
        params.setdefault("scope", f"repository:{self.repository}:pull")
        return fields["realm"], params

    def take_token(self, answer: bytes) -> bool:
        """Keep the token of the token service's answer (its JSON body); False when it holds none."""
        try:
            body = json.loads(answer)
        except ValueError:
            return False
        found = (body.get("token") or body.get("access_token")) if isinstance(body, dict) else None
        self.token = found if isinstance(found, str) and found else None
        return self.token is not None
