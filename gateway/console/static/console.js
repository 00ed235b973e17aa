// acteon-swarm console: keyboard triage, decisions, live updates (Server-Sent Events). No framework, no
// build step. Every fragment comes rendered from the server; this script only moves it into place.
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]')?.content || "";

function toast(message, bad) {
  const t = document.getElementById("toast");
  if (!t) return;
  t.textContent = message;
  t.className = bad ? "bad show" : "show";
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.className = ""; }, 4000);
}

// The SHA-256 of the text the person sees (the element's text, character for character): sent with the
// decision, the gateway refuses it if the pending item is not exactly that.
async function shownHash(item) {
  const text = item.querySelector(".shown").textContent;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function post(url, body) {
  const r = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });
  let data = {};
  try { data = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) throw new Error((data.error && data.error.message) || `HTTP ${r.status}`);
  return data;
}

// -- the queue ---------------------------------------------------------------------------------------
const queue = document.getElementById("queue");
let focused = null;

function items() { return queue ? Array.from(queue.querySelectorAll("article.approval")) : []; }

function refreshCount() {
  const n = items().length;
  const count = document.getElementById("count");
  if (count) count.textContent = String(n);
  const empty = document.getElementById("empty");
  if (empty) empty.hidden = n > 0;
  if (focused && !focused.isConnected) focused = null;
  if (!focused && n) focus(items()[0]);
}

function focus(item) {
  if (!item) return;
  if (focused) focused.classList.remove("focused");
  focused = item;
  item.classList.add("focused");
  item.focus({ preventScroll: true });
  item.scrollIntoView({ block: "nearest" });
}

function move(step) {
  const all = items();
  if (!all.length) return;
  const i = focused ? all.indexOf(focused) : -1;
  focus(all[Math.max(0, Math.min(all.length - 1, i + step))]);
}

function removeItem(id) {
  const el = document.getElementById(`approval-${id}`);
  if (!el) return;
  const all = items();
  const next = all[all.indexOf(el) + 1] || all[all.indexOf(el) - 1];
  el.remove();
  if (focused === el) { focused = null; if (next) focus(next); }
  refreshCount();
}

function placeItem(html) {
  const holder = document.createElement("div");
  holder.innerHTML = html;
  const item = holder.querySelector("article.approval");
  if (!item) return;
  const old = document.getElementById(item.id);
  if (old) { item.querySelector(".select").checked = old.querySelector(".select").checked; old.replaceWith(item); }
  else if (queue.dataset.order === "oldest") queue.append(item);
  else queue.prepend(item);
  refreshCount();
}

// The queue as the server holds it now (on connect and after every reconnect): items it no longer holds
// leave, new ones arrive, and unchanged ones stay untouched (focus and selection are kept).
function syncQueue(html) {
  const holder = document.createElement("div");
  holder.innerHTML = html.trim();
  const fresh = Array.from(holder.querySelectorAll("article.approval"));
  const keep = new Set(fresh.map((i) => i.id));
  for (const item of items()) if (!keep.has(item.id)) removeItem(item.dataset.id);
  for (const item of fresh) {
    const old = document.getElementById(item.id);
    if (old && old.dataset.sha === item.dataset.sha) continue;
    placeItem(item.outerHTML);
  }
  queue.dataset.synced = "1";
  refreshCount();
}

async function decide(item, verb, reason) {
  if (!item) return;
  try {
    const a = await post(`/console/approvals/${encodeURIComponent(item.dataset.id)}/${verb}`,
                         { shown_sha256: await shownHash(item), reason: reason || null });
    toast(`${a.approval_id}: ${a.status}`);
    removeItem(item.dataset.id);
  } catch (e) {
    toast(`${item.dataset.id}: ${e.message}`, true);
  }
}

function askReason(item) {
  const dialog = document.getElementById("reject-dialog");
  if (!item || !dialog) return;
  document.getElementById("reject-id").textContent = item.dataset.id;
  const input = document.getElementById("reject-reason");
  input.value = "";
  dialog.onclose = () => {
    if (dialog.returnValue === "ok" && input.value.trim()) decide(item, "reject", input.value.trim());
  };
  dialog.showModal();
  input.focus();
}

