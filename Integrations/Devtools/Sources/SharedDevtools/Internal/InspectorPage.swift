/// The inspector's page: HTML, CSS and JavaScript in one document, so it needs nothing from elsewhere.
///
/// The elements a test may rely on: `#connection[data-state="live|connecting|disconnected"]` (with `data-since`, the
/// time the stream was lost, while disconnected); `#status-counts` with a `[data-count-status]` item per status; the
/// filters `#filter-key` (words matched anywhere in a key, its parts included), `#filter-status` and `#sort`;
/// `#key-list` with one `.key-row` per key shown (`data-key-id`, `data-kind`, `data-status`, `data-fetching`,
/// `aria-selected`), reached with Tab and moved through with the arrow keys; `#detail[data-key-id]` with
/// `#detail-value` (a tree of `.node` items, `details` elements for arrays and objects, with `button.copy-path` and
/// `button.copy-value`), `#detail-facts` (a `dd[data-fact]` per fact, named as shown: "last change", "data from",
/// "last error", "meta"...), `#detail-history` (an `li` per value or status seen) and `button[data-action]` for a
/// query; `#mutations` with a `.mutation-run` per recent run (`data-key-id`, `data-status`, `.arguments`, `.duration`,
/// `.error`, `.run-meta`); `#timeline` with `.event` items, newest first (`data-event`, `data-key-id`).
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
    header { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; padding: 8px 14px;
      border-bottom: 1px solid var(--line); background: var(--panel); }
    h1 { font-size: 15px; margin: 0; }
    h2 { font-size: 13px; margin: 0 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
    h3 { font-size: 12px; margin: 14px 0 4px; color: var(--muted); }
    :focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
    #connection { padding: 2px 8px; border-radius: 10px; font-size: 12px; border: 1px solid var(--line); }
    #connection[data-state="live"] { color: var(--success); border-color: var(--success); }
    #connection[data-state="connecting"] { color: var(--pending); border-color: var(--pending); }
    #connection[data-state="disconnected"] { color: #fff; background: var(--error); border-color: var(--error); }
    body[data-stale="true"] main { opacity: .6; }
    #status-counts { display: flex; flex-wrap: wrap; gap: 4px; margin: 0; padding: 0; list-style: none; }
    #status-counts li { font-size: 11px; border-radius: 8px; padding: 0 7px; color: #fff; background: var(--idle); }
    #status-counts [data-count-status="pending"] { background: var(--pending); }
    #status-counts [data-count-status="success"] { background: var(--success); }
    #status-counts [data-count-status="error"] { background: var(--error); }
    #status-counts [data-count-status="fetching"] { background: var(--accent); }
    #summary { color: var(--muted); margin-left: auto; }
    nav#jump { display: none; gap: 4px; }
    main { flex: 1; display: grid; grid-template-columns: minmax(240px, 1fr) minmax(300px, 1.3fr) minmax(240px, 1fr);
      min-height: 0; }
    main > section, main > div > section { padding: 10px 12px; overflow: auto; border-right: 1px solid var(--line);
      min-height: 0; min-width: 0; }
    #side { display: grid; grid-template-rows: minmax(0, 1fr) minmax(0, 1.4fr); min-height: 0; min-width: 0; }
    #mutations-pane { border-bottom: 1px solid var(--line); }
    .filters { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 8px; }
    .filters input { flex: 1 1 140px; min-width: 0; }
    input, select, button { font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--line);
      border-radius: 4px; padding: 3px 6px; }
    button { cursor: pointer; }
    button:hover { border-color: var(--accent); }
    #key-list:focus { outline: none; }
    .key-row { display: grid; grid-template-columns: auto minmax(0, 1fr) auto; gap: 6px; align-items: center; padding: 5px 6px;
      border-radius: 4px; cursor: pointer; border: 1px solid transparent; }
    .key-row:hover { background: var(--line); }
    .key-row.selected { border-color: var(--accent); }
    .key-row .description { font-family: ui-monospace, Menlo, monospace; overflow: hidden; text-overflow: ellipsis;
      white-space: nowrap; min-width: 0; }
    .key-row .meta { grid-column: 2 / 4; color: var(--muted); font-size: 11px; min-width: 0; overflow-wrap: anywhere; }
    .kind { font-size: 10px; text-transform: uppercase; color: var(--muted); border: 1px solid var(--line);
      border-radius: 3px; padding: 0 4px; }
    .status { font-size: 11px; border-radius: 8px; padding: 0 7px; color: #fff; background: var(--idle);
      white-space: nowrap; }
    .status:empty { display: none; }
    [data-status="pending"] > .status { background: var(--pending); }
    [data-status="success"] > .status { background: var(--success); }
    [data-status="error"] > .status { background: var(--error); }
    [data-fetching="true"] > .status::after { content: " ⟳"; }
    #detail-title { font-family: ui-monospace, Menlo, monospace; font-size: 14px; margin: 0 0 8px;
      word-break: break-all; }
    dl { display: grid; grid-template-columns: auto minmax(0, 1fr); gap: 2px 10px; margin: 0; }
    dt { color: var(--muted); }
    dd { margin: 0; overflow-wrap: anywhere; }
    #detail-actions { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 10px; }
    #detail-actions[hidden] { display: none; }
    #force-error-message { min-width: 0; flex: 1 1 120px; }
    #action-result { min-height: 1.4em; margin: 6px 0 0; color: var(--muted); }
    #action-result[data-outcome="error"] { color: var(--error); }
    .value-tools { display: flex; flex-wrap: wrap; gap: 4px; margin-bottom: 4px; }
    .value-tools button, .node button { font-size: 11px; padding: 0 5px; }
    #detail-value { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px;
      max-height: 45vh; overflow: auto; font: 12px/1.5 ui-monospace, Menlo, monospace; }
    #detail-value pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: inherit; }
    .node { padding-left: 14px; }
    #detail-value > .node { padding-left: 0; }
    .node summary { cursor: pointer; list-style-position: outside; }
    .node .name { color: var(--accent); }
    .node .preview { color: var(--muted); }
    .node .leaf { overflow-wrap: anywhere; }
    .node .leaf[data-type="string"] { color: var(--success); }
    .node .leaf[data-type="number"], .node .leaf[data-type="boolean"] { color: var(--pending); }
    .node .leaf[data-type="null"] { color: var(--muted); }
    .node .copies { display: inline-flex; gap: 2px; margin-left: 6px; opacity: .35; }
    .node :is(summary, .line):is(:hover, :focus-within) > .copies { opacity: 1; }
    #copy-result { color: var(--muted); min-height: 1.2em; margin: 2px 0 0; font-size: 11px; }
    ol { list-style: none; padding: 0; margin: 0; }
    #detail-history li, #detail-events li, #timeline li, #mutations li { padding: 3px 4px;
      border-bottom: 1px solid var(--line); font-size: 12px; }
    #detail-history .text { font-family: ui-monospace, Menlo, monospace; color: var(--muted); display: block;
      white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .time { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: 6px; }
    .event, .mutation-run { cursor: pointer; }
    .event .name { font-weight: 600; margin-right: 6px; }
    .event .key, .mutation-run .key { font-family: ui-monospace, Menlo, monospace; overflow-wrap: anywhere; }
    .event .details { color: var(--muted); display: block; overflow-wrap: anywhere; }
    .event[data-outcome="failure"] .name, .event[data-event$="Failed"] .name { color: var(--error); }
    .mutation-run { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 0 6px; }
    .mutation-run > * { min-width: 0; }
    .mutation-run .arguments { grid-column: 1 / 3; font-family: ui-monospace, Menlo, monospace; color: var(--muted);
      overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .mutation-run .duration { color: var(--muted); font-variant-numeric: tabular-nums; }
    .mutation-run .error { grid-column: 1 / 3; color: var(--error); overflow-wrap: anywhere; }
    .mutation-run .error:empty { display: none; }
    .mutation-run .run-meta { grid-column: 1 / 3; color: var(--muted); overflow-wrap: anywhere; }
    .mutation-run .run-meta:empty { display: none; }
    .empty { color: var(--muted); }
    @media (max-width: 840px) {
      body { height: auto; min-height: 100vh; }
      header { position: sticky; top: 0; z-index: 1; }
      #summary { margin-left: 0; }
      nav#jump { display: flex; flex-wrap: wrap; width: 100%; }
      main { display: block; }
      #side { display: block; }
      main > section, main > div > section { border-right: 0; border-bottom: 1px solid var(--line);
        overflow: visible; }
      #key-list { max-height: 50vh; overflow: auto; }
      #mutations, #timeline { max-height: 60vh; overflow: auto; }
    }
    </style>
    </head>
    <body>
    <header>
      <h1>SharedState devtools</h1>
      <span id="connection" data-state="connecting" role="status">connecting</span>
      <ul id="status-counts" aria-label="Queries and mutations by status"></ul>
      <span id="summary"></span>
      <nav id="jump" aria-label="Sections">
        <button type="button" data-jump="keys-pane">Keys</button>
        <button type="button" data-jump="detail">Key</button>
        <button type="button" data-jump="mutations-pane">Mutations</button>
        <button type="button" data-jump="timeline-pane">Timeline</button>
      </nav>
    </header>
    <main>
      <section id="keys-pane" aria-label="Keys">
        <div class="filters">
          <input id="filter-key" type="search" placeholder="Find a key: todos, 42, file… ( / )" autocomplete="off"
            aria-label="Find a key by any of its parts">
          <select id="filter-status" aria-label="Filter by status">
            <option value="">any status</option>
            <option value="idle">idle</option>
            <option value="pending">pending</option>
            <option value="success">success</option>
            <option value="error">error</option>
            <option value="fetching">fetching</option>
          </select>
          <select id="sort" aria-label="Sort keys">
            <option value="key">sort by key</option>
            <option value="status">sort by status</option>
            <option value="updated">recently updated first</option>
            <option value="kind">sort by kind</option>
          </select>
        </div>
        <div id="key-list" role="listbox" aria-label="Keys" tabindex="0"></div>
      </section>
      <section id="detail" data-key-id="" aria-label="Selected key">
        <h2>Key</h2>
        <p id="detail-title" class="empty">Select a key (Tab to the list, then the arrow keys).</p>
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
        <div class="value-tools">
          <button type="button" id="expand-all">Expand all</button>
          <button type="button" id="collapse-all">Collapse all</button>
          <button type="button" id="copy-whole-value">Copy value</button>
        </div>
        <div id="detail-value"></div>
        <p id="copy-result" role="status"></p>
        <h3>History (values and statuses seen, newest first)</h3>
        <ol id="detail-history"></ol>
        <h3>Events of this key</h3>
        <ol id="detail-events"></ol>
      </section>
      <div id="side">
        <section id="mutations-pane" aria-label="Mutations">
          <h2>Mutations</h2>
          <ol id="mutations"></ol>
        </section>
        <section id="timeline-pane" aria-label="Timeline">
          <h2>Timeline</h2>
          <ol id="timeline"></ol>
        </section>
      </div>
    </main>
    <script>
    "use strict";
    (() => {
      const HISTORY_LIMIT = 50;
      const TIMELINE_LIMIT = 500;
      const KEY_EVENTS_LIMIT = 50;
      const MUTATIONS_LIMIT = 100;
      const STATUSES = ["idle", "pending", "success", "error"];
      const token = new URLSearchParams(location.search).get("token");
      const api = (path) => token ? path + "?token=" + encodeURIComponent(token) : path;
      const $ = (selector) => document.querySelector(selector);
      const keyList = $("#key-list");
      const detail = $("#detail");
      const timeline = $("#timeline");
      const keyInput = $("#filter-key");
      const statusSelect = $("#filter-status");
      const sortSelect = $("#sort");

      let keys = new Map();        // id -> key of the latest snapshot
      const rows = new Map();      // id -> row element
      const histories = new Map(); // id -> [{at, version, status, fetching, text}], newest first
      const keyEvents = new Map(); // id -> [event], newest first
      const searchTexts = new Map(); // id -> lowercase text a search looks in
      let selectedID = null;
      let lastSequence = 0;
      let everLive = false;
      let shownValue = null;       // {id, text} of the value the explorer shows
      const expanded = new Set();  // paths of the explorer's open nodes
      let wholeValue = undefined;

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

      function seconds(value) {
        return value < 1 ? Math.round(value * 1000) + " ms" : value.toFixed(value < 10 ? 2 : 1) + " s";
      }

      function setConnection(state) {
        const badge = $("#connection");
        if (state === "disconnected") {
          if (badge.dataset.state !== "disconnected") badge.dataset.since = new Date().toISOString();
          badge.textContent = "disconnected since " + time(badge.dataset.since) + " (values as they were then)";
        } else {
          delete badge.dataset.since;
          badge.textContent = state;
        }
        badge.dataset.state = state;
        document.body.dataset.stale = String(state === "disconnected");
      }

      // A search looks in the key's description, its id and each of its parts (a query's key is a JSON array).
      function searchText(key) {
        let text = searchTexts.get(key.id);
        if (text !== undefined) return text;
        const parts = [key.description, key.id];
        try {
          const parsed = JSON.parse(key.description);
          if (Array.isArray(parsed)) for (const part of parsed) parts.push(typeof part === "string" ? part : JSON.stringify(part));
        } catch { /* Not JSON: its description and id only. */ }
        text = parts.join("\n").toLowerCase();
        searchTexts.set(key.id, text);
        return text;
      }

      function matchesFilters(key) {
        const words = keyInput.value.toLowerCase().split(/\s+/).filter((word) => word);
        if (words.length) {
          const text = searchText(key);
          if (!words.every((word) => text.includes(word))) return false;
        }
        const status = statusSelect.value;
        if (status === "fetching") return !!(key.operation && key.operation.isFetching);
        return !status || (key.status || "") === status;
      }

      function compareKeys(a, b) {
        switch (sortSelect.value) {
          case "status": {
            const rank = (key) => { const index = ["error", "pending", "success", "idle"].indexOf(key.status); return index < 0 ? 9 : index; };
            return rank(a) - rank(b) || a.id.localeCompare(b.id);
          }
          case "updated": {
            const at = (key) => key.operation && key.operation.updatedAt ? Date.parse(key.operation.updatedAt) : 0;
            return at(b) - at(a) || a.id.localeCompare(b.id);
          }
          case "kind": return a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id);
          default: return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
        }
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
        const selected = key.id === selectedID;
        row.classList.toggle("selected", selected);
        row.setAttribute("aria-selected", String(selected));
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
        row.id = "row-" + Math.random().toString(36).slice(2);
        row.append(element("span", "kind"), element("span", "description"), element("span", "status"),
          element("span", "meta"));
        row.addEventListener("click", () => { select(id); keyList.focus(); });
        return row;
      }

      function renderCounts() {
        const counts = { idle: 0, pending: 0, success: 0, error: 0, fetching: 0 };
        for (const key of keys.values()) {
          if (key.status && key.status in counts) counts[key.status] += 1;
          if (key.operation && key.operation.isFetching) counts.fetching += 1;
        }
        $("#status-counts").replaceChildren(...[...STATUSES, "fetching"].map((status) => {
          const item = element("li", null, counts[status] + " " + status);
          item.dataset.countStatus = status;
          item.dataset.count = counts[status];
          return item;
        }));
      }

      function renderList() {
        const shown = [...keys.values()].filter(matchesFilters).sort(compareKeys);
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
        const selectedRow = rows.get(selectedID);
        if (selectedRow) keyList.setAttribute("aria-activedescendant", selectedRow.id);
        else keyList.removeAttribute("aria-activedescendant");
        const hidden = keys.size - shown.length;
        $("#summary").textContent = keys.size + " keys" + (hidden ? " (" + hidden + " filtered out)" : "");
        renderCounts();
      }

      function fact(list, name, value) {
        if (value === undefined || value === null || value === "") return;
        const definition = element("dd", null, value);
        definition.dataset.fact = name;
        list.append(element("dt", null, name), definition);
      }

      // Meta as "name: value" pairs sorted by name, or null when there is none.
      function metaText(meta) {
        const names = Object.keys(meta || {}).sort();
        return names.length ? names.map((name) => name + ": " + meta[name]).join(", ") : null;
      }

      // The value explorer: a tree of details elements, children drawn when first opened.
      function pathOf(parent, name) {
        if (typeof name === "number") return parent + "[" + name + "]";
        return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? parent + "." + name : parent + "[" + JSON.stringify(name) + "]";
      }

      async function copy(text, what) {
        const result = $("#copy-result");
        try {
          if (navigator.clipboard && window.isSecureContext) {
            await navigator.clipboard.writeText(text);
          } else {
            const area = element("textarea");
            area.value = text;
            document.body.append(area);
            area.select();
            document.execCommand("copy");
            area.remove();
          }
          result.textContent = "Copied " + what + ".";
        } catch (error) {
          result.textContent = "Could not copy " + what + ": " + error;
        }
        result.dataset.copied = text;
      }

      function copyButtons(path, value) {
        const box = element("span", "copies");
        const copyPath = element("button", "copy-path", "copy path");
        copyPath.type = "button";
        copyPath.title = "Copy " + path;
        copyPath.addEventListener("click", (event) => { event.preventDefault(); copy(path, "the path " + path); });
        const copyValue = element("button", "copy-value", "copy value");
        copyValue.type = "button";
        copyValue.addEventListener("click", (event) => {
          event.preventDefault();
          copy(JSON.stringify(value, null, 2), "the value at " + path);
        });
        box.append(copyPath, copyValue);
        return box;
      }

      function preview(value) {
        if (Array.isArray(value)) return "[" + value.length + " item" + (value.length === 1 ? "" : "s") + "]";
        const count = Object.keys(value).length;
        return "{" + count + " field" + (count === 1 ? "" : "s") + "}";
      }

      function leaf(value) {
        const type = value === null ? "null" : typeof value;
        const span = element("span", "leaf", type === "string" ? JSON.stringify(value) : String(value));
        span.dataset.type = type;
        return span;
      }

      function node(name, value, path, depth) {
        const item = element("div", "node");
        item.dataset.path = path;
        const label = name === null ? null : element("span", "name", name + ": ");
        if (value === null || typeof value !== "object") {
          const line = element("div", "line");
          if (label) line.append(label);
          line.append(leaf(value), copyButtons(path, value));
          item.append(line);
          return item;
        }
        const box = element("details");
        const summary = element("summary");
        if (label) summary.append(label);
        summary.append(element("span", "preview", preview(value)), copyButtons(path, value));
        box.append(summary);
        let drawn = false;
        const draw = () => {
          if (drawn) return;
          drawn = true;
          const entries = Array.isArray(value) ? value.map((child, index) => [index, child]) : Object.entries(value);
          for (const [childName, child] of entries) box.append(node(childName, child, pathOf(path, childName), depth + 1));
        };
        // "!" marks a node closed by hand that opens by default (the first level).
        box.addEventListener("toggle", () => {
          if (box.open) { expanded.add(path); expanded.delete("!" + path); draw(); }
          else { expanded.delete(path); expanded.add("!" + path); }
        });
        if (expanded.has(path) || (depth < 1 && !expanded.has("!" + path))) { box.open = true; draw(); }
        item.append(box);
        return item;
      }

      function renderValue(key) {
        const container = $("#detail-value");
        if (!key) { container.replaceChildren(); shownValue = null; wholeValue = undefined; return; }
        if (shownValue && shownValue.id === key.id && shownValue.text === key.value.text) return;
        if (!shownValue || shownValue.id !== key.id) expanded.clear();
        shownValue = { id: key.id, text: key.value.text };
        let parsed;
        let isJSON = key.value.isJSON && !key.value.isTruncated;
        if (isJSON) { try { parsed = JSON.parse(key.value.text); } catch { isJSON = false; } }
        wholeValue = isJSON ? parsed : key.value.text;
        if (!isJSON) {
          container.replaceChildren(element("pre", null, key.value.text + (key.value.isTruncated ? "\n… (truncated)" : "")));
          return;
        }
        container.replaceChildren(node(null, parsed, "$", 0));
      }

      function setAllOpen(open) {
        const container = $("#detail-value");
        // Opening draws the children, which may hold more closed nodes: repeat until none is left.
        for (let round = 0; round < 64; round++) {
          const boxes = [...container.querySelectorAll("details")].filter((box) => box.open !== open);
          if (!boxes.length) break;
          for (const box of boxes) {
            box.open = open;
            // Now rather than when the browser tells: the next round looks for the nodes this one drew.
            box.dispatchEvent(new Event("toggle"));
          }
        }
      }

      function renderDetail() {
        detail.dataset.keyId = selectedID || "";
        const facts = $("#detail-facts");
        facts.replaceChildren();
        const key = selectedID ? keys.get(selectedID) : null;
        const title = $("#detail-title");
        if (!selectedID) {
          title.textContent = "Select a key (Tab to the list, then the arrow keys).";
          title.className = "empty";
        } else {
          title.textContent = selectedID + (key ? "" : " (no longer in the registry)");
          title.className = key ? "" : "empty";
        }
        $("#detail-actions").hidden = !(key && key.actions && key.actions.length > 0);
        renderValue(key);
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
            // Three dates: the value's (TanStack's dataUpdatedAt), the last error's, and the state's last change
            // (a fetch starting or retrying moves it too).
            fact(facts, "data from", operation.dataUpdatedAt && time(operation.dataUpdatedAt));
            fact(facts, "last error", operation.errorUpdatedAt && time(operation.errorUpdatedAt));
            fact(facts, "last change", operation.updatedAt && time(operation.updatedAt));
          }
          const query = key.query;
          if (query) {
            fact(facts, "fresh", query.isStale ? "stale" : "fresh" + (query.staleAt ? " until " + time(query.staleAt) : ""));
            fact(facts, "held", query.isHeld ? "yes" : "no");
            fact(facts, "enabled", query.isEnabled ? "yes" : "no");
            fact(facts, "collected at", query.collectedAt && time(query.collectedAt));
            fact(facts, "forced", query.isForced ? "yes (restore puts it back)" : null);
            fact(facts, "meta", metaText(query.meta));
          }
          const store = key.store;
          if (store) {
            fact(facts, "loading", store.isLoading ? "yes" : null);
            fact(facts, "load error", store.loadError);
            fact(facts, "save error", store.saveError);
          }
          if (key.mutationRuns) {
            fact(facts, "runs kept", key.mutationRuns.length);
            const last = key.mutationRuns[key.mutationRuns.length - 1];
            if (last) fact(facts, "meta (last run)", metaText(last.meta));
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
        if (selectedID !== id) {
          $("#action-result").textContent = "";
          $("#copy-result").textContent = "";
        }
        selectedID = id;
        for (const [rowID, row] of rows) {
          row.classList.toggle("selected", rowID === id);
          row.setAttribute("aria-selected", String(rowID === id));
        }
        const row = rows.get(id);
        if (row) { keyList.setAttribute("aria-activedescendant", row.id); row.scrollIntoView({ block: "nearest" }); }
        renderDetail();
      }

      // The list takes the keyboard: arrows, Home and End move the selection; Enter opens the selected key.
      keyList.addEventListener("keydown", (event) => {
        const ordered = [...keyList.querySelectorAll(".key-row")];
        if (!ordered.length) return;
        const index = ordered.findIndex((row) => row.dataset.keyId === selectedID);
        let next = null;
        switch (event.key) {
          case "ArrowDown": next = ordered[Math.min(index + 1, ordered.length - 1)]; break;
          case "ArrowUp": next = ordered[Math.max(index - 1, 0)]; break;
          case "Home": next = ordered[0]; break;
          case "End": next = ordered[ordered.length - 1]; break;
          case "Enter": case " ": {
            next = index < 0 ? ordered[0] : ordered[index];
            event.preventDefault();
            select(next.dataset.keyId);
            const first = document.querySelector("#detail-actions:not([hidden]) button") || $("#expand-all");
            if (event.key === "Enter" && first) first.focus();
            return;
          }
          default: return;
        }
        event.preventDefault();
        if (next) select(next.dataset.keyId);
      });
      keyList.addEventListener("focus", () => {
        if (!selectedID) { const first = keyList.querySelector(".key-row"); if (first) select(first.dataset.keyId); }
      });
      document.addEventListener("keydown", (event) => {
        if (event.key === "/" && document.activeElement.tagName !== "INPUT") { event.preventDefault(); keyInput.focus(); }
        if (event.key === "Escape" && document.activeElement === keyInput) keyList.focus();
      });

      let mutationsSignature = "";

      function renderMutations() {
        const runs = [];
        for (const key of keys.values()) {
          for (const run of key.mutationRuns || []) runs.push({ key, run });
        }
        runs.sort((a, b) => Date.parse(b.run.startedAt) - Date.parse(a.run.startedAt) || b.run.id - a.run.id);
        if (runs.length > MUTATIONS_LIMIT) runs.length = MUTATIONS_LIMIT;
        const signature = JSON.stringify(runs.map(({ key, run }) => [key.id, run.id, run.status]));
        if (signature === mutationsSignature) return;
        mutationsSignature = signature;
        const list = $("#mutations");
        if (!runs.length) { list.replaceChildren(element("li", "empty", "No mutation has run yet.")); return; }
        // The focused run keeps the focus across the redraw.
        const focused = document.activeElement && document.activeElement.classList.contains("mutation-run")
          ? document.activeElement.dataset.keyId + "#" + document.activeElement.dataset.run : null;
        const now = Date.now();
        list.replaceChildren(...runs.map(({ key, run }) => {
          const item = element("li", "mutation-run");
          item.tabIndex = 0;
          item.setAttribute("role", "button");
          item.dataset.keyId = key.id;
          item.dataset.status = run.status;
          item.dataset.run = run.id;
          const title = element("span");
          title.append(element("span", "time", time(run.startedAt)), element("span", "key", key.description + " #" + run.id));
          const right = element("span");
          const isRunning = run.duration === undefined;
          item.dataset.running = String(isRunning);
          item.dataset.startedAt = run.startedAt;
          const duration = isRunning ? "running " + seconds(Math.max(now - Date.parse(run.startedAt), 0) / 1000)
            : seconds(run.duration);
          right.append(element("span", "duration", duration + " "), element("span", "status", run.status));
          const argumentsText = element("span", "arguments", "(" + run.arguments.text + ")" +
            (run.result ? " → " + run.result.text : ""));
          argumentsText.title = run.arguments.text;
          const meta = metaText(run.meta);
          item.append(title, right, argumentsText, element("span", "error", run.error || ""),
            element("span", "run-meta", meta ? "meta " + meta : ""));
          const open = () => select(key.id);
          item.addEventListener("click", open);
          item.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(); } });
          return item;
        }));
        if (focused) {
          const again = [...list.children].find((item) => item.dataset.keyId + "#" + item.dataset.run === focused);
          if (again) again.focus();
        }
      }

      function tickRunningMutations() {
        const now = Date.now();
        for (const item of document.querySelectorAll('#mutations .mutation-run[data-running="true"]')) {
          item.querySelector(".duration").textContent =
            "running " + seconds(Math.max(now - Date.parse(item.dataset.startedAt), 0) / 1000) + " ";
        }
      }

      function applySnapshot(snapshot) {
        keys = new Map(snapshot.keys.map((key) => [key.id, key]));
        for (const key of snapshot.keys) remember(key);
        renderList();
        renderDetail();
        renderMutations();
      }

      function eventDetails(event) {
        const parts = [];
        if (event.duration !== undefined) parts.push(seconds(event.duration));
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
        item.tabIndex = 0;
        item.setAttribute("role", "button");
        if (event.outcome) item.dataset.outcome = event.outcome;
        item.append(element("span", "time", time(event.date)), element("span", "name", event.kind));
        if (withKey) item.append(element("span", "key", event.key));
        const details = eventDetails(event);
        if (details) item.append(element("span", "details", details));
        item.addEventListener("click", () => select(event.key));
        item.addEventListener("keydown", (key) => { if (key.key === "Enter" || key.key === " ") { key.preventDefault(); select(event.key); } });
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
      for (const button of document.querySelectorAll("button[data-jump]")) {
        button.addEventListener("click", () => {
          const target = document.getElementById(button.dataset.jump);
          target.scrollIntoView({ block: "start" });
          const focusable = target.querySelector("input, [tabindex], button");
          if (focusable) focusable.focus({ preventScroll: true });
        });
      }
      $("#expand-all").addEventListener("click", () => setAllOpen(true));
      $("#collapse-all").addEventListener("click", () => setAllOpen(false));
      $("#copy-whole-value").addEventListener("click", () => {
        if (wholeValue === undefined) return;
        copy(typeof wholeValue === "string" ? wholeValue : JSON.stringify(wholeValue, null, 2), "the value");
      });
      keyInput.addEventListener("input", renderList);
      keyInput.addEventListener("keydown", (event) => { if (event.key === "ArrowDown") { event.preventDefault(); keyList.focus(); } });
      statusSelect.addEventListener("change", renderList);
      sortSelect.addEventListener("change", renderList);
      setInterval(() => { if ($("#connection").dataset.state === "live") tickRunningMutations(); }, 500);

      function connect() {
        if (!everLive) setConnection("connecting");
        const source = new EventSource(api("api/events"));
        source.addEventListener("open", () => {
          if (everLive && $("#connection").dataset.state !== "live") {
            // Back after a disconnection, perhaps from a program started again (its events numbered from 1): the
            // server sends its recent events again, so the timeline starts over from them.
            lastSequence = 0;
            timeline.replaceChildren();
            keyEvents.clear();
            $("#detail-events").replaceChildren();
          }
          everLive = true;
          setConnection("live");
        });
        source.addEventListener("snapshot", (message) => applySnapshot(JSON.parse(message.data)));
        source.addEventListener("inspection", (message) => addEvent(JSON.parse(message.data)));
        source.addEventListener("error", () => {
          // The program stopped, or the stream was refused: what the page shows is as it was until now.
          setConnection(everLive ? "disconnected" : "connecting");
          if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
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
