"""``memvet review``: the page's API over real loopback HTTP, and the workflow in real headless Chromium.

Both run on both backends (``store_url``: SQLite and a real PostgreSQL
server). Set ``MEMVET_REVIEW_SCREENSHOT=docs/review.png`` to write the
screenshot the docs show (otherwise it goes to a temporary folder).
"""

from __future__ import annotations

import json
import os
import re
import urllib.request

import pytest

from memvet.store import open_store
from review_harness import HOSTILE, HOSTILE_NS, RunningServer, chromium, drop_profile, fill_store, fresh_profile, post


@pytest.fixture
def filled(store_url):
    fill_store(store_url)
    return store_url


def _get(url: str) -> tuple[int, object, str]:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.headers, r.read().decode("utf-8")   # headers: case-insensitive


def test_items_carry_kind_namespace_evidence_codes_and_the_conflicting_memory(filled):
    with RunningServer(filled) as srv:
        status, headers, page = _get(srv.url)
        assert status == 200 and headers["X-Frame-Options"] == "DENY"
        nonce = re.search(r"script-src 'nonce-([^']+)'", headers["Content-Security-Policy"]).group(1)
        assert f'<script nonce="{nonce}">' in page and srv.token in page
        _, _, body = _get(srv.url + "api/items")
        data = json.loads(body)
    items = {m["id"]: m for m in data["items"]}
    assert sorted(items) == ["f-1", "f-2", "f-3", "f-4"]
    # W003 wrote it pending; G002 adds a low-confidence warning (figures only the
    # assistant gave), and so does G004 (an assistant-only work_fact): the review page
    # shows every code reported on the memory.
    assert (items["f-2"]["status"], items["f-2"]["codes"]) == ("pending", ["G002", "G004", "W003"])
    assert [e["id"] for e in items["f-2"]["evidence"]] == ["m3"] and "重试 3 次" in items["f-2"]["evidence"][0]["content"]
    assert items["f-3"]["status"] == "conflict" and "W007" in items["f-3"]["codes"]
    assert [c["id"] for c in items["f-3"]["conflicts"]] == ["f-1"]
    assert [c["id"] for c in items["f-1"]["conflicts"]] == ["f-3"]
    assert items["f-4"]["namespace"] == HOSTILE_NS and items["f-4"]["content"] == HOSTILE
    assert data["counts"] == {"pending": 2, "conflict": 2, "invalid": 0}
    assert data["facets"]["codes"] == ["G002", "G004", "W003", "W007"]


def test_filters(filled):
    with RunningServer(filled) as srv:
        def ids(query: str) -> list[str]:
            return [m["id"] for m in json.loads(_get(srv.url + "api/items?" + query)[2])["items"]]

        assert ids("code=W003") == ["f-2"]
        assert ids("status=conflict") == ["f-1", "f-3"]
        assert ids("kind=task_state") == []
        assert ids("namespace=" + urllib.request.quote(HOSTILE_NS)) == ["f-4"]
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(srv.url + "api/items?status=active")
        assert err.value.code == 400