async function reviewSelection() {
  const dialog = document.getElementById("batch-dialog");
  const chosen = items().filter((i) => i.querySelector(".select").checked);
  if (!dialog || !chosen.length) { toast("nothing selected (x selects)", true); return; }
  // The reviewed snapshot: these ids, with the hash of what each shows now. Only they are approved.
  const snapshot = [];
  const list = document.getElementById("batch-list");
  list.replaceChildren();
  for (const item of chosen) {
    snapshot.push({ approval_id: item.dataset.id, shown_sha256: await shownHash(item) });
    const li = document.createElement("li");
    li.dataset.id = item.dataset.id;
    li.textContent = `${item.dataset.id}: ${item.querySelector(".shown").textContent.split("\n")[2] || ""}`;
    list.append(li);
  }
  document.getElementById("batch-count").textContent = String(snapshot.length);
  dialog.onclose = async () => {
    if (dialog.returnValue !== "ok") return;
    try {
      const out = await post("/console/approvals/batch", { items: snapshot });
      const failed = out.results.filter((r) => r.error);
      for (const r of out.results) if (!r.error) removeItem(r.approval_id);
      toast(failed.length ? `${failed.length} not approved: ${failed[0].error}` : `${out.results.length} approved`,
            failed.length > 0);
    } catch (e) {
      toast(e.message, true);
    }
  };
  dialog.showModal();
}

function typing(event) {
  const t = event.target;
  return t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement
    || document.querySelector("dialog[open]") !== null;
}

if (queue) {
  document.addEventListener("keydown", (event) => {
    if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    const keys = {
      j: () => move(1), k: () => move(-1),
      a: () => decide(focused, "approve"), r: () => askReason(focused),
      x: () => { if (focused) { const box = focused.querySelector(".select"); box.checked = !box.checked; } },
      A: () => reviewSelection(),
    };
    const act = keys[event.key];
    if (act) { event.preventDefault(); act(); }
  });
  queue.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    const item = event.target.closest("article.approval");
    if (item) focus(item);
    if (!button || !item) return;
    if (button.dataset.action === "approve") decide(item, "approve");
    else askReason(item);
  });
  if (queue.dataset.focus) focus(document.getElementById(`approval-${queue.dataset.focus}`));
  refreshCount();
}

// -- ages and expiry, ticking -------------------------------------------------------------------------
// Times come from the gateway (Redis time); the page keeps its offset to this machine's clock. An approval
// past its expiry can no longer be decided: it leaves the queue.
function span(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

if (queue && queue.dataset.now) {
  const offset = Number(queue.dataset.now) - Date.now();
  setInterval(() => {
    const now = Date.now() + offset;
    for (const item of items()) {
      const age = item.querySelector(".age");
      const expiry = item.querySelector(".expiry");
      if (age) age.textContent = `waiting ${span(now - Number(age.dataset.created))}`;
      if (expiry) {
        const left = Number(expiry.dataset.expires) - now;
        if (left <= 0) { removeItem(item.dataset.id); toast(`${item.dataset.id} expired`); continue; }
        expiry.textContent = `expires in ${span(left)}`;
      }
    }
  }, 1000);
}

// -- live updates ------------------------------------------------------------------------------------
function live(url, handlers) {
  const state = document.getElementById("live-state");
  const source = new EventSource(url);
  source.onopen = () => { if (state) { state.textContent = "live"; state.className = "live on"; } };
  source.onerror = () => { if (state) { state.textContent = "reconnecting…"; state.className = "live"; } };
  for (const [name, handle] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => handle(event.data));
  }
  return source;
}

const approvalHandlers = {
  approval: (html) => placeItem(html),
  resolved: (id) => removeItem(id),
};

if (queue && queue.dataset.live) {
  live(queue.dataset.live, { ...approvalHandlers, snapshot: (html) => syncQueue(html) });
}

const feed = document.getElementById("feed");
if (feed) {
  const rows = document.getElementById("decisions");
  const tasks = document.getElementById("tasks");
  live(feed.dataset.live, {
    ...approvalHandlers,
    decision: (html) => {
      rows.insertAdjacentHTML("beforeend", html);
      while (rows.children.length > 500) rows.firstElementChild.remove();
    },
    task: (html) => {
      const holder = document.createElement("tbody");
      holder.innerHTML = html;
      const row = holder.firstElementChild;
      if (!row) return;
      if (!row.dataset.task) {
        document.getElementById("run-status").textContent = row.querySelector(".state").textContent;
        return;
      }
      const old = document.getElementById(row.id);
      if (old) old.replaceWith(row); else tasks.append(row);
    },
  });
}

// -- cancel a run, after a confirmation ---------------------------------------------------------------
const cancelForm = document.getElementById("cancel-form");
if (cancelForm) {
  cancelForm.addEventListener("submit", (event) => {
    if (cancelForm.dataset.confirmed) return;
    event.preventDefault();
    const dialog = document.getElementById("cancel-dialog");
    dialog.onclose = () => {
      if (dialog.returnValue === "ok") { cancelForm.dataset.confirmed = "1"; cancelForm.submit(); }
    };
    dialog.showModal();
  });
}
