/// The inspector's page: HTML, CSS and JavaScript in one document, so it needs nothing from elsewhere.
///
/// The elements a test may rely on: `#connection[data-state="live|connecting|closed"]`; the filters
/// `#filter-prefix` and `#filter-status`; `#key-list` with one `.key-row` per key shown (`data-key-id`, `data-kind`,
/// `data-status`, `data-fetching`); `#detail[data-key-id]` with `#detail-value`, `#detail-history` (an `li` per
/// value or status seen) and `button[data-action]` for a query; `#timeline` with `.event` items, newest first
/// (`data-event`, `data-key-id`).
enum InspectorPage {
  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>SharedState devtools</title>
    <style>
    :root { --bg: #f7f7f8; --panel: #fff; --line: #e2e2e6; --text: #1d1d22; --muted: #6b6b76; --accent: #3b5bdb;
      --idle: #868e96; --pending: #1c7ed6; --success: #2f9e44; --error: #e03131; }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #151518; --panel: #1e1e22; --line: #2e2e35; --text: #e6e6ea; --muted: #9a9aa6; --accent: #748ffc; }
    }
    * { box-sizing: border-box; }
    body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg);
      color: var(--text); height: 100vh; display: flex; flex-direction: column; }
    header { display: flex; align-items: center; gap: 12px; padding: 8px 14px; border-bottom: 1px solid var(--line);
      background: var(--panel); }
    h1 { font-size: 15px; margin: 0; }
    h2 { font-size: 13px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
    h3 { font-size: 12px; margin: 14px 0 4px; color: var(--muted); }
    #connection { padding: 2px 8px; border-radius: 10px; font-size: 12px; border: 1px solid var(--line); }
    #connection[data-state="live"] { color: var(--success); border-color: var(--success); }
    #connection[data-state="connecting"] { color: var(--pending); border-color: var(--pending); }
    #connection[data-state="closed"] { color: var(--error); border-color: var(--error); }
    #summary { color: var(--muted); margin-left: auto; }
    main { flex: 1; display: grid; grid-template-columns: minmax(260px, 1fr) minmax(320px, 1.3fr) minmax(260px, 1fr);
      min-height: 0; }
    main > section { padding: 10px 12px; overflow: auto; border-right: 1px solid var(--line); min-height: 0; }
    .filters { display: flex; gap: 6px; margin-bottom: 8px; }
    .filters input { flex: 1; }
    input, select, button { font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--line);
      border-radius: 4px; padding: 3px 6px; }
    button { cursor: pointer; }
    button:hover { border-color: var(--accent); }
    .key-row { display: grid; grid-template-columns: auto 1fr auto; gap: 6px; align-items: center; padding: 5px 6px;
      border-radius: 4px; cursor: pointer; border: 1px solid transparent; }
    .key-row:hover { background: var(--line); }
    .key-row.selected { border-color: var(--accent); }
    .key-row .description { font-family: ui-monospace, Menlo, monospace; overflow: hidden; text-overflow: ellipsis;
      white-space: nowrap; }
    .key-row .meta { grid-column: 2 / 4; color: var(--muted); font-size: 11px; }
    .kind { font-size: 10px; text-transform: uppercase; color: var(--muted); border: 1px solid var(--line);
      border-radius: 3px; padding: 0 4px; }
    .status { font-size: 11px; border-radius: 8px; padding: 0 7px; color: #fff; background: var(--idle); }
    .status:empty { display: none; }
    [data-status="pending"] > .status { background: var(--pending); }
    [data-status="success"] > .status { background: var(--success); }
    [data-status="error"] > .status { background: var(--error); }
    [data-fetching="true"] > .status::after { content: " ⟳"; }
    #detail-title { font-family: ui-monospace, Menlo, monospace; font-size: 14px; margin: 0 0 8px;
      word-break: break-all; }
    dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
    dt { color: var(--muted); }
    dd { margin: 0; word-break: break-word; }
    #detail-actions { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 10px; }
    #detail-actions[hidden] { display: none; }
    #action-result { min-height: 1.4em; margin: 6px 0 0; color: var(--muted); }
    #action-result[data-outcome="error"] { color: var(--error); }
    pre { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 8px; margin: 0;
      max-height: 40vh; overflow: auto; white-space: pre-wrap; word-break: break-word;
      font: 12px/1.4 ui-monospace, Menlo, monospace; }
    ol { list-style: none; padding: 0; margin: 0; }
    #detail-history li, #detail-events li, #timeline li { padding: 3px 4px; border-bottom: 1px solid var(--line);
      font-size: 12px; }
    #detail-history .text { font-family: ui-monospace, Menlo, monospace; color: var(--muted); display: block;
      white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: 6px; }
    .event { cursor: pointer; }
    .event .name { font-weight: 600; margin-right: 6px; }
    .event .key { font-family: ui-monospace, Menlo, monospace; }
    .event .details { color: var(--muted); display: block; }
    .event[data-outcome="failure"] .name, .event[data-event$="Failed"] .name { color: var(--error); }
    .empty { color: var(--muted); }
    </style>
    </head>
    <body>
    <header>
      <h1>SharedState devtools</h1>
      <span id="connection" data-state="connecting">connecting</span>
      <span id="summary"></span>
    </header>
    <main>
      <section id="keys-pane" aria-label="Keys">
        <div class="filters">
          <input id="filter-prefix" type="search" placeholder="Key prefix, e.g. [&quot;todos&quot;" autocomplete="off"
            aria-label="Filter by key prefix">
          <select id="filter-status" aria-label="Filter by status">
            <option value="">any status</option>
            <option value="idle">idle</option>
            <option value="pending">pending</option>
            <option value="success">success</option>
            <option value="error">error</option>
          </select>
        </div>
        <div id="key-list" role="listbox" aria-label="Keys"></div>
      </section>
      <section id="detail" data-key-id="" aria-label="Selected key">
        <h2>Key</h2>
        <p id="detail-title" class="empty">Select a key.</p>
        <dl id="detail-facts"></dl>
        <div id="detail-actions" hidden>
          <button type="button" data-action="refetch">Refetch</button>
          <button type="button" data-action="invalidate">Invalidate</button>
          <button type="button" data-action="reset">Reset</button>
          <button type="button" data-action="remove">Remove</button>
          <button type="button" data-action="forceLoading">Force loading</button>
          <button type="button" data-action="forceError">Force error</button>
          <input id="force-error-message" type="text" value="Forced by the inspector" aria-label="Forced error message">
          <button type="button" data-action="restore">Restore</button>
        </div>
        <p id="action-result" role="status"></p>
        <h3>Value</h3>
        <pre id="detail-value"></pre>
        <h3>History (values and statuses seen, newest first)</h3>
        <ol id="detail-history"></ol>
        <h3>Events of this key</h3>
        <ol id="detail-events"></ol>
      </section>
      <section id="timeline-pane" aria-label="Timeline">
        <h2>Timeline</h2>
        <ol id="timeline"></ol>
      </section>
    </main>
    <script>
    "use strict";
    (() => {
      const HISTORY_LIMIT = 50;
      const TIMELINE_LIMIT = 500;
      const KEY_EVENTS_LIMIT = 50;
      const token = new URLSearchParams(location.search).get("token");
      const api = (path) => token ? path + "?token=" + encodeURIComponent(token) : path;
      const $ = (selector) => document.querySelector(selector);
      const keyList = $("#key-list");
      const detail = $("#detail");
      const timeline = $("#timeline");
      const prefixInput = $("#filter-prefix");
      const statusSelect = $("#filter-status");

      let keys = new Map();        // id -> key of the latest snapshot
      const rows = new Map();      // id -> row element
      const histories = new Map(); // id -> [{at, version, status, fetching, text}], newest first
      const keyEvents = new Map(); // id -> [event], newest first
      let selectedID = null;
      let lastSequence = 0;

      function element(tag, className, text) {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined && text !== null) node.textContent = String(text);
        return node;
      }

      function time(date) {
        const parsed = date ? new Date(date) : new Date();
        return parsed.toLocaleTimeString([], { hour12: false }) + "." +
          String(parsed.getMilliseconds()).padStart(3, "0");
      }

      function setConnection(state) {
        const badge = $("#connection");
        badge.dataset.state = state;
        badge.textContent = state;
      }

      function matchesFilters(key) {
        const prefix = prefixInput.value;
        if (prefix && !key.description.startsWith(prefix) && !key.id.startsWith(prefix)) return false;
        const status = statusSelect.value;
        return !status || (key.status || "") === status;
      }

      function shownValue(key) {
        if (!key.value.isJSON) return key.value.text;
        try { return JSON.stringify(JSON.parse(key.value.text), null, 2); } catch { return key.value.text; }
      }

      function remember(key) {
        const history = histories.get(key.id) || [];
        const last = history[0];
        const status = key.status || "";
        const fetching = key.operation ? key.operation.isFetching : false;
        if (last && last.version === key.version && last.status === status && last.fetching === fetching) return;
        history.unshift({ at: new Date(), version: key.version, status, fetching, text: key.value.text });
        if (history.length > HISTORY_LIMIT) history.length = HISTORY_LIMIT;
        histories.set(key.id, history);
      }

      function fillRow(row, key) {
        row.dataset.keyId = key.id;
        row.dataset.kind = key.kind;
        row.dataset.status = key.status || "";
        row.dataset.fetching = String(key.operation ? key.operation.isFetching : false);
        row.classList.toggle("selected", key.id === selectedID);
        row.querySelector(".kind").textContent = key.kind;
        row.querySelector(".description").textContent = key.description;
        row.querySelector(".description").title = key.id;
        row.querySelector(".status").textContent = key.status || "";
        const parts = [key.valueType, "v" + key.version, key.holders + " holder" + (key.holders === 1 ? "" : "s")];
        if (key.query && key.query.isStale) parts.push("stale");
        if (key.query && key.query.isForced) parts.push("forced");
        if (key.operation && key.operation.isPaused) parts.push("paused");
        row.querySelector(".meta").textContent = parts.join(" · ");
      }

      function makeRow(id) {
        const row = element("div", "key-row");
        row.setAttribute("role", "option");
        row.append(element("span", "kind"), element("span", "description"), element("span", "status"),
          element("span", "meta"));
        row.addEventListener("click", () => select(id));
        return row;
      }

      function renderList() {
        const shown = [...keys.values()].filter(matchesFilters);
        const wanted = new Set(shown.map((key) => key.id));
        for (const [id, row] of rows) {
          if (!wanted.has(id)) { row.remove(); rows.delete(id); }
        }
        let previous = null;
        for (const key of shown) {
          let row = rows.get(key.id);
          if (!row) { row = makeRow(key.id); rows.set(key.id, row); }
          fillRow(row, key);
          const expected = previous ? previous.nextSibling : keyList.firstChild;
          if (expected !== row) keyList.insertBefore(row, expected);
          previous = row;
        }
        const hidden = keys.size - shown.length;
        $("#summary").textContent = keys.size + " keys" + (hidden ? " (" + hidden + " filtered out)" : "");
      }

      function fact(list, name, value) {
        if (value === undefined || value === null || value === "") return;
        list.append(element("dt", null, name), element("dd", null, value));
      }

      function renderDetail() {
        detail.dataset.keyId = selectedID || "";
        const facts = $("#detail-facts");
        facts.replaceChildren();
        const key = selectedID ? keys.get(selectedID) : null;
        const title = $("#detail-title");
        if (!selectedID) {
          title.textContent = "Select a key.";
          title.className = "empty";
        } else {
          title.textContent = selectedID + (key ? "" : " (no longer in the registry)");
          title.className = key ? "" : "empty";
        }
        $("#detail-actions").hidden = !(key && key.actions && key.actions.length > 0);
        $("#detail-value").textContent = key ? shownValue(key) + (key.value.isTruncated ? "\n… (truncated)" : "") : "";
        if (key) {
          fact(facts, "kind", key.kind);
          fact(facts, "type", key.valueType);
          fact(facts, "version", key.version);
          fact(facts, "holders", key.holders);
          fact(facts, "iterations", key.iterations);
          fact(facts, "observers", key.observers);
          const operation = key.operation;
          if (operation) {
            fact(facts, "status", operation.status + (operation.isFetching ? " (fetching)" : "") +
              (operation.isPaused ? " (paused)" : ""));
            fact(facts, "attempt", operation.attempt);
            fact(facts, "failures", operation.failureCount);
            fact(facts, "error", operation.error);
            fact(facts, "updated", operation.updatedAt && time(operation.updatedAt));
          }
          const query = key.query;
          if (query) {
            fact(facts, "fresh", query.isStale ? "stale" : "fresh" + (query.staleAt ? " until " + time(query.staleAt) : ""));
            fact(facts, "held", query.isHeld ? "yes" : "no");
            fact(facts, "enabled", query.isEnabled ? "yes" : "no");
            fact(facts, "collected at", query.collectedAt && time(query.collectedAt));
            fact(facts, "forced", query.isForced ? "yes (restore puts it back)" : null);
          }
          const store = key.store;
          if (store) {
            fact(facts, "loading", store.isLoading ? "yes" : null);
            fact(facts, "load error", store.loadError);
            fact(facts, "save error", store.saveError);
          }
        }
        const history = $("#detail-history");
        history.replaceChildren(...(histories.get(selectedID) || []).map((entry) => {
          const item = element("li");
          item.dataset.version = entry.version;
          item.dataset.status = entry.status;
          item.append(element("span", "time", time(entry.at)),
            element("span", null, "v" + entry.version + (entry.status ? " · " + entry.status : "") +
              (entry.fetching ? " · fetching" : "")),
            element("span", "text", entry.text));
          return item;
        }));
        const events = $("#detail-events");
        events.replaceChildren(...(keyEvents.get(selectedID) || []).map((event) => eventItem(event, false)));
      }

      function select(id) {
        selectedID = id;
        $("#action-result").textContent = "";
        for (const [rowID, row] of rows) row.classList.toggle("selected", rowID === id);
        renderDetail();
      }

      function applySnapshot(snapshot) {
        keys = new Map(snapshot.keys.map((key) => [key.id, key]));
        for (const key of snapshot.keys) remember(key);
        renderList();
        renderDetail();
      }

      function eventDetails(event) {
        const parts = [];
        if (event.duration !== undefined) parts.push(Math.round(event.duration * 1000) + " ms");
        if (event.outcome) parts.push(event.outcome);
        if (event.error) parts.push(event.error);
        if (event.callback) parts.push(event.callback);
        if (event.action) parts.push(event.action + (event.message ? ": " + event.message : ""));
        if (event.value) parts.push(event.value.text.slice(0, 120));
        return parts.join(" · ");
      }

      function eventItem(event, withKey) {
        const item = element("li", "event");
        item.dataset.event = event.kind;
        item.dataset.keyId = event.key;
        item.dataset.sequence = event.sequence;
        if (event.outcome) item.dataset.outcome = event.outcome;
        item.append(element("span", "time", time(event.date)), element("span", "name", event.kind));
        if (withKey) item.append(element("span", "key", event.key));
        const details = eventDetails(event);
        if (details) item.append(element("span", "details", details));
        item.addEventListener("click", () => select(event.key));
        return item;
      }

      function addEvent(event) {
        if (event.sequence <= lastSequence) return;
        lastSequence = event.sequence;
        timeline.prepend(eventItem(event, true));
        while (timeline.childElementCount > TIMELINE_LIMIT) timeline.lastElementChild.remove();
        const list = keyEvents.get(event.key) || [];
        list.unshift(event);
        if (list.length > KEY_EVENTS_LIMIT) list.length = KEY_EVENTS_LIMIT;
        keyEvents.set(event.key, list);
        if (event.key === selectedID) $("#detail-events").prepend(eventItem(event, false));
      }

      async function act(action) {
        if (!selectedID) return;
        const body = { key: selectedID, action };
        if (action === "forceError") body.message = $("#force-error-message").value || "Forced by the inspector";
        const result = $("#action-result");
        try {
          const response = await fetch(api("api/actions"), {
            method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
          });
          const answer = await response.json().catch(() => ({}));
          result.dataset.outcome = response.ok ? "ok" : "error";
          result.textContent = response.ok ? action + ": done" : action + ": " + (answer.message || response.status);
        } catch (error) {
          result.dataset.outcome = "error";
          result.textContent = action + ": " + error;
        }
      }

      for (const button of document.querySelectorAll("#detail-actions button[data-action]")) {
        button.addEventListener("click", () => act(button.dataset.action));
      }
      prefixInput.addEventListener("input", renderList);
      statusSelect.addEventListener("change", renderList);

      function connect() {
        setConnection("connecting");
        const source = new EventSource(api("api/events"));
        source.addEventListener("open", () => setConnection("live"));
        source.addEventListener("snapshot", (message) => applySnapshot(JSON.parse(message.data)));
        source.addEventListener("inspection", (message) => addEvent(JSON.parse(message.data)));
        source.addEventListener("error", () => {
          if (source.readyState === EventSource.CLOSED) {
            setConnection("closed");
            // Refused (a wrong token) or gone: try again later, as the browser does for a dropped stream.
            setTimeout(connect, 3000);
          } else {
            setConnection("connecting");
          }
        });
      }

      fetch(api("api/snapshot")).then((response) => response.ok ? response.json() : null)
        .then((snapshot) => { if (snapshot && keys.size === 0) applySnapshot(snapshot); })
        .catch(() => {});
      connect();
    })();
    </script>
    </body>
    </html>
    """#
}
