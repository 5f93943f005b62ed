"""Vendor Swagger UI's built files into ``services/web/static/swagger_ui/`` (``make swagger-ui``).

The API reference (``/schema/reference``, :mod:`services.web.reference`) is Swagger UI served
by the platform itself: no CDN (platforms run behind firewalls) and the site's strict
Content-Security-Policy unchanged. This script fetches the ``swagger-ui-dist`` package from the
npm registry with ``npm pack`` (pinned to :data:`VERSION`), checks its integrity, and writes:

- ``swagger-ui-bundle.js``: as built, less its source-map comment (no map is shipped);
- ``swagger-ui.css``: with each embedded ``data:`` image moved to a file of its own beside it
  (``img-N.svg``...), since the CSP's ``img-src 'self'`` refuses ``data:`` URLs;
- ``LICENSE`` and ``NOTICE`` from the package, and ``VERSION`` saying where it all came from.

Run it again only to move to another version (edit :data:`VERSION` and :data:`INTEGRITY`).
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
from pathlib import Path

PACKAGE = "swagger-ui-dist"
VERSION = "5.35.0"
# the registry's dist.integrity for PACKAGE@VERSION (npm view swagger-ui-dist@5.35.0 dist.integrity)
INTEGRITY = "sha512-U06rpMtW9V3XPGOBeamTUSr0Z09jMX4IJuANpE/EZbAhw0G8CgwrzU4YmXkn/h0wCDNsXdGarTNNHC3sU8yVUQ=="
ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "services" / "web" / "static" / "swagger_ui"
KEEP = ("swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE")
# url("data:image/...") with backslash-escaped quotes inside, or url(data:image/...) unquoted
DATA_URL = re.compile(
    r'url\("data:image/(svg\+xml|png|jpeg)((?:[^"\\]|\\.)*)"\)'
    r"|url\(data:image/(svg\+xml|png|jpeg)([^)\"]*)\)"
)
SUFFIX = {"svg+xml": "svg", "png": "png", "jpeg": "jpg"}


def fetch(workdir: Path) -> tuple[Path, str]:
    """``npm pack`` PACKAGE@VERSION into ``workdir``: the tarball and its sha512 integrity."""
    subprocess.run(
        ["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(workdir)],
        check=True,
        capture_output=True,
    )
    tarball = next(workdir.glob("*.tgz"))
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    return tarball, f"sha512-{digest}"


def image_bytes(rest: str) -> bytes:
    """The bytes of a ``data:image/KIND`` URL from what follows KIND: ``[;PARAM...],DATA``."""
    params, _, data = rest.partition(",")
    if "base64" in params.split(";"):
        return base64.b64decode(data)
    return urllib.parse.unquote(re.sub(r"\\(.)", r"\1", data)).encode()


def externalise(css: str) -> tuple[str, dict[str, bytes]]:
    """``css`` with each ``data:`` image replaced by a relative file name; the files' bytes."""
    files: dict[str, bytes] = {}
    by_content: dict[bytes, str] = {}

    def replace(match: re.Match[str]) -> str:
        kind = match.group(1) or match.group(3)
        body = image_bytes(match.group(2) if match.group(1) else match.group(4))
        name = by_content.get(body)
        if name is None:
            name = f"img-{len(by_content) + 1}.{SUFFIX[kind]}"
            by_content[body] = name
            files[name] = body
        return f"url({name})"

    return DATA_URL.sub(replace, css), files


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tarball, integrity = fetch(work)
        if integrity != INTEGRITY:
            print(f"integrity mismatch: {integrity} != {INTEGRITY}", file=sys.stderr)
            return 1
        with tarfile.open(tarball) as tar:
            tar.extractall(work, filter="data")
        package = work / "package"
        if TARGET.exists():
            shutil.rmtree(TARGET)
        TARGET.mkdir(parents=True)
        for name in KEEP:
            text = (package / name).read_text(encoding="utf-8")
            text = re.sub(r"\n?(//|/\*)# sourceMappingURL=\S+( \*/|\*/)?\s*$", "\n", text)
            if name.endswith(".css"):
                text, images = externalise(text)
                assert "data:" not in text, "a data: URL is left in the CSS"
                for image, body in images.items():
                    (TARGET / image).write_bytes(body)
            (TARGET / name).write_text(text, encoding="utf-8")
        (TARGET / "VERSION").write_text(
            f"{PACKAGE} {VERSION} from the npm registry ({integrity}),\n"
            "vendored by tools/vendor_swagger_ui.py: source-map comments dropped and the CSS's\n"
            "data: images moved to img-*.* files beside it (the CSP refuses data: URLs).\n"
        )
    size = sum(f.stat().st_size for f in TARGET.iterdir())
    print(
        f"{TARGET.relative_to(ROOT)}: {size / 1024:.0f} KiB in {len(list(TARGET.iterdir()))} files"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
