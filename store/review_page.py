"""The review page: one HTML document, its style and its script (no framework, no remote asset).

Memory text, evidence and namespaces reach the DOM only through
``textContent`` / text nodes (the ``el`` helper), never ``innerHTML``; the
few server values put in the HTML (token, reviewer, store name) are
escaped with :func:`html.escape`. The script runs under a nonce-only CSP.
"""

from __future__ import annotations

from html import escape

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="memvet-token" content="{token}">
<title>memvet review</title>
<style nonce="{nonce}">
  :root {{ --fg:#1d232a; --muted:#5b6672; --line:#d9dee3; --bg:#f6f7f9; --card:#fff; --accent:#2457c5;
          --pending:#a15c00; --conflict:#b3261e; --invalid:#6b7280; --active:#1e7b3a; }}
  * {{ box-sizing: border-box; }}
  body {{ margin:0; font:14px/1.45 system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif; color:var(--fg);
          background:var(--bg); }}
  header {{ position:sticky; top:0; z-index:2; background:var(--card); border-bottom:1px solid var(--line);
            padding:10px 18px; }}
  h1 {{ font-size:17px; margin:0 12px 0 0; display:inline-block; }}
  .store {{ color:var(--muted); font-size:12px; }}
  .bar {{ display:flex; flex-wrap:wrap; gap:8px 14px; align-items:center; margin-top:8px; }}
  .bar label {{ color:var(--muted); font-size:12px; display:flex; gap:4px; align-items:center; }}
  select, input[type=text] {{ font:inherit; padding:3px 6px; border:1px solid var(--line); border-radius:4px; }}
  button {{ font:inherit; padding:3px 10px; border:1px solid var(--line); border-radius:4px; background:#fff;
            cursor:pointer; }}
  button.primary {{ background:var(--accent); color:#fff; border-color:var(--accent); }}
  button.danger {{ color:var(--conflict); border-color:#e4b5b2; }}
  main {{ padding:14px 18px 40px; max-width:1200px; }}
  .item {{ background:var(--card); border:1px solid var(--line); border-radius:6px; padding:10px 14px;
           margin-bottom:10px; outline:none; }}
  .item.focused {{ border-color:var(--accent); box-shadow:0 0 0 2px #c9d7f5; }}
  .head {{ display:flex; flex-wrap:wrap; gap:6px 10px; align-items:center; }}
  .mid {{ font-family:ui-monospace, monospace; font-weight:600; }}
  .badge {{ font-size:11px; padding:1px 7px; border-radius:10px; border:1px solid var(--line); color:var(--muted); }}
  .badge.pending {{ color:var(--pending); border-color:#f0d2a8; background:#fff7eb; }}
  .badge.conflict {{ color:var(--conflict); border-color:#f0c2bf; background:#fff1f0; }}
  .badge.invalid {{ color:var(--invalid); background:#f3f4f6; }}
  .badge.active {{ color:var(--active); border-color:#b9e0c5; background:#effaf2; }}
  .badge.code {{ font-family:ui-monospace, monospace; color:var(--fg); }}
  .ns {{ color:var(--muted); font-size:12px; }}
  .content {{ font-size:15px; margin:8px 0 4px; white-space:pre-wrap; overflow-wrap:anywhere; }}
  .reason {{ color:var(--muted); font-size:12px; }}
  .sides {{ display:grid; grid-template-columns:1fr 1fr; gap:10px; margin:8px 0; }}
  .side {{ border:1px solid var(--line); border-radius:5px; padding:8px 10px; background:#fbfbfc; }}
  .side h3 {{ margin:0 0 4px; font-size:12px; color:var(--muted); font-weight:600; }}
  .side .content {{ font-size:14px; }}
  details {{ margin-top:6px; }}
  summary {{ cursor:pointer; color:var(--muted); font-size:12px; }}
  ul.evidence, ul.history {{ margin:4px 0 0; padding-left:18px; font-size:13px; }}
  ul.evidence li {{ white-space:pre-wrap; overflow-wrap:anywhere; }}
  .role {{ font-family:ui-monospace, monospace; color:var(--muted); margin-right:6px; }}
  .actions {{ display:flex; gap:8px; margin-top:8px; }}
  #status {{ min-height:20px; color:var(--accent); font-size:13px; margin:0 0 8px; }}
  #status.error {{ color:var(--conflict); }}
  #empty {{ color:var(--muted); padding:30px 0; text-align:center; }}
  #help {{ display:none; background:var(--card); border:1px solid var(--line); border-radius:6px; padding:8px 14px;
           margin-bottom:10px; font-size:13px; }}
  #help.shown {{ display:block; }}
  kbd {{ font-family:ui-monospace, monospace; border:1px solid var(--line); border-bottom-width:2px;
         border-radius:3px; padding:0 4px; background:#fff; }}
</style>
</head>
<body>
<header>
  <h1>memvet review</h1><span class="store" id="store">{store}</span> <span class="store" id="counts"></span>
  <div class="bar">
    <label>kind <select id="f-kind"><option value="">all</option></select></label>
    <label>namespace <select id="f-namespace"><option value="">all</option></select></label>
    <label>status <select id="f-status"><option value="">pending + conflict</option></select></label>
    <label>code <select id="f-code"><option value="">all</option></select></label>
    <label>reviewer <input type="text" id="reviewer" size="10" value="{reviewer}" autocomplete="off"></label>
    <label>reason <input type="text" id="reason" size="24" placeholder="why (for invalidate)" autocomplete="off"></label>
  </div>
  <div class="bar">
    <label><input type="checkbox" id="sel-all"> select all</label>
    <button id="bulk-approve" class="primary">Approve selected</button>
    <button id="bulk-invalidate" class="danger">Invalidate selected</button>
    <button id="show-help">Keys (?)</button>
  </div>
</header>
<main>
  <div id="help">
    <kbd>j</kbd>/<kbd>k</kbd> next / previous &middot; <kbd>x</kbd> select &middot; <kbd>a</kbd> approve &middot;
    <kbd>i</kbd> invalidate &middot; <kbd>r</kbd> restore &middot; <kbd>1</kbd> keep this value &middot;
    <kbd>2</kbd> keep the stored value &middot; <kbd>A</kbd> / <kbd>I</kbd> approve / invalidate selected &middot;
    <kbd>/</kbd> filters &middot; <kbd>?</kbd> this help
  </div>
  <p id="status" role="status" aria-live="polite"></p>
  <div id="list"></div>
  <p id="empty" hidden>Nothing waits for review.</p>
</main>
<script nonce="{nonce}">
"use strict";
const TOKEN = document.querySelector('meta[name="memvet-token"]').content;
const state = {{ items: [], focus: 0, selected: new Set() }};
const $ = (id) => document.getElementById(id);

// Every value from the store becomes a text node: memory text is never parsed as HTML.
function el(tag, props, ...children) {{
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {{}})) {{
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }}
  for (const c of children) {{
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }}
  return e;
}}

function say(text, isError) {{
  const s = $("status");
  s.textContent = text;
  s.className = isError ? "error" : "";
}}

function fill(select, values, label) {{
  const keep = select.value;
  select.replaceChildren(el("option", {{ value: "" }}, label));
  for (const v of values) select.append(el("option", {{ value: v }}, v === "" ? "(none)" : v));
  select.value = values.includes(keep) ? keep : "";
}}

function query() {{
  const p = new URLSearchParams();
  for (const f of ["kind", "namespace", "status", "code"]) {{
    const v = $("f-" + f).value;
    if (v) p.set(f, v);
  }}
  return p.toString();
}}

async function load() {{
  const r = await fetch("/api/items?" + query(), {{ headers: {{ "Accept": "application/json" }} }});
  const data = await r.json();
  if (!r.ok) {{ say(data.error || "could not load", true); return; }}
  fill($("f-kind"), data.facets.kinds, "all");
  fill($("f-namespace"), data.facets.namespaces, "all");
  fill($("f-status"), data.facets.statuses, "pending + conflict");
  fill($("f-code"), data.facets.codes, "all");
  $("counts").textContent = "· " + Object.entries(data.counts).map(([k, n]) => n + " " + k).join(" · ");
  state.items = data.items;
  const ids = new Set(data.items.map((m) => m.id));
  state.selected = new Set([...state.selected].filter((id) => ids.has(id)));
  state.focus = Math.min(state.focus, Math.max(0, data.items.length - 1));
  render();
}}

function memoryBlock(m, title, keepLabel) {{
  return el("div", {{ class: "side" }},
    el("h3", {{}}, title + " · " + m.id + " · " + m.status),
    el("div", {{ class: "content" }}, m.content),
    el("button", {{ class: "choose", "data-id": m.id, "data-action": "choose" }}, keepLabel));
}}

function card(m, index) {{
  const box = el("input", {{ type: "checkbox", class: "sel", checked: state.selected.has(m.id) }});
  box.addEventListener("change", () => {{
    box.checked ? state.selected.add(m.id) : state.selected.delete(m.id);
  }});
  const head = el("div", {{ class: "head" }}, box,
    el("span", {{ class: "mid" }}, m.id),
    el("span", {{ class: "badge kind" }}, m.kind),
    el("span", {{ class: "badge " + m.status }}, m.status),
    el("span", {{ class: "ns" }}, m.namespace || ""),
    ...m.codes.map((c) => el("span", {{ class: "badge code" }}, c)));
  const parts = [head];
  if (m.conflicts.length) {{
    const sides = el("div", {{ class: "sides" }}, memoryBlock(m, "this memory", "Keep this (1)"));
    m.conflicts.forEach((o, k) => sides.append(memoryBlock(o, "stored memory it contradicts",
                                                           k === 0 ? "Keep that (2)" : "Keep that")));
    parts.push(sides);
  }} else {{
    parts.push(el("div", {{ class: "content" }}, m.content));
  }}
  if (m.reason) parts.push(el("div", {{ class: "reason" }}, "why it waits: " + m.reason));
  const prov = [...m.source, ...m.confirmed_by];
  const evidence = el("ul", {{ class: "evidence" }},
    ...m.evidence.map((e) => el("li", {{}}, el("span", {{ class: "role" }}, e.role + " " + e.id), e.content)));
  if (!m.evidence.length) evidence.append(el("li", {{}}, prov.length ? prov.join(", ") : "no source messages kept"));
  parts.push(el("details", {{ open: true }}, el("summary", {{}}, "evidence (" + (prov.join(", ") || "no source") + ")"),
                evidence));
  parts.push(el("details", {{}}, el("summary", {{}}, "history"),
                el("ul", {{ class: "history" }}, ...m.history.map((h) => el("li", {{}},
                  h.at + " " + h.event + (h.actor ? " by " + h.actor : ""))))));
  const actions = el("div", {{ class: "actions" }});
  if (m.status === "invalid") {{
    actions.append(el("button", {{ class: "primary", "data-id": m.id, "data-action": "restore" }}, "Restore (r)"));
  }} else {{
    actions.append(el("button", {{ class: "primary", "data-id": m.id, "data-action": "approve" }}, "Approve (a)"),
                   el("button", {{ class: "danger", "data-id": m.id, "data-action": "invalidate" }}, "Invalidate (i)"));
  }}
  parts.push(actions);
  const item = el("article", {{ class: "item" + (index === state.focus ? " focused" : ""), tabIndex: -1,
                               "data-id": m.id }}, ...parts);
  item.addEventListener("click", () => {{ state.focus = index; markFocus(false); }});
  return item;
}}

function render() {{
  const list = $("list");
  list.replaceChildren(...state.items.map(card));
  $("empty").hidden = state.items.length > 0;
  $("sel-all").checked = state.items.length > 0 && state.selected.size === state.items.length;
}}

function markFocus(scroll) {{
  document.querySelectorAll(".item").forEach((e, k) => e.classList.toggle("focused", k === state.focus));
  const cur = document.querySelectorAll(".item")[state.focus];
  if (cur && scroll) cur.scrollIntoView({{ block: "nearest" }});
}}

async function act(action, ids) {{
  if (!ids.length) {{ say("select memories first (x, or the checkboxes)", true); return; }}
  const by = $("reviewer").value.trim();
  if (!by) {{ say("enter your name as reviewer first", true); $("reviewer").focus(); return; }}
  const r = await fetch("/api/act", {{
    method: "POST",
    headers: {{ "Content-Type": "application/json", "X-Memvet-Token": TOKEN }},
    body: JSON.stringify({{ action, ids, by, reason: $("reason").value }}),
  }});
  const data = await r.json();
  if (!r.ok) {{ say(data.error || ("error " + r.status), true); return; }}
  const done = data.done.map((d) => d.id + " → " + d.status).join(", ");
  const failed = data.failed.map((d) => d.id + ": " + d.error).join("; ");
  say((done ? action + ": " + done : "") + (failed ? (done ? " · " : "") + "failed: " + failed : ""), !!failed);
  ids.forEach((id) => state.selected.delete(id));
  await load();
}}

document.addEventListener("click", (ev) => {{
  const b = ev.target.closest("button[data-action]");
  if (b) act(b.getAttribute("data-action"), [b.getAttribute("data-id")]);
}});
$("bulk-approve").addEventListener("click", () => act("approve", [...state.selected]));
$("bulk-invalidate").addEventListener("click", () => act("invalidate", [...state.selected]));
$("show-help").addEventListener("click", () => $("help").classList.toggle("shown"));
$("sel-all").addEventListener("change", (ev) => {{
  state.selected = ev.target.checked ? new Set(state.items.map((m) => m.id)) : new Set();
  render();
}});
for (const f of ["kind", "namespace", "status", "code"]) $("f-" + f).addEventListener("change", load);

document.addEventListener("keydown", (ev) => {{
  const t = ev.target;
  if (t instanceof HTMLInputElement && t.type === "text" || t instanceof HTMLSelectElement) {{
    if (ev.key === "Escape") t.blur();
    return;
  }}
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const cur = state.items[state.focus];
  const keys = {{
    "j": () => {{ state.focus = Math.min(state.focus + 1, state.items.length - 1); markFocus(true); }},
    "ArrowDown": () => keys.j(),
    "k": () => {{ state.focus = Math.max(state.focus - 1, 0); markFocus(true); }},
    "ArrowUp": () => keys.k(),
    "x": () => {{ if (cur) {{ state.selected.has(cur.id) ? state.selected.delete(cur.id) : state.selected.add(cur.id);
                             render(); }} }},
    "a": () => cur && act("approve", [cur.id]),
    "i": () => cur && act("invalidate", [cur.id]),
    "r": () => cur && act("restore", [cur.id]),
    "1": () => cur && cur.conflicts.length && act("choose", [cur.id]),
    "2": () => cur && cur.conflicts.length && act("choose", [cur.conflicts[0].id]),
    "A": () => act("approve", [...state.selected]),
    "I": () => act("invalidate", [...state.selected]),
    "/": () => $("f-kind").focus(),
    "?": () => $("help").classList.toggle("shown"),
  }};
  const run = keys[ev.key];
  if (run) {{ ev.preventDefault(); run(); }}
}});

load().catch((e) => say("could not load: " + e, true));
</script>
</body>
</html>
"""


def render_page(*, token: str, nonce: str, reviewer: str, store: str) -> str:
    """The page with the per-run token, the CSP nonce, the reviewer name and the store's (redacted) name."""
    return _PAGE.format(token=escape(token), nonce=escape(nonce), reviewer=escape(reviewer), store=escape(store))
