#!/usr/bin/env python3
"""Drives the Devtools web inspector in a headless Chromium over the Chrome DevTools Protocol and checks it.

Started by `.ci/devtools-browser-test`, which builds and starts the example program and Chromium (and stops both);
this driver only talks to Chromium's debugging port and reads the example's standard output from a file.

The checks (each polls the page until it holds, with a deadline that only guards against a hang):
  a. the keys are listed (`query:["todos"]`, `query:["flaky"]` and a key that is no query);
  b. a status change appears live: the `query:["flaky"]` row shows "success" and "error" without a reload;
  c. an invalidation started from the page reaches the program: a new `fetched ["todos"] #N` line, and the
     timeline shows the invalidation;
  d. finding a key: a word finds the keys that hold it anywhere, a status hides the others, the header counts them;
  e. the keyboard alone: Tab reaches the list, the arrow keys select, Enter reaches the actions and performs one;
  f. the mutations view lists recent runs with their arguments, status, duration, error and meta;
  f2. a query's detail shows its meta and its three dates ("data from", "last error", "last change");
  g. the value explorer collapses, expands, and copies a path and a value;
then a screenshot of the page with a query selected; then
  h. a phone-width window (375 px): nothing overflows, the status menu, timeline, mutations and actions are reachable;
  i. the program stopped (SIGTERM, with --example-pid): the page says since when it is disconnected; started again
     (with --example-binary), the page is live again with the new program's events.
Python's standard library only.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import signal
import socket
import struct
import sys
import time
import subprocess
import urllib.parse
import urllib.request


class CheckFailed(Exception):
    """A check did not hold (or the browser could not be driven); the message says which and what was seen."""


# MARK: - A small WebSocket client (RFC 6455), enough for the DevTools protocol: text frames, pings, close.


class WebSocket:
    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout):
        match = re.fullmatch(r"ws://([^/:]+):(\d+)(/.*)", url)
        if not match:
            raise CheckFailed(f"unexpected DevTools WebSocket address: {url}")
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        # No Origin header: Chromium accepts a client without one (it checks the origin of pages only).
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CheckFailed("Chromium closed the DevTools connection during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise CheckFailed(f"the DevTools WebSocket handshake failed: {lines[0]}")
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
        expected = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        if headers.get("sec-websocket-accept") != expected:
            raise CheckFailed("the DevTools WebSocket handshake returned a wrong Sec-WebSocket-Accept")

    def _read_exactly(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(max(65536, count - len(self.buffer)))
            if not chunk:
                raise CheckFailed("Chromium closed the DevTools connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        mask = os.urandom(4)
        # Masks four bytes at a time through a whole-number XOR (the payload padded to a multiple of four).
        padded = payload + b"\0" * (-length % 4)
        words = int.from_bytes(padded, "big") ^ int.from_bytes(mask * (len(padded) // 4), "big")
        masked = words.to_bytes(len(padded), "big")[:length] if padded else b""
        self.sock.sendall(header + mask + masked)

    def send_text(self, text):
        self._send_frame(0x1, text.encode())

    def receive_text(self):
        """The next text message (joined from its fragments); answers pings on the way."""
        message = b""
        while True:
            first, second = self._read_exactly(2)
            fin, opcode = first & 0x80, first & 0x0F
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._read_exactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._read_exactly(8))
            mask = self._read_exactly(4) if second & 0x80 else None
            payload = self._read_exactly(length)
            if mask:
                payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
            if opcode == 0x8:
                raise CheckFailed("Chromium closed the DevTools connection")
            if opcode == 0x9:
                self._send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if fin:
                return message.decode()

    def set_timeout(self, seconds):
        self.sock.settimeout(max(seconds, 0.01))

    def close(self):
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


# MARK: - The DevTools protocol over that WebSocket.


class DevTools:
    def __init__(self, websocket_url, command_timeout):
        self.command_timeout = command_timeout
        self.ws = WebSocket(websocket_url, command_timeout)
        self.next_id = 0
        self.page_errors = []  # uncaught exceptions and console errors of the page, as text

    def command(self, method, **params):
        self.next_id += 1
        ident = self.next_id
        self.ws.send_text(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + self.command_timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CheckFailed(f"Chromium did not answer {method} within {self.command_timeout:.0f} s")
            self.ws.set_timeout(remaining)
            try:
                message = json.loads(self.ws.receive_text())
            except socket.timeout:
                continue
            if message.get("id") == ident:
                if "error" in message:
                    raise CheckFailed(f"{method} failed: {message['error'].get('message')}")
                return message.get("result", {})
            self._event(message)

    def _event(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "exception")
            self.page_errors.append(f"uncaught: {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            self.page_errors.append(f"console.error: {text}")

    def evaluate(self, expression):
        """Evaluates `expression` in the page and returns its value (JSON); an exception in it fails the test."""
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CheckFailed(f"a script of the test threw in the page: {text}")
        return result.get("result", {}).get("value")


# MARK: - Helpers on the page.


def js(value):
    """A JavaScript literal for a Python string, list or number."""
    return json.dumps(value)


ROW_STATE = """
(() => {
  const visible = (element) => element.isConnected && element.getClientRects().length > 0
    && getComputedStyle(element).visibility !== 'hidden';
  return Array.from(document.querySelectorAll('#key-list .key-row')).map((row) => ({
    id: row.dataset.keyId, kind: row.dataset.kind, status: row.dataset.status, visible: visible(row),
  }));
})()
"""


class Page:
    def __init__(self, devtools, timeout, started):
        self.devtools = devtools
        self.timeout = timeout
        self.started = started

    def elapsed(self):
        return f"{time.monotonic() - self.started:5.1f} s"

    def wait_for(self, description, expression, timeout=None):
        """Evaluates `expression` until it is truthy; returns that value. The deadline only guards against a hang."""
        deadline = time.monotonic() + (timeout or self.timeout)
        last = None
        while True:
            last = self.devtools.evaluate(expression)
            if last:
                return last
            if time.monotonic() > deadline:
                raise CheckFailed(f"{description}: not seen within {timeout or self.timeout:.0f} s (last: {json.dumps(last)})")
            time.sleep(0.1)

    def rows(self):
        return self.devtools.evaluate(ROW_STATE)

    def click(self, description, element_expression):
        """Clicks the element's center with the mouse, as a user would (after scrolling it into view)."""
        x, y = self.reachable(description, element_expression)
        self.devtools.command("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        self.devtools.command("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", clickCount=1)
        self.devtools.command("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left", clickCount=1)

    def reachable(self, description, element_expression):
        """Scrolls the element into view and checks that a pointer at its center would hit it; returns the center."""
        target = self.devtools.evaluate(
            f"""
(() => {{
  const element = {element_expression};
  if (!element) return {{ missing: true }};
  element.scrollIntoView({{ block: 'center', inline: 'center' }});
  const rect = element.getBoundingClientRect();
  const x = rect.left + rect.width / 2, y = rect.top + rect.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {{ x, y, width: rect.width, height: rect.height, reachable: !!hit && (hit === element || element.contains(hit)),
            hit: hit ? hit.outerHTML.slice(0, 160) : null }};
}})()
"""
        )
        if not target or target.get("missing"):
            raise CheckFailed(f"{description}: no such element")
        if not target["width"] or not target["height"] or not target["reachable"]:
            raise CheckFailed(f"{description}: the element cannot be clicked (size {target['width']}x{target['height']}, "
                              f"under the pointer: {target['hit']})")
        return target["x"], target["y"]


def row_expression(key_id):
    return f"Array.from(document.querySelectorAll('#key-list .key-row')).find((row) => row.dataset.keyId === {js(key_id)})"


def todos_fetches(output_path):
    """The numbers N of the `fetched ["todos"] #N` lines the example printed so far."""
    with open(output_path, encoding="utf-8", errors="replace") as output:
        return [int(number) for number in re.findall(r'^fetched \["todos"\] #(\d+)\s*$', output.read(), re.MULTILINE)]


# MARK: - The checks.

TODOS = 'query:["todos"]'
FLAKY = 'query:["flaky"]'
WORD = "todos"
PROFILE = "inMemory:profile"


def run(arguments):
    started = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{arguments.devtools_port}/json/list", timeout=30) as response:
        targets = json.load(response)
    pages = [target for target in targets if target.get("type") == "page" and "webSocketDebuggerUrl" in target]
    if not pages:
        request = urllib.request.Request(f"http://127.0.0.1:{arguments.devtools_port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=30) as response:
            pages = [json.load(response)]
    devtools = DevTools(pages[0]["webSocketDebuggerUrl"], command_timeout=30)
    page = Page(devtools, arguments.timeout, started)
    try:
        check_page(devtools, page, arguments)
    finally:
        devtools.ws.close()


def check_page(devtools, page, arguments):
    devtools.command("Runtime.enable")
    devtools.command("Page.enable")
    devtools.command("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
    navigation = devtools.command("Page.navigate", url=arguments.url)
    if navigation.get("errorText"):
        raise CheckFailed(f"opening {arguments.url} failed: {navigation['errorText']}")
    page.wait_for("the page loads", "document.readyState === 'complete'")
    page.wait_for("the live connection (#connection[data-state=live])",
                  "document.querySelector('#connection')?.dataset.state === 'live'")
    # A mark on the window: it survives as long as the page is not reloaded.
    marker = base64.b16encode(os.urandom(8)).decode()
    devtools.evaluate(f"window.__browserTestMark = {js(marker)}; true")
    print(f"ok    page open and live ({page.elapsed()}): {arguments.url}", flush=True)

    # a. The keys are listed. (A filter may hide a row or take it out of the list: both count as hidden below.)
    listed = page.wait_for(
        "a. the keys are listed",
        f"""
(() => {{
  const rows = {ROW_STATE};
  const ids = rows.map((row) => row.id);
  const others = rows.filter((row) => row.kind !== 'query').map((row) => row.id);
  return ids.includes({js(TODOS)}) && ids.includes({js(FLAKY)}) && others.length > 0 ? rows : null;
}})()
""",
    )
    print(f"ok a. the keys are listed ({page.elapsed()}): {', '.join(row['id'] for row in listed)}", flush=True)
    # The keys without an operation (no status): the status filter must hide them.
    statusless = [row["id"] for row in listed if not row["status"]]
    if not statusless:
        raise CheckFailed("a. no key without a status (an in-memory or file key) is listed")

    # b. A status change appears live: a mutation observer records each status the flaky row shows.
    devtools.evaluate(
        f"""
(() => {{
  const seen = [];
  const start = performance.now();
  const record = () => {{
    const row = {row_expression(FLAKY)};
    const status = row ? row.dataset.status : '(no row)';
    if (seen.length === 0 || seen[seen.length - 1].status !== status) {{
      seen.push({{ status, at: (performance.now() - start) / 1000 }});
    }}
  }};
  record();
  new MutationObserver(record).observe(document.documentElement,
    {{ subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] }});
  window.__flakyStatuses = seen;
  return true;
}})()
"""
    )
    statuses = page.wait_for(
        "b. the flaky query's row changes to success and to error live",
        """
(() => {
  // Each value is reached by a change seen on the page (the first entry is the status found when it began).
  const values = new Set(window.__flakyStatuses.slice(1).map((entry) => entry.status));
  return values.has('success') && values.has('error') ? window.__flakyStatuses : null;
})()
""",
    )
    if devtools.evaluate("window.__browserTestMark") != marker:
        raise CheckFailed("b. the page was reloaded while the status changed")
    timeline = " -> ".join(f"{entry['status'] or '(none)'} at {entry['at']:.1f} s" for entry in statuses)
    print(f"ok b. a status change appears live, without a reload ({page.elapsed()}): {FLAKY} {timeline}", flush=True)

    # c. An invalidation started from the page reaches the program.
    page.click(f"the {TODOS} row", row_expression(TODOS))
    page.wait_for(f"c. #detail shows {TODOS} once its row is clicked",
                  f"document.querySelector('#detail')?.dataset.keyId === {js(TODOS)}")
    page.wait_for("c. the invalidate button is shown for a query",
                  """
(() => {
  const button = document.querySelector('#detail button[data-action="invalidate"]');
  return !!button && button.getClientRects().length > 0 && !button.disabled;
})()
""")
    timeline_match = (
        f"Array.from(document.querySelectorAll('#timeline .event[data-event=\"invalidated\"]'))"
        f".filter((event) => event.dataset.keyId === {js(TODOS)})"
    )
    # The invalidations of the timeline so far are marked, so that only a new one counts.
    devtools.evaluate(f"{timeline_match}.forEach((event) => {{ event.__seenBefore = true; }}); true")
    before = max(todos_fetches(arguments.example_output), default=0)
    page.click('c. button[data-action="invalidate"]', "document.querySelector('#detail button[data-action=\"invalidate\"]')")
    deadline = time.monotonic() + arguments.timeout
    while not [number for number in todos_fetches(arguments.example_output) if number > before]:
        if time.monotonic() > deadline:
            raise CheckFailed(f"c. no `fetched [\"todos\"] #N` line with N > {before} within {arguments.timeout:.0f} s "
                              "of the click on invalidate")
        time.sleep(0.1)
    after = max(todos_fetches(arguments.example_output))
    page.wait_for(f"c. #timeline shows the invalidation of {TODOS}",
                  f"{timeline_match}.some((event) => !event.__seenBefore)")
    print(f"ok c. an invalidation from the page reaches the program ({page.elapsed()}): "
          f"fetched [\"todos\"] #{before} before the click, #{after} after; the timeline shows it", flush=True)

    # d. Finding a key: a word typed into #filter-key finds the keys that hold it anywhere (a part of a query's key,
    #    not only a prefix of its text), then a status chosen in #filter-status; the header counts the statuses.
    page.click("d. #filter-key", "document.querySelector('#filter-key')")
    devtools.command("Input.insertText", text=WORD)
    page.wait_for("d. #filter-key holds the typed word", f"document.querySelector('#filter-key').value === {js(WORD)}")
    shown = page.wait_for(
        f"d. typing {WORD!r} into #filter-key finds {TODOS} and hides the rows that do not hold it",
        f"""
(() => {{
  const rows = {ROW_STATE};
  const shown = rows.filter((row) => row.visible);
  const ok = shown.length > 0 && shown.every((row) => row.id.toLowerCase().includes({js(WORD)}))
    && shown.some((row) => row.id === {js(TODOS)}) && !shown.some((row) => row.id === {js(FLAKY)});
  return ok ? shown.map((row) => row.id) : null;
}})()
""",
    )
    print(f"ok d. the word {WORD!r} finds the keys that hold it ({page.elapsed()}): shows {', '.join(shown)}", flush=True)
    clear_filter = """
(() => {
  const input = document.querySelector('#filter-key');
  input.value = '';
  input.dispatchEvent(new Event('input', { bubbles: true }));
  return true;
})()
"""
    devtools.evaluate(clear_filter)
    page.wait_for("d. clearing #filter-key shows every row again",
                  f"(() => {{ const rows = {ROW_STATE}; return rows.length >= {len(listed)} && rows.every((row) => row.visible); }})()")
    counts = page.wait_for(
        "d. #status-counts counts the rows of each status",
        f"""
(() => {{
  const rows = {ROW_STATE};
  const counts = {{}};
  for (const item of document.querySelectorAll('#status-counts [data-count-status]')) {{
    counts[item.dataset.countStatus] = Number(item.dataset.count);
  }}
  const ok = ['idle', 'pending', 'success', 'error'].every((status) =>
    counts[status] === rows.filter((row) => row.status === status).length);
  return ok ? counts : null;
}})()
""",
    )
    print(f"ok d. the header counts the statuses ({page.elapsed()}): {json.dumps(counts)}", flush=True)
    devtools.evaluate(
        """
(() => {
  const select = document.querySelector('#filter-status');
  select.value = 'success';
  select.dispatchEvent(new Event('input', { bubbles: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
})()
"""
    )
    shown = page.wait_for(
        "d. choosing 'success' in #filter-status hides the rows of other statuses",
        f"""
(() => {{
  const rows = {ROW_STATE};
  const shown = rows.filter((row) => row.visible);
  const ok = shown.length > 0 && shown.every((row) => row.status === 'success')
    && !shown.some((row) => {js(statusless)}.includes(row.id));
  return ok ? shown.map((row) => row.id) : null;
}})()
""",
    )
    print(f"ok d. the status filter 'success' hides the other rows ({page.elapsed()}): shows {', '.join(shown)}", flush=True)
    devtools.evaluate(
        """
(() => {
  const select = document.querySelector('#filter-status');
  select.value = '';
  select.dispatchEvent(new Event('input', { bubbles: true }));
  select.dispatchEvent(new Event('change', { bubbles: true }));
  return true;
})()
"""
    )
    page.wait_for("d. clearing the filters shows every row again",
                  f"(() => {{ const rows = {ROW_STATE}; return rows.length >= {len(listed)} && rows.every((row) => row.visible); }})()")

    check_keyboard(devtools, page)
    check_mutations(devtools, page)
    check_dates_and_meta(devtools, page)
    check_value_explorer(devtools, page)

    if devtools.evaluate("window.__browserTestMark") != marker:
        raise CheckFailed("the page was reloaded during the checks")
    if devtools.page_errors:
        raise CheckFailed("the page reported errors:\n  " + "\n  ".join(devtools.page_errors))
    print(f"ok    the page reported no errors and was never reloaded ({page.elapsed()})", flush=True)

    # The screenshot: the whole list, with the todos query selected (its detail, history, the mutations and the
    # timeline).
    page.click(f"the {TODOS} row", row_expression(TODOS))
    page.wait_for(f"#detail shows {TODOS}", f"document.querySelector('#detail')?.dataset.keyId === {js(TODOS)}")
    devtools.evaluate("document.activeElement?.blur(); window.scrollTo(0, 0); "
                      "document.querySelectorAll('main section').forEach((section) => { section.scrollTop = 0; }); "
                      "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))).then(() => true)")
    shot = devtools.command("Page.captureScreenshot", format="png")
    data = base64.b64decode(shot["data"])
    if not data.startswith(b"\x89PNG"):
        raise CheckFailed("Page.captureScreenshot did not return a PNG")
    directory = os.path.dirname(os.path.abspath(arguments.screenshot))
    os.makedirs(directory, exist_ok=True)
    with open(arguments.screenshot, "wb") as file:
        file.write(data)
    print(f"ok    screenshot (1280x800, {TODOS} selected, {len(data) // 1024} KiB): {arguments.screenshot}", flush=True)

    check_narrow_window(devtools, page)
    check_disconnected(devtools, page, arguments)
    if devtools.page_errors:
        raise CheckFailed("the page reported errors:\n  " + "\n  ".join(devtools.page_errors))


def press(devtools, key, code=None, key_code=None):
    """Presses and releases a key, as a keyboard does."""
    codes = {"Tab": 9, "Enter": 13, "ArrowDown": 40, "ArrowUp": 38, "Home": 36, "End": 35}
    key_code = key_code or codes.get(key, 0)
    text = "\r" if key == "Enter" else None
    down = dict(type="keyDown", key=key, code=code or key, windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)
    if text:
        down["text"] = text
    devtools.command("Input.dispatchKeyEvent", **down)
    devtools.command("Input.dispatchKeyEvent", type="keyUp", key=key, code=code or key, windowsVirtualKeyCode=key_code,
                     nativeVirtualKeyCode=key_code)


def check_keyboard(devtools, page):
    """e. The keyboard alone: Tab reaches the key list, the arrow keys select rows, Enter moves to the actions, and
    Enter on an action performs it."""
    devtools.evaluate("document.querySelector('#filter-key').focus(); true")
    for _ in range(6):
        if devtools.evaluate("document.activeElement?.id === 'key-list'"):
            break
        press(devtools, "Tab")
    if not devtools.evaluate("document.activeElement?.id === 'key-list'"):
        raise CheckFailed("e. Tab from #filter-key does not reach #key-list within 6 presses "
                          f"(focus on {devtools.evaluate('document.activeElement?.outerHTML.slice(0, 120)')})")
    press(devtools, "Home")
    first = page.wait_for("e. Home selects the first row",
                          "(() => { const row = document.querySelector('#key-list .key-row'); "
                          "return row && row.getAttribute('aria-selected') === 'true' && "
                          "document.querySelector('#detail').dataset.keyId === row.dataset.keyId ? row.dataset.keyId : null; })()")
    press(devtools, "ArrowDown")
    second = page.wait_for("e. ArrowDown selects the next row",
                           "(() => { const rows = document.querySelectorAll('#key-list .key-row'); "
                           "return rows[1] && rows[1].getAttribute('aria-selected') === 'true' && "
                           "document.querySelector('#detail').dataset.keyId === rows[1].dataset.keyId ? rows[1].dataset.keyId : null; })()")
    # Down to the todos query, however many rows come before it.
    for _ in range(40):
        if devtools.evaluate(f"document.querySelector('#detail').dataset.keyId === {js(TODOS)}"):
            break
        press(devtools, "ArrowDown")
    if not devtools.evaluate(f"document.querySelector('#detail').dataset.keyId === {js(TODOS)}"):
        raise CheckFailed(f"e. the arrow keys never selected {TODOS}")
    press(devtools, "Enter")
    page.wait_for("e. Enter on a query's row moves the focus to its first action",
                  "document.activeElement?.dataset.action === 'refetch'")
    press(devtools, "Tab")
    page.wait_for("e. Tab moves to the next action", "document.activeElement?.dataset.action === 'invalidate'")
    devtools.evaluate("document.querySelector('#action-result').textContent = ''; true")
    press(devtools, "Enter")
    page.wait_for("e. Enter on an action performs it", "document.querySelector('#action-result').textContent === 'invalidate: done'")
    print(f"ok e. the keyboard alone ({page.elapsed()}): Tab to the list, Home ({first}), ArrowDown ({second}), "
          f"down to {TODOS}, Enter to its actions, Enter on invalidate", flush=True)


def check_mutations(devtools, page):
    """f. The mutations view lists the recent runs with their arguments, status, duration, error and meta."""
    runs = page.wait_for(
        "f. #mutations lists a successful and a failed run, with arguments, duration and error",
        """
(() => {
  const runs = Array.from(document.querySelectorAll('#mutations .mutation-run')).map((run) => ({
    key: run.dataset.keyId, status: run.dataset.status,
    arguments: run.querySelector('.arguments')?.textContent || '',
    duration: run.querySelector('.duration')?.textContent || '',
    error: run.querySelector('.error')?.textContent || '',
    meta: run.querySelector('.run-meta')?.textContent || '',
  }));
  const succeeded = runs.find((run) => run.status === 'success' && run.arguments.includes('Note') && /\d/.test(run.duration));
  const failed = runs.find((run) => run.status === 'error' && run.arguments.includes('postID') && run.error.includes('refused'));
  const withMeta = runs.find((run) => run.arguments.includes('postID') && /screen: post \d/.test(run.meta) &&
    run.meta.includes('source: like button'));
  return succeeded && failed && withMeta ? { succeeded, failed, meta: withMeta.meta, count: runs.length } : null;
})()
""",
    )
    page.click("f. a run of #mutations", "document.querySelector('#mutations .mutation-run[data-status=\"error\"]')")
    page.wait_for("f. clicking a run selects its mutation", "document.querySelector('#detail').dataset.keyId.startsWith('mutation:')")
    print(f"ok f. the mutations view ({page.elapsed()}): {runs['count']} runs; {json.dumps(runs['succeeded'])}; "
          f"{json.dumps(runs['failed'])}; meta {json.dumps(runs['meta'])}", flush=True)


def fact_expression(name):
    return f"document.querySelector('#detail-facts dd[data-fact=' + {js(json.dumps(name))} + ']')?.textContent || ''"


def check_dates_and_meta(devtools, page):
    """f2. A query's detail shows its meta and its dates: when its value was obtained, its last error, its last
    change."""
    page.click(f"f2. the {TODOS} row", row_expression(TODOS))
    page.wait_for(f"f2. #detail shows {TODOS}", f"document.querySelector('#detail').dataset.keyId === {js(TODOS)}")
    todos = page.wait_for(
        f"f2. {TODOS} shows its meta, 'data from' and 'last change'",
        f"""
(() => {{
  const facts = {{ meta: {fact_expression("meta")}, data: {fact_expression("data from")},
                   change: {fact_expression("last change")} }};
  return facts.meta === 'screen: todo list' && facts.data && facts.change ? facts : null;
}})()
""",
    )
    # The flaky query fails every other fetch: once it has failed, its last error has a date beside its data's.
    page.click(f"f2. the {FLAKY} row", row_expression(FLAKY))
    flaky = page.wait_for(
        f"f2. {FLAKY} shows 'last error' beside 'data from' and 'last change'",
        f"""
(() => {{
  if (document.querySelector('#detail').dataset.keyId !== {js(FLAKY)}) return null;
  const facts = {{ data: {fact_expression("data from")}, error: {fact_expression("last error")},
                   change: {fact_expression("last change")} }};
  return facts.data && facts.error && facts.change ? facts : null;
}})()
""",
    )
    print(f"ok f2. dates and meta ({page.elapsed()}): {TODOS} {json.dumps(todos)}; {FLAKY} {json.dumps(flaky)}",
          flush=True)


def check_value_explorer(devtools, page):
    """g. A nested value in the explorer: collapsed and expanded, and a path copied."""
    page.click(f"the {PROFILE} row", row_expression(PROFILE))
    page.wait_for(f"g. #detail shows {PROFILE}", f"document.querySelector('#detail').dataset.keyId === {js(PROFILE)}")
    page.wait_for("g. the value is a tree", "document.querySelectorAll('#detail-value details').length > 0")
    page.click("g. Collapse all", "document.querySelector('#collapse-all')")
    page.wait_for("g. Collapse all closes every node",
                  "Array.from(document.querySelectorAll('#detail-value details')).every((box) => !box.open)")
    page.click("g. Expand all", "document.querySelector('#expand-all')")
    city = page.wait_for(
        "g. Expand all opens every node, down to $.address.city",
        """
(() => {
  const boxes = Array.from(document.querySelectorAll('#detail-value details'));
  const city = document.querySelector('#detail-value .node[data-path="$.address.city"]');
  return boxes.length > 3 && boxes.every((box) => box.open) && city && city.getClientRects().length > 0
    ? city.textContent : null;
})()
""",
    )
    page.click("g. copy path of $.address.city",
               "(() => { const line = document.querySelector('#detail-value .node[data-path=\"$.address.city\"] .line'); "
               "line.querySelector('.copies').style.visibility = 'visible'; return line.querySelector('button.copy-path'); })()")
    page.wait_for("g. the path is copied", "document.querySelector('#copy-result').dataset.copied === '$.address.city'")
    page.click("g. copy value of $.posts[0]",
               "(() => { const summary = document.querySelector('#detail-value .node[data-path=\"$.posts[0]\"] > details > summary'); "
               "summary.querySelector('.copies').style.visibility = 'visible'; return summary.querySelector('button.copy-value'); })()")
    copied = page.wait_for("g. the value is copied",
                           "(() => { try { return JSON.parse(document.querySelector('#copy-result').dataset.copied).id === 1 "
                           "? document.querySelector('#copy-result').dataset.copied : null; } catch { return null; } })()")
    print(f"ok g. the value explorer ({page.elapsed()}): collapse all, expand all ({city.strip()}), "
          f"copy path $.address.city, copy value of $.posts[0] ({len(copied)} characters)", flush=True)


def check_narrow_window(devtools, page):
    """h. A phone-width window: nothing overflows sideways, and the status menu and the timeline are reachable."""
    devtools.command("Emulation.setDeviceMetricsOverride", width=375, height=740, deviceScaleFactor=1, mobile=True)
    page.wait_for("h. the page lays out at 375 px", "window.innerWidth === 375")
    overflow = devtools.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if overflow > 0:
        raise CheckFailed(f"h. at 375 px the page overflows sideways by {overflow} px")
    # The menu is only reached (a click would open the browser's own popup over the page).
    page.reachable("h. #filter-status at 375 px", "document.querySelector('#filter-status')")
    page.click("h. the Timeline jump at 375 px", "document.querySelector('button[data-jump=\"timeline-pane\"]')")
    page.click("h. an event of #timeline at 375 px", "document.querySelector('#timeline .event')")
    page.click("h. a run of #mutations at 375 px", "document.querySelector('#mutations .mutation-run')")
    page.click(f"h. the {TODOS} row at 375 px", row_expression(TODOS))
    page.click("h. button[data-action=refetch] at 375 px", "document.querySelector('#detail button[data-action=\"refetch\"]')")
    widest = devtools.evaluate(
        "Math.max(...Array.from(document.querySelectorAll('main section, header')).map((box) => box.getBoundingClientRect().right))")
    if widest > 375.5:
        raise CheckFailed(f"h. at 375 px a section reaches {widest} px")
    print(f"ok h. a 375 px window ({page.elapsed()}): no sideways overflow; the status menu, the timeline, the "
          "mutations, the rows and the actions are reachable", flush=True)
    devtools.command("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)


def check_disconnected(devtools, page, arguments):
    """i. When the program stops, the page says since when it is disconnected, over the values it had."""
    if not arguments.example_pid:
        print("skip  i. the disconnected state (no --example-pid)", flush=True)
        return
    os.kill(arguments.example_pid, signal.SIGTERM)
    state = page.wait_for(
        "i. #connection says 'disconnected since' once the program stopped",
        """
(() => {
  const badge = document.querySelector('#connection');
  return badge.dataset.state === 'disconnected' && badge.dataset.since && badge.textContent.startsWith('disconnected since')
    && document.querySelectorAll('#key-list .key-row').length > 0 ? badge.textContent : null;
})()
""",
    )
    print(f"ok i. the program stopped ({page.elapsed()}): {state!r}, the last values still listed", flush=True)
    if not arguments.example_binary:
        return
    # The program started again on the same port: the page is live again, with the new program's events.
    port = urllib.parse.urlsplit(arguments.url).port
    with open(os.devnull, "wb") as quiet:
        again = subprocess.Popen([arguments.example_binary, "--host", "127.0.0.1", "--port", str(port)],
                                 stdout=quiet, stderr=quiet)
    try:
        page.wait_for("i. the page is live again once the program is back",
                      "(() => { const badge = document.querySelector('#connection'); "
                      "return badge.dataset.state === 'live' && !badge.dataset.since; })()")
        page.wait_for("i. the timeline shows the new program's events",
                      "document.querySelectorAll('#timeline .event[data-event=\"fetchEnded\"]').length > 0")
        print(f"ok i. the program started again ({page.elapsed()}): the page is live, with its events", flush=True)
    finally:
        again.terminate()
        again.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devtools-port", type=int, required=True, help="Chromium's remote debugging port")
    parser.add_argument("--url", required=True, help="the inspector's address, as the example printed it")
    parser.add_argument("--example-output", required=True, help="the file the example's standard output goes to")
    parser.add_argument("--screenshot", required=True, help="where to write the PNG")
    parser.add_argument("--timeout", type=float, default=60, help="seconds before a check is declared hung")
    parser.add_argument("--example-binary", default="",
                        help="the example program, started again on the same port after the disconnected state")
    parser.add_argument("--example-pid", type=int, default=0,
                        help="the example's process, stopped (SIGTERM) to check the disconnected state last")
    arguments = parser.parse_args()
    try:
        run(arguments)
    except CheckFailed as failure:
        print(f"FAIL  {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
    except (OSError, ValueError) as error:
        print(f"FAIL  driving Chromium: {error}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
