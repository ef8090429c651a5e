"""Shared setup of the review-page tests: a store with something to review, a real server, a real browser.

- :func:`fill_store` commits the two example team batches (a pending memory,
  a conflict) plus a memory whose text, namespace and evidence are hostile
  HTML/JS, through the real ``memvet check --commit`` path.
- :class:`RunningServer` runs ``memvet.store.review.make_server`` in a thread
  on a loopback socket bound to port 0, and stops it.
- :func:`chromium` starts Debian's headless Chromium through Selenium and
  Debian's matching ``chromedriver`` (never a downloaded browser or driver),
  with the flags issue 13 lists and a fresh ``--user-data-dir``.
"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import threading
from pathlib import Path

from memvet.cli import main
from memvet.store import open_store

REPO = Path(__file__).resolve().parents[1]
TEAM = REPO / "examples" / "team"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script></article>\'"&amp; 注入'
HOSTILE_NS = '"><svg onload="window.__pwned=3">'


def fill_store(url: str) -> None:
    for n in (1, 2):
        code = main(["check", str(TEAM / f"answer-{n}.json"), "--context", str(TEAM / f"context-{n}.json"),
                     "--commit", "--store", url])
        assert code == 0
    with open_store(url) as store:
        store.commit({"ok": True, "records": [{
            "content": HOSTILE, "kind": "project_fact", "namespace": HOSTILE_NS, "scope": "repo:default",
            "source": [], "confirmed_by": [], "source_message_ids": ["evil"]}]},
            stream="hostile", cursor=1,
            context={"messages": [{"id": "evil", "sessionKey": "s", "role": "tool", "timestamp": 1,
                                   "content": "</li><b id=pwned>evidence</b><script>window.__pwned=4</script>"}]})


class RunningServer:
    def __init__(self, url: str, reviewer: str = "alice"):
        from memvet.store.review import make_server

        self.store = open_store(url, create=False)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = make_server(self.store, host="127.0.0.1", port=self.port, reviewer=reviewer)
        self.token = self.server.app.state.token
        self.url = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> "RunningServer":
        self.thread.start()
        for _ in range(400):                       # polls, not a time budget: started or failed
            if self.server.started or not self.thread.is_alive():
                break
            threading.Event().wait(0.025)
        assert self.server.started, "the review server did not start"
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()
        self.store.close()


def chromium(user_data_dir: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists(), \
        "Debian's chromium and chromium-driver are needed (.ci/run installs them)"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", f"--user-data-dir={user_data_dir}",
                 "--window-size=1280,1400", "--lang=zh-CN"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def fresh_profile() -> Path:
    return Path(tempfile.mkdtemp(prefix="memvet-chromium-"))


def drop_profile(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def post(server: RunningServer, body: object, *, token: str | None = None, host: str | None = None,
         content_type: str = "application/json") -> tuple[int, dict]:
    """A POST to /api/act over real loopback HTTP (urllib), returning status and JSON body."""
    import urllib.error
    import urllib.request

    headers = {"Content-Type": content_type}
    if token is not None:
        headers["X-Memvet-Token"] = token
    if host is not None:
        headers["Host"] = host
    data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    req = urllib.request.Request(server.url + "api/act", data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw or b"{}")
        except ValueError:
            return exc.code, {"raw": raw.decode("utf-8", "replace")}
