# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small Chrome DevTools Protocol client: headless Chromium driven over a WebSocket.

The WebSocket is Debian's python3-websocket (websocket-client); the browser endpoint comes
from DevToolsActivePort, one page target is attached in flat mode. Every wait is bounded;
close() ends the browser this module started, by its pid.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

import websocket


class WebSocket:
    """Text messages over websocket-client; a connection the browser closed is EOFError."""

    def __init__(self, host, port, path, timeout=30):
        # No proxy: the browser listens on this machine only.
        self.ws = websocket.create_connection(f"ws://{host}:{port}{path}", timeout=timeout,
                                              suppress_origin=True, http_no_proxy=[host])

    def send(self, text):
        self.ws.send(text)

    def recv(self):
        try:
            data = self.ws.recv()
        except websocket.WebSocketConnectionClosedException as e:
            raise EOFError("WebSocket closed by the browser") from e
        if isinstance(data, bytes):
            data = data.decode("utf-8")
        if data == "" and not self.ws.connected:
            raise EOFError("WebSocket closed by the browser")
        return data

    def close(self):
        try:
            self.ws.close(timeout=2)
        except (OSError, websocket.WebSocketException):
            pass


class Browser:
    """chromium --headless with --remote-debugging-port=0 and an empty profile."""

    FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars", "--remote-debugging-port=0"]

    def __init__(self, binary="chromium", size=(1280, 1600), log=None, timeout=30):
        self.profile = tempfile.mkdtemp(prefix="ksc-chromium.")
        self.log = open(log, "wb") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [binary] + self.FLAGS + [f"--user-data-dir={self.profile}",
                                     f"--window-size={size[0]},{size[1]}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.next_id = 0
        self.events = []
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + timeout
        while True:
            if os.path.exists(port_file):
                lines = open(port_file).read().split("\n")
                if len(lines) >= 2 and lines[1]:
                    break
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.proc.returncode}")
            if time.time() > deadline:
                self.close()
                raise TimeoutError("chromium wrote no DevToolsActivePort")
            time.sleep(0.1)
        self.ws = WebSocket("127.0.0.1", int(lines[0]), lines[1], timeout=timeout)
        self.version = self.call("Browser.getVersion")["product"]

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = json.loads(self.ws.recv())
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)
        raise TimeoutError(method)

    def wait_event(self, name, session=None, timeout=30):
        """The first event called name (already received or arriving within timeout)."""
        deadline = time.time() + timeout
        while True:
            for e in self.events:
                if e["method"] == name and (session is None or e.get("sessionId") == session):
                    return e
            if time.time() > deadline:
                raise TimeoutError(name)
            m = json.loads(self.ws.recv())
            if "method" in m:
                self.events.append(m)

    def close(self):
        try:
            if getattr(self, "ws", None):
                self.call("Browser.close", timeout=10)
                self.ws.close()
        except (OSError, EOFError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.log is not subprocess.DEVNULL:
            self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """One tab, attached in flat mode: console, exceptions, log entries and requests recorded."""

    def __init__(self, browser, width=1280, height=1600):
        self.b = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget",
                                    {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None, timeout=60):
        return self.b.call(method, params, self.session, timeout)

    def events(self, name):
        return [e["params"] for e in self.b.events
                if e["method"] == name and e.get("sessionId") == self.session]

    def navigate(self, url, timeout=30):
        self.b.events = [e for e in self.b.events if e.get("sessionId") != self.session]
        self.call("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.session, timeout)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails'].get('text')} "
                               f"{r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r["result"].get("value")

    def wait_for(self, expr, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.eval(expr):
                return True
            time.sleep(0.05)
        return False

    def click(self, selector):
        """A real mouse click (pressed, released) in the middle of the element."""
        box = self.eval(f"""(async () => {{
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
            const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})

    def key(self, key, code, keycode, text=None):
        """A key press; text ("\\r" for Enter) makes it a character as typed."""
        down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": keycode}
        if text:
            down["text"] = text
        self.call("Input.dispatchKeyEvent", down)
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": keycode})

    def type_text(self, text):
        self.call("Input.insertText", {"text": text})

    def screenshot(self, path, full=False):
        params = {"format": "png"}
        if full:
            params["captureBeyondViewport"] = True
            size = self.eval("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.call("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
