"""The review pages' HTML and script (`flows.review_page` fills in `{{model}}`, `{{rows}}`).

The script keeps money in whole cents (integers), never in floats, and mirrors the
parsers' validation: per account the running balance from the opening one, a printed
balance that disagrees marks its row and carries on from the printed figure, and opening +
Σ amounts must equal closing. Accept is enabled only when every account reconciles; the
server decides again with the ledger's own check.
"""

INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stmtflow reviews</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}td,th{padding:.3em .8em;text-align:left}
</style></head><body><h1>Statements that need review</h1>
<table><tr><th>review</th><th>file</th><th>bank</th><th>problems</th></tr>{{rows}}</table>
</body></html>
"""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stmtflow review</title>
<style>
body{font:13px system-ui,sans-serif;margin:0;color:#222}
header{padding:.6em 1em;background:#f3f4f6;border-bottom:1px solid #ddd}
header h1{font-size:16px;margin:0 0 .2em}
main{display:flex;gap:1em;padding:1em;align-items:flex-start}
#pages{flex:0 0 48%;max-height:calc(100vh - 7em);overflow:auto;border:1px solid #ddd}
.sheet{position:relative;margin-bottom:8px}.sheet img{width:100%;display:block}
.box{position:absolute;left:.5%;right:.5%;border:1px solid rgba(80,80,200,.25);cursor:pointer}
.box.questioned{border:2px solid #d22}.box.current{border:2px solid #1565c0;
background:rgba(21,101,192,.08)}
#side{flex:1;min-width:0}
table{border-collapse:collapse;width:100%;margin-bottom:.4em}
th,td{border-bottom:1px solid #e5e5e5;padding:2px 4px;text-align:left;white-space:nowrap}
td.num,th.num{text-align:right}
input{font:inherit;border:1px solid #ccc;padding:1px 3px;box-sizing:border-box}
input.amt{width:7.5em;text-align:right}input.date{width:7.5em}
textarea.desc{font:inherit;width:100%;min-width:16em;box-sizing:border-box;resize:none;
field-sizing:content;border:1px solid #ccc;padding:1px 3px;white-space:pre-wrap}
td.descc{width:100%;white-space:normal}
tr.bad td{background:#fde8e8}tr.questioned td:first-child{border-left:3px solid #d22}
tr.dropped td{opacity:.45;text-decoration:line-through}
tr.current td{background:#e3eefc}
.invalid{border-color:#d22!important;background:#fff3f3}.changed{background:#fff8d6}
.sum{margin:.2em 0 1em;font-weight:600}.ok{color:#1b7f3b}.no{color:#c62828}
#decide{position:sticky;bottom:0;background:#fff;border-top:1px solid #ddd;padding:.6em 0}
button{font:inherit;padding:.35em 1em;margin-right:.5em}
button#accept:enabled{background:#1b7f3b;color:#fff;border:1px solid #14632e}
#status{margin:.4em 0;font-weight:600}#result{margin-top:.4em}
ul.problems{margin:.2em 0 .8em;padding-left:1.2em;color:#8a1c1c}
</style></head><body>
<header><h1 id="title"></h1><div id="meta"></div></header>
<main><section id="pages"></section>
<section id="side"><ul class="problems" id="problems"></ul><div id="tables"></div>
<div id="decide">
<label>reviewer <input id="reviewer" size="14"></label>
<label>note <input id="note" size="40"></label><br>
<div id="status"></div>
<button id="accept" disabled>Accept</button><button id="reject">Reject (note needed)</button>
<div id="result"></div></div></section></main>
<script id="model" type="application/json">{{model}}</script>
<script>
"use strict";
const M = JSON.parse(document.getElementById("model").textContent);
const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
function cents(text) {  // whole cents, or null when the text is no amount
  const m = /^([+-]?)(\\d*)(?:\\.(\\d{1,2}))?$/.exec(String(text).trim().replace(/,/g, ""));
  if (!m || (m[2] === "" && m[3] === undefined)) return null;
  const c = Number(m[2] || "0") * 100 + Number(((m[3] || "") + "00").slice(0, 2));
  return m[1] === "-" ? -c : c;
}
function money(c) {
  const a = Math.abs(c);
  return (c < 0 ? "-" : "") + Math.floor(a / 100) + "." + String(a % 100).padStart(2, "0");
}
const open = M.state === "open";
$("title").textContent = `Review ${M.review_id}: ${M.file} (${M.bank})`;
$("meta").textContent = `job ${M.job_id} · ${M.state}` +
  (M.decided_by ? ` by ${M.decided_by}` : "");
if (M.run_url) {
  const a = el("a", {href: M.run_url, id: "run"}, "its review run in Prefect");
  $("meta").append(" · ", a);
}
for (const p of M.problems) $("problems").append(el("li", {}, p));
$("reviewer").value = M.reviewer;

const sheets = {};
for (const p of M.pages) {
  const s = el("div", {class: "sheet", id: `sheet-${p.page}`});
  s.append(el("img", {src: `/review/${M.review_id}/page-${p.page}.png`,
                      alt: `page ${p.page}`}));
  sheets[p.page] = {div: s, height: p.height};
  $("pages").append(s);
}
function input(cls, value, field) {  // a description wraps in a box as tall as it needs
  const i = el(field === "description" ? "textarea" : "input", {class: cls, "data-f": field,
                                                                 rows: "1"});
  i.value = value; i.dataset.orig = value; i.disabled = !open;
  return i;
}
const accounts = [];
for (const a of M.accounts) {
  const t = el("table", {id: `account-${a.account}`});
  const head = el("tr");
  for (const [h, c] of [["#", ""], ["date", ""], ["description", ""], ["amount", "num"],
                        ["balance", "num"], ["computed", "num"], ["drop", ""]])
    head.append(el("th", {class: c}, h));
  const opening = input("amt", a.opening_balance, "opening_balance");
  const closing = input("amt", a.closing_balance, "closing_balance");
  const title = el("div");
  title.append(`Account ${a.account} (${a.last4}, ${a.currency}) · opening `, opening,
               " · closing ", closing);
  t.append(head);
  const rows = [];
  for (const r of a.rows) {
    const tr = el("tr", {id: `row-${a.account}-${r.row}`});
    if (r.notes.length) { tr.classList.add("questioned"); tr.title = r.notes.join("\\n"); }
    const f = {date: input("date", r.date, "date"),
               description: input("desc", r.description, "description"),
               amount: input("amt", r.amount, "amount"),
               balance: input("amt", r.balance, "balance"),
               drop: el("input", {type: "checkbox"})};
    f.drop.disabled = !open;
    const computed = el("td", {class: "num computed"});
    tr.append(el("td", {}, String(r.row)));
    const dateTd = el("td"); dateTd.append(f.date); tr.append(dateTd);
    const descTd = el("td", {class: "descc"}); descTd.append(f.description); tr.append(descTd);
    for (const k of ["amount", "balance"]) {
      const td = el("td", {class: "num"}); td.append(f[k]); tr.append(td);
    }
    tr.append(computed);
    const dropTd = el("td"); dropTd.append(f.drop); tr.append(dropTd);
    let box = null;
    if (r.page && sheets[r.page]) {
      const h = sheets[r.page].height, pad = 1;
      box = el("div", {class: "box" + (r.notes.length ? " questioned" : ""),
                       id: `box-${a.account}-${r.row}`});
      box.style.top = `${((r.top - pad) / h) * 100}%`;
      box.style.height = `${((r.bottom - r.top + 2 * pad) / h) * 100}%`;
      box.addEventListener("click", () => f.amount.focus());
      sheets[r.page].div.append(box);
    }
    tr.addEventListener("focusin", () => {
      document.querySelectorAll(".current").forEach((x) => x.classList.remove("current"));
      tr.classList.add("current");
      if (box) { box.classList.add("current"); box.scrollIntoView({block: "center"}); }
    });
    t.append(tr);
    rows.push({r, tr, f, computed});
  }
  const sum = el("div", {class: "sum", id: `sum-${a.account}`});
  $("tables").append(title, t, sum);
  accounts.push({a, opening, closing, rows, sum});
}

function recompute() {
  let good = true, parsed = true, changes = 0, why = [];
  const mark = (i, ok) => { i.classList.toggle("invalid", !ok); parsed = parsed && ok; };
  const seen = (i) => { if (i.value.trim() !== i.dataset.orig) { changes++;
    i.classList.add("changed"); } else i.classList.remove("changed"); };
  for (const acc of accounts) {
    const o = cents(acc.opening.value), c = cents(acc.closing.value);
    mark(acc.opening, o !== null); mark(acc.closing, c !== null);
    seen(acc.opening); seen(acc.closing);
    let running = o || 0, total = o || 0, disagree = 0;
    for (const x of acc.rows) {
      const {f, tr, computed} = x;
      for (const k of ["date", "description", "amount", "balance"]) seen(f[k]);
      tr.classList.toggle("dropped", f.drop.checked);
      if (f.drop.checked) { changes++; computed.textContent = ""; tr.classList.remove("bad");
                            continue; }
      mark(f.date, /^\\d{4}-\\d{2}-\\d{2}$/.test(f.date.value.trim()));
      mark(f.description, f.description.value.trim() !== "");
      const amt = cents(f.amount.value);
      mark(f.amount, amt !== null);
      running += amt || 0; total += amt || 0;
      computed.textContent = money(running);
      const printed = f.balance.value.trim();
      let bad = false;
      if (printed !== "" && printed.toLowerCase() !== "none") {
        const b = cents(printed);
        mark(f.balance, b !== null);
        if (b !== null && b !== running) { bad = true; disagree++; running = b; }
      } else mark(f.balance, true);
      tr.classList.toggle("bad", bad);
    }
    const ok = c !== null && total === c && disagree === 0;
    acc.sum.className = "sum " + (ok ? "ok" : "no");
    acc.sum.textContent = `opening ${money(o || 0)} + Σ amounts = ${money(total)}; ` +
      `printed closing ${money(c || 0)}` + (disagree ? `; ${disagree} printed balance(s) ` +
      "disagree" : "") + (ok ? " — reconciles" : " — does not reconcile");
    if (!ok) why.push(`account ${acc.a.account}`);
    good = good && ok;
  }
  const ready = open && good && parsed && $("reviewer").value.trim() !== "";
  const accept = $("accept");
  accept.disabled = !ready;
  accept.textContent = changes ? `Accept with ${changes} correction(s)` : "Accept as printed";
  $("status").textContent = !open ? `Decided: ${M.state}` : !parsed ?
    "Some cells hold no valid value (outlined red)" : good ?
    "Reconciles: opening + Σ amounts = closing, every printed balance agrees" :
    `Does not reconcile yet (${why.join(", ")}): correct the red rows`;
  $("status").className = good && parsed ? "ok" : "no";
  return changes;
}

async function decide(decision) {
  const body = {decision, reviewer: $("reviewer").value, note: $("note").value,
    accounts: accounts.map((acc) => ({account: acc.a.account,
      opening_balance: acc.opening.value, closing_balance: acc.closing.value,
      rows: acc.rows.map(({r, f}) => ({row: r.row, date: f.date.value,
        description: f.description.value, amount: f.amount.value, balance: f.balance.value,
        drop: f.drop.checked}))}))};
  $("accept").disabled = true; $("reject").disabled = true;
  const res = await fetch(`/review/${M.review_id}`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const got = await res.json();
  const out = $("result");
  out.textContent = "";
  out.className = got.applied ? "ok" : "no";
  out.append(el("div", {id: "message"}, got.message));
  for (const p of got.problems || []) out.append(el("div", {}, "· " + p));
  if (got.woke) out.append(el("div", {id: "woke"}, "its waiting review run was resumed"));
  if (got.applied) {
    document.querySelectorAll("input, textarea").forEach((i) => { i.disabled = true; });
    $("status").textContent = `Decided: ${got.state} by ${got.decided_by}`;
    document.body.dataset.decided = got.state;
  } else { $("reject").disabled = false; recompute(); }
}

document.addEventListener("input", recompute);
document.addEventListener("change", recompute);
$("accept").addEventListener("click", () => decide("correct"));
$("reject").addEventListener("click", () => decide("reject"));
$("reject").disabled = !open;
recompute();
document.body.dataset.ready = "1";
</script></body></html>
"""