def test_state_changes_need_the_token_json_and_a_loopback_host(filled):
    approve = {"action": "approve", "ids": ["f-2"], "by": "alice"}
    with RunningServer(filled) as srv:
        assert post(srv, approve)[0] == 403                                   # no token
        assert post(srv, approve, token="guess")[0] == 403                    # wrong token
        assert post(srv, "action=approve&ids=f-2", token=srv.token,
                    content_type="application/x-www-form-urlencoded")[0] == 415  # a cross-site form
        assert post(srv, approve, token=srv.token, host="evil.example:80")[0] == 400   # DNS rebinding
        assert post(srv, approve, token=srv.token, host="[::2]:80")[0] == 400         # not our address
        assert post(srv, approve, token=srv.token, host="[::1")[0] == 400             # malformed
        code, body = post(srv, {**approve, "by": " "}, token=srv.token)
        assert code == 400 and "reviewer" in body["error"]
        assert post(srv, {**approve, "action": "delete"}, token=srv.token)[0] == 400
        with open_store(filled) as store:
            assert store.get("f-2")["status"] == "pending"                   # nothing above changed anything
            assert "f-2" not in [m["id"] for m in store.recall(kind="project_fact", query="order-service 重试")]
        # A browser on http://[::1]:port/ sends a bracketed IPv6 Host: it is a loopback name.
        code, body = post(srv, {**approve, "ids": ["nope"]}, token=srv.token, host=f"[::1]:{srv.port}")
        assert code == 200 and [f["id"] for f in body["failed"]] == ["nope"]
        code, body = post(srv, approve, token=srv.token)
        assert code == 200 and body == {"done": [{"id": "f-2", "status": "active"}], "failed": []}
        code, body = post(srv, {"action": "restore", "ids": ["f-2", "nope"], "by": "bob"}, token=srv.token)
        assert code == 200 and [f["id"] for f in body["failed"]] == ["f-2", "nope"]
    with open_store(filled) as store:
        assert store.recall(kind="project_fact", query="order-service 支付接口重试", limit=1)[0]["id"] == "f-2"
        assert [(e["event"], e["actor"]) for e in store.events("f-2")][-1] == ("confirm", "alice")


# --- the page in a real browser -------------------------------------------------------------

@pytest.fixture
def browser():
    profile = fresh_profile()
    driver = chromium(profile)
    try:
        yield driver
    finally:
        driver.quit()
        drop_profile(profile)


def _wait(driver, condition, what: str):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page re-renders after every action: an element read mid-render is simply read again.
    return WebDriverWait(driver, 30, poll_frequency=0.05, ignored_exceptions=(StaleElementReferenceException,)
                         ).until(lambda d: condition(d), message=what)


def _ids(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.get_attribute("data-id") for e in driver.find_elements(By.CSS_SELECTOR, "#list article.item")]


def _listed(driver, ids: list[str]) -> None:
    _wait(driver, lambda d: _ids(d) == ids, f"the list to show {ids}")


