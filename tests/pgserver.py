"""A real PostgreSQL server for the tests: initdb + pg_ctl in a temporary folder, Unix socket only.

Imported by conftest.py for its fixtures:

- ``postgres_server`` (session): starts one server for the whole run and
  stops it at the end. It finds the binaries under
  ``/usr/lib/postgresql/*/bin`` (Debian's ``postgresql`` package, which
  ``.ci/run`` installs) or on ``PATH``; without them the tests FAIL with a
  message saying what to install -- a Postgres test is never skipped.
- ``pg_url`` (function): a fresh, empty database on that server and its URL.
- ``store_url`` (function, parametrised ``sqlite`` / ``postgres``): what a
  store test opens, so every store test runs on both backends.

initdb and postgres refuse to run as root, and CI runs as root: then both
run as the unprivileged ``postgres`` user (created by the Debian package)
through ``runuser``, in a folder owned by it. The server listens on no TCP
port at all (``listen_addresses=''``); the socket lives in the temporary
folder. ``fsync=off``: the tests kill *clients* mid-commit, never the
server, so durability of the server's own files is not what they check,
and the shared machine is spared the disk flushes.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

RUN_AS = "postgres"


def find_bindir() -> Path | None:
    """The newest Debian PostgreSQL bin folder, else the folder of ``initdb`` on PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", RUN_AS, "--", *cmd]


def _free_port() -> int:
    # Only names the socket file (.s.PGSQL.<port>); no TCP listener is opened.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    bindir: Path
    root: Path
    port: int
    user: str = "memvet"

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@/{database}?host={self.socket_dir}&port={self.port}"

    def run(self, *cmd: str) -> subprocess.CompletedProcess:
        return subprocess.run(_as_server_user([str(self.bindir / cmd[0]), *cmd[1:]]), capture_output=True,
                              text=True, timeout=120)

    def start(self) -> None:
        data = self.root / "data"
        self.socket_dir.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.root, RUN_AS)
            shutil.chown(self.socket_dir, RUN_AS)
        init = self.run("initdb", "-D", str(data), "-U", self.user, "--auth=trust", "-E", "UTF8",
                        "--locale=C", "--no-sync")
        assert init.returncode == 0, init.stderr
        opts = (f"-c listen_addresses='' -c unix_socket_directories={self.socket_dir} -p {self.port} "
                "-c fsync=off -c max_connections=60")
        started = self.run("pg_ctl", "-D", str(data), "-l", str(self.root / "server.log"), "-o", opts, "-w",
                           "-t", "60", "start")
        assert started.returncode == 0, started.stderr + self.log()

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.root / "data"), "-m", "fast", "-w", "stop")

    def log(self) -> str:
        path = self.root / "server.log"
        return path.read_text("utf-8", "replace")[-4000:] if path.exists() else ""


@pytest.fixture(scope="session")
def postgres_server():
    bindir = find_bindir()
    if bindir is None:
        pytest.fail("PostgreSQL binaries not found (initdb under /usr/lib/postgresql/*/bin or on PATH): "
                    "apt-get install postgresql (.ci/run does this)", pytrace=False)
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.fail("running as root needs runuser to start PostgreSQL as the postgres user", pytrace=False)
    root = Path(tempfile.mkdtemp(prefix="memvet-pg-"))
    server = PgServer(bindir, root, _free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


_numbers = itertools.count(1)


@pytest.fixture
def pg_url(postgres_server):
    import psycopg

    name = f"t{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(postgres_server.url("postgres"), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.url(name)
    with psycopg.connect(postgres_server.url("postgres"), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request, tmp_path):
    """The store a backend-parametrised test opens: a SQLite path in a fresh folder, or a fresh database."""
    if request.param == "sqlite":
        return str(tmp_path / "deep" / "memory.db")
    return request.getfixturevalue("pg_url")