def test_review_workflow_in_headless_chromium(filled, browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d = browser
    with RunningServer(filled, reviewer="alice") as srv:
        d.get(srv.url)
        _listed(d, ["f-1", "f-2", "f-3", "f-4"])

        # Hostile text is shown as text: nothing ran, no element was injected.
        hostile = d.find_element(By.CSS_SELECTOR, 'article[data-id="f-4"] .content')
        assert hostile.text == HOSTILE
        assert d.find_element(By.CSS_SELECTOR, 'article[data-id="f-4"] .ns').text == HOSTILE_NS
        assert "window.__pwned=4" in d.find_element(By.CSS_SELECTOR, 'article[data-id="f-4"] ul.evidence').text
        assert d.execute_script("return window.__pwned") is None
        assert d.find_elements(By.CSS_SELECTOR, "#list img, #list svg, #list script, #pwned") == []

        # A conflict is shown side by side with the stored memory it contradicts.
        sides = d.find_elements(By.CSS_SELECTOR, 'article[data-id="f-3"] .side')
        assert len(sides) == 2 and "15 秒" in sides[0].text and "f-1" in sides[1].text and "10 秒" in sides[1].text
        evidence = d.find_element(By.CSS_SELECTOR, 'article[data-id="f-2"] ul.evidence').text
        assert "assistant m3" in evidence and "重试 3 次" in evidence
        shot = os.environ.get("MEMVET_REVIEW_SCREENSHOT") or str(tmp_path / "review.png")
        assert d.save_screenshot(shot) and open(shot, "rb").read(8) == b"\x89PNG\r\n\x1a\n"

        # Approve by button: it leaves the queue and becomes recallable.
        d.find_element(By.CSS_SELECTOR, 'article[data-id="f-2"] button[data-action="approve"]').click()
        _listed(d, ["f-1", "f-3", "f-4"])
        assert "approve: f-2 → active" in d.find_element(By.ID, "status").text
        with open_store(filled) as store:
            assert store.recall(kind="project_fact", query="order-service 支付接口重试", limit=1)[0]["id"] == "f-2"

        # Keyboard: j moves the focus to f-3, "2" keeps the stored value (f-1); f-3 becomes invalid.
        d.find_element(By.CSS_SELECTOR, 'article[data-id="f-1"] .mid').click()   # focus f-1 (not a button)
        ActionChains(d).send_keys("j").perform()
        _wait(d, lambda d: d.find_element(By.CSS_SELECTOR, "article.focused").get_attribute("data-id") == "f-3",
              "focus on f-3")
        ActionChains(d).send_keys("2").perform()
        _listed(d, ["f-4"])
        with open_store(filled) as store:
            assert (store.get("f-1")["status"], store.get("f-3")["status"]) == ("active", "invalid")

        # Filter invalid, restore with "r": back to pending.
        Select(d.find_element(By.ID, "f-status")).select_by_value("invalid")
        _listed(d, ["f-3"])
        d.find_element(By.CSS_SELECTOR, 'article[data-id="f-3"] .content').click()
        ActionChains(d).send_keys("r").perform()
        _listed(d, [])
        Select(d.find_element(By.ID, "f-status")).select_by_value("")
        _listed(d, ["f-3", "f-4"])

        # Bulk: select all, invalidate with a reason.
        d.find_element(By.ID, "reason").send_keys("not a project fact")
        d.find_element(By.ID, "sel-all").click()
        d.find_element(By.ID, "bulk-invalidate").click()
        _listed(d, [])
        assert d.find_element(By.ID, "empty").is_displayed()
    with open_store(filled) as store:
        assert store.get("f-4")["status"] == "invalid"
        trail = [(e["memory_id"], e["event"], e["actor"]) for e in store.events() if e["actor"]]
    assert trail == [("f-2", "confirm", "alice"), ("f-1", "confirm", "alice"), ("f-3", "invalidate", "alice"),
                     ("f-3", "restore", "alice"), ("f-3", "invalidate", "alice"), ("f-4", "invalidate", "alice")]
    with open_store(filled) as store:
        assert [e["detail"].get("reason") for e in store.events("f-4")][-1] == "not a project fact"


# --- the command itself ----------------------------------------------------------------------

def test_memvet_review_command_serves_until_ctrl_c(filled):
    import signal
    import subprocess
    import sys

    cli = "import sys; from memvet.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", cli, "review", "--store", filled, "--port", "0", "--by", "carol"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        if not ("memvet review: http://127.0.0.1:" in line and "(4 waiting" in line):
            proc.kill()  # read the rest only once it has exited: a server that runs on never closes stderr
            pytest.fail(line + proc.stderr.read())
        url = re.search(r"http://\S+", line).group(0)
        _, _, page = _get(url)
        token = re.search(r'name="memvet-token" content="([^"]+)"', page).group(1)
        assert 'value="carol"' in page
        req = urllib.request.Request(url + "api/act", method="POST", data=json.dumps(
            {"action": "approve", "ids": ["f-2"], "by": "carol"}).encode(),
            headers={"Content-Type": "application/json", "X-Memvet-Token": token})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert json.loads(r.read())["done"] == [{"id": "f-2", "status": "active"}]
        proc.send_signal(signal.SIGINT)                     # Ctrl-C
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    with open_store(filled) as store:
        assert store.get("f-2")["status"] == "active" and store.events("f-2")[-1]["actor"] == "carol"


def test_memvet_review_on_a_missing_store_creates_nothing(tmp_path, capsys):
    from memvet.cli import main

    assert main(["review", "--store", str(tmp_path / "no" / "m.db"), "--port", "0"]) == 2
    assert "no store here" in capsys.readouterr().err and not (tmp_path / "no").exists()
