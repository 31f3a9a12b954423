// paperkg explorer: one page over the JSON API (no other backend). Every view has its own hash
// address (#/entity/<id>, #/paper/<id>, #/search?q=..., #/queries/<name>?...), so links can be shared,
// and every list it shows is one bounded, paged API call: nothing is ever fetched whole.
"use strict";

const TYPES = ["Method", "Model", "Dataset", "Benchmark", "Metric", "Task"];
const COLORS = { Method: "#d9534f", Model: "#8e44ad", Dataset: "#3b7dd8", Benchmark: "#17a2b8",
                 Metric: "#e08e0b", Task: "#3a9d5d", Paper: "#6c757d" };
const PAGE = 10;
const view = document.getElementById("view");
let catalogPromise = null;
let renderToken = 0;

// ---------------------------------------------------------------- helpers

/** An element: h("a", {href: "#/"}, "text", child, ...). Text is always set as text, never as HTML. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

class ApiError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || "request failed");
    this.problem = problem;
  }
}

async function api(path, params, method = "GET", body = undefined) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params || {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== "" && v !== null && v !== undefined) url.searchParams.append(key, v);
    }
  }
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = sessionStorage.getItem("paperkg-token");
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json().catch(() => ({ title: response.statusText }));
  if (!response.ok) throw new ApiError({ status: response.status, ...answer });
  return answer;
}

// ---------------------------------------------------------------- corrections (servers with a token only)

/** Whether this server takes corrections: its /corrections route exists only with PAPERKG_API_TOKEN, and
 * the public OpenAPI document lists it then (asked once, and without a failed request when it is absent). */
let curationPromise = null;
function curation() {
  curationPromise = curationPromise || api("/openapi.json").then((doc) => Boolean(doc.paths?.["/corrections"]?.post),
                                                                 () => false);
  return curationPromise;
}

/** The served graph reloads in the background after a correction: wait for `check` to hold (a few seconds
 * at most), then go to `href`. */
async function afterCorrection(status, check, href) {
  status.textContent = "Recorded; the graph is being reloaded…";
  for (let i = 0; i < 50 && !(await check().catch(() => false)); i++) await new Promise((r) => setTimeout(r, 200));
  if (location.hash === href) route(); else location.hash = href;
}

/** An entity page's edit menu: each form records one correction (POST /corrections), which every later
 * build keeps. The entity is named by its id, so the correction is exactly about this entity. */
function editMenu(entity) {
  const status = h("div", { class: "small", "data-testid": "edit-status", role: "status" });
  const submit = (op, valueOf, then) => async (ev) => {
    ev.preventDefault();
    const value = valueOf ? valueOf() : null;
    if (op === "drop" && !window.confirm(`Drop ${entity.name} and every mention of it, in later builds too?`)) return;
    status.replaceChildren("Saving…");
    try {
      await api("/corrections", null, "POST", { op, name: entity.id, value });
      await afterCorrection(status, ...then(value));
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  };
  const into = h("input", { name: "into", placeholder: "another entity's name", "aria-label": "Merge into", required: true });
  const newName = h("input", { name: "rename", value: entity.name, "aria-label": "New name", required: true });
  const type = h("select", { name: "type", "aria-label": "New type" },
    TYPES.map((t) => h("option", { value: t, selected: t === entity.type }, t)));
  const gone = (ref) => () => api(`/entities/${enc(ref)}`).then(() => false, (err) => err.problem?.status === 404);
  return h("details", { class: "edit", "data-testid": "edit-menu" }, h("summary", {}, "Edit"),
    h("form", { onsubmit: submit("merge", () => into.value.trim(), (v) => [gone(entity.id), entityHref(v)]) },
      "Merge into ", into, h("button", { type: "submit" }, "Merge")),
    h("form", { onsubmit: submit("rename", () => newName.value.trim(),
      (v) => [() => api(`/entities/${enc(entity.id)}`).then((e) => e.name === v), entityHref(entity.id)]) },
      "Rename to ", newName, h("button", { type: "submit" }, "Rename")),
    h("form", { onsubmit: submit("retype", () => type.value,
      (v) => [() => api(`/entities/${enc(entity.name)}`).then((e) => e.type === v), entityHref(entity.name)]) },
      "Retype as ", type, h("button", { type: "submit" }, "Retype")),
    h("form", { onsubmit: submit("split", null, () => [gone(entity.id), entityHref(entity.name)]) },
      h("button", { type: "submit" }, "Split by context"), h("span", { class: "small muted" }, " each paper's mentions join the entity of the type that paper gives them")),
    h("form", { onsubmit: submit("drop", null, () => [gone(entity.id), "#/"]) },
      h("button", { type: "submit", class: "danger" }, "Drop"), h("span", { class: "small muted" }, " a junk name: gone, and never back")),
    status);
}

function catalog() {
  catalogPromise = catalogPromise || api("/queries").then((list) => new Map(list.map((q) => [q.name, q])))
    .catch((err) => { catalogPromise = null; throw err; });
  return catalogPromise;
}

const enc = encodeURIComponent;
const entityHref = (id) => `#/entity/${enc(id)}`;
const paperHref = (id) => `#/paper/${enc(id)}`;
const badge = (type) => h("span", { class: "badge", style: `background:${COLORS[type] || COLORS.Paper}` }, type);
const papers = (n) => h("span", { class: "count" }, `${n} paper${n === 1 ? "" : "s"}`);
const entityLink = (e) => h("a", { href: entityHref(e.id) }, e.name);
const paperTitle = (p) => p.title || `Untitled paper ${p.id}`;
const fmt = (x) => (typeof x === "number" && !Number.isInteger(x) ? x.toFixed(2) : x);

function errorBox(err) {
  const p = err.problem || {};
  // An entity name the graph does not hold: its closest names, each a link to its entity page.
  const near = Array.isArray(p.suggestions) && p.suggestions.length ? h("div", { "data-testid": "suggestions" },
    "Did you mean ", p.suggestions.map((name, i) => [i ? " · " : "", h("a", { href: entityHref(name) }, name)]), "?") : null;
  return h("div", { class: "error" }, h("b", {}, p.title || "Error"), ": ", err.message, near,
           p.hint ? h("div", { class: "small" }, p.hint) : null, p.status === 401 ? tokenForm() : null);
}

/** A server started with PAPERKG_API_TOKEN answers 401 until the page sends the token: ask for it once,
 * keep it for this tab only (sessionStorage), and send it as `Authorization: Bearer` from then on. */
function tokenForm() {
  const input = h("input", { type: "password", name: "token", placeholder: "API token", "aria-label": "API token" });
  return h("form", { class: "pager", onsubmit: (ev) => {
    ev.preventDefault();
    sessionStorage.setItem("paperkg-token", input.value.trim());
    catalogPromise = null;
    route();
  } }, input, h("button", { type: "submit" }, "Use token"));
}

function setView(...children) {
  view.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  window.scrollTo(0, 0);
}

// ---------------------------------------------------------------- search as you type

const q = document.getElementById("q");
const qtype = document.getElementById("qtype");
const suggestions = document.getElementById("suggestions");
for (const t of TYPES) qtype.append(h("option", { value: t }, t));
let suggestSeq = 0;
let suggestTimer = null;

async function suggest() {
  const text = q.value.trim();
  const seq = ++suggestSeq;
  if (!text) { suggestions.hidden = true; return; }
  try {
    const page = await api("/entities", { q: text, type: qtype.value, limit: 8 });
    if (seq !== suggestSeq) return;          // a later keystroke has its own answer coming
    suggestions.replaceChildren(...page.items.map((e) => h("li", {}, h("a", { href: entityHref(e.id) },
      badge(e.type), h("span", {}, e.name),
      e.aliases.length > 1 ? h("span", { class: "small muted" }, e.aliases.filter((a) => a !== e.name).slice(0, 3).join(", ")) : null,
      h("span", { style: "margin-left:auto" }, papers(e.paper_count))))));
    if (!page.items.length) suggestions.append(h("li", { class: "muted small", style: "padding:5px 10px" }, "no entity matches"));
    suggestions.hidden = false;
  } catch (err) {
    if (seq === suggestSeq) { suggestions.replaceChildren(h("li", { class: "small", style: "padding:5px 10px" }, err.message)); suggestions.hidden = false; }
  }
}

q.addEventListener("input", () => { clearTimeout(suggestTimer); suggestTimer = setTimeout(suggest, 120); });
qtype.addEventListener("change", suggest);
q.addEventListener("keydown", (ev) => {
  const links = [...suggestions.querySelectorAll("a")];
  const at = links.findIndex((a) => a.classList.contains("active"));
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    links.forEach((a) => a.classList.remove("active"));
    const next = links[(at + (ev.key === "ArrowDown" ? 1 : links.length - 1)) % links.length];
    if (next) next.classList.add("active");
  } else if (ev.key === "Escape") suggestions.hidden = true;
});
document.getElementById("search").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const active = suggestions.querySelector("a.active");
  location.hash = active ? active.getAttribute("href")
    : `#/search?${new URLSearchParams({ q: q.value.trim(), type: qtype.value })}`;
});
document.addEventListener("click", (ev) => { if (!ev.target.closest("#search")) suggestions.hidden = true; });

// ---------------------------------------------------------------- views

async function overview() {
  const [stats, cat] = await Promise.all([api("/stats"), catalog()]);
  const tops = await Promise.all(TYPES.map((type) => api("/queries/top_entities", { type, limit: 8 })));
  const parts = [
    h("h1", {}, "Overview"),
    h("p", { class: "muted" }, `${stats.nodes.Paper} papers in ${stats.nodes.Collection} collections. `,
      "Search above, or open any entity below."),
    h("div", { class: "cards" }, ["Paper", ...TYPES].map((t) => h("div", { class: "card" },
      h("div", { class: "n" }, (stats.nodes[t] || 0).toLocaleString()), badge(t)))),
    h("h2", {}, "Most mentioned"),
    h("div", { class: "grid" }, TYPES.map((type, i) => h("div", { class: "panel" }, h("h3", {}, badge(type)),
      tops[i].items.length ? h("ol", { class: "top" }, tops[i].items.map((r) => h("li", {}, entityLink(r), " ", papers(r.papers))))
        : h("p", { class: "muted small" }, "none")))),
    h("h2", {}, "Rising"),
  ];
  if (!cat.has("trending")) {
    parts.push(h("p", { class: "muted" }, "This server's catalog has no `trending` query yet."));
  } else {
    const rising = await api("/queries/trending", { limit: 12 });
    parts.push(rising.items.length ? resultTable(rising.items)
      : h("p", { class: "muted" }, "Nothing to compare: the papers in this graph carry no years."));
  }
  return parts;
}

async function search(params) {
  const text = params.get("q") || "";
  const type = params.get("type") || "";
  const offset = Number(params.get("offset") || 0);
  q.value = text; qtype.value = type;
  if (!text) return [h("h1", {}, "Search"), h("p", { class: "muted" }, "Type a name or alias above.")];
  const page = await api("/entities", { q: text, type, limit: 25, offset });
  const at = (o) => `#/search?${new URLSearchParams({ q: text, type, offset: o })}`;
  return [
    h("h1", {}, `Entities matching “${text}”`, type ? ` (${type})` : ""),
    page.items.length ? h("table", {}, h("tr", {}, h("th", {}, "Name"), h("th", {}, "Type"), h("th", {}, "Aliases"), h("th", {}, "Papers")),
      page.items.map((e) => h("tr", {}, h("td", {}, entityLink(e)), h("td", {}, badge(e.type)),
        h("td", { class: "small muted" }, e.aliases.join(", ")), h("td", {}, e.paper_count))))
      : h("p", { class: "muted" }, "No entity matches."),
    pager(offset, 25, page.next_offset, at),
  ];
}

function pager(offset, size, next, hrefAt) {
  if (!offset && next === null) return null;
  return h("div", { class: "pager" },
    offset > 0 ? h("a", { href: hrefAt(Math.max(0, offset - size)) }, "← previous") : null,
    h("span", { class: "muted small" }, `${offset + 1}–${offset + size}`),
    next !== null ? h("a", { href: hrefAt(next) }, "next →") : null);
}

function highlighted(text, start, end) {
  return [text.slice(0, start), h("mark", {}, text.slice(start, end)), text.slice(end)];
}

async function entityPage(id, params) {
  const offset = Number(params.get("offset") || 0);
  const cat = await catalog();
  const entity = await api(`/entities/${enc(id)}`);
  const [nbrs, page, timeline, results, editable] = await Promise.all([
    api(`/entities/${enc(entity.id)}/neighbors`, { limit: 200 }),
    api(`/entities/${enc(entity.id)}/papers`, { limit: PAGE, offset }),
    // papers per year (the catalog's `timeline`, when this server has it)
    cat.has("timeline") ? api("/queries/timeline", { name: entity.name }) : null,
    // what papers report on it or about it (results.js)
    resultsSection(entity, cat),
    curation(),
  ]);
  const years = (timeline?.items || []).filter((r) => r.year != null);
  const first = entity.first_year ?? (years.length ? Math.min(...years.map((r) => r.year)) : null);
  const last = entity.last_year ?? (years.length ? Math.max(...years.map((r) => r.year)) : null);
  const groups = new Map();
  for (const n of nbrs.items) {
    const key = `${n.edge_type} ${n.direction}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(n);
  }
  const relationName = (type, dir) => {
    const words = type.toLowerCase().replace("_", " ");
    return dir === "out" ? `${entity.name} ${words} …` : `… ${words} ${entity.name}`;
  };
  const graphBox = h("div", { id: "graph", "data-testid": "graph" });
  const parts = [
    h("div", {}, badge(entity.type), entity.ambiguous ? h("span", { class: "small muted" }, "  (this name also names ",
      entity.same_name.map((other, i) => [i ? ", " : "", h("a", { href: entityHref(other) }, other)]), ")") : null),
    h("h1", {}, entity.name),
    editable ? editMenu(entity) : null,
    h("div", { class: "facts" },
      h("div", {}, h("b", {}, "Papers"), entity.paper_count),
      h("div", {}, h("b", {}, "Introduced in"), `${entity.introduced_count} paper${entity.introduced_count === 1 ? "" : "s"}`),
      h("div", {}, h("b", {}, "First year"), first ?? "—"),
      h("div", {}, h("b", {}, "Last year"), last ?? "—"),
      entity.confidence != null ? h("div", {}, h("b", {}, "Confidence"), fmt(entity.confidence)) : null,
      entity.family ? h("div", {}, h("b", {}, "Family"), entity.family) : null,
      h("div", {}, h("b", {}, "Aliases"), entity.aliases.join(" · ") || "—")),
    years.length > 1 ? yearBars(years) : null,
    results ? results.section : null,
    h("div", { class: "two" },
      h("section", {},
        h("h2", {}, `Papers (${entity.paper_count})`),
        page.items.map((p) => h("div", { class: "evidence", "data-testid": "evidence" },
          h("a", { href: paperHref(p.id) }, paperTitle(p)), " ",
          h("span", { class: "count" }, [p.year, `${p.mentions} mention${p.mentions === 1 ? "" : "s"}`,
            p.introduced ? "introduces it" : null].filter(Boolean).join(" · ")),
          p.evidence ? h("blockquote", {}, highlighted(p.evidence.sentence, p.evidence.start, p.evidence.end)) : null)),
        pager(offset, PAGE, page.next_offset, (o) => `${entityHref(entity.id)}?offset=${o}`)),
      h("section", {},
        h("h2", {}, "Neighbourhood"),
        nbrs.items.length ? graphBox : h("p", { class: "muted" }, "No relations to other entities."),
        h("h2", {}, "Relations"),
        nbrs.items.length ? [...groups].map(([key, rows]) => h("div", { class: "rel-group" },
          h("h3", {}, relationName(...key.split(" "))),
          h("table", {}, h("tr", {}, h("th", {}, "Entity"), h("th", {}, "Type"), h("th", {}, "Support"), h("th", {}, "Confidence")),
            rows.map((n) => h("tr", {}, h("td", {}, entityLink(n)), h("td", {}, badge(n.type)), h("td", {}, n.support),
              h("td", {}, n.confidence == null ? "—" : fmt(n.confidence)))))))
          : null)),
  ];
  return { parts, after: () => {
    if (results?.after) results.after();
    if (nbrs.items.length) drawGraph(graphBox, entity, nbrs.items);
  } };
}

function yearBars(rows) {
  const max = Math.max(...rows.map((r) => r.papers));
  return h("div", { class: "bars", title: "papers per year" }, rows.map((r) =>
    h("div", { style: `height:${Math.round((r.papers / max) * 100)}%`, title: `${r.year}: ${r.papers}` })));
}

function drawGraph(container, entity, neighbours) {
  const nodes = new Map([[entity.id, { data: { id: entity.id, label: entity.name, type: entity.type, center: 1 } }]]);
  const edges = [];
  for (const n of neighbours.slice(0, 60)) {
    if (!nodes.has(n.id)) nodes.set(n.id, { data: { id: n.id, label: n.name, type: n.type } });
    const [source, target] = n.direction === "out" ? [entity.id, n.id] : [n.id, entity.id];
    edges.push({ data: { id: `${n.edge_type}|${source}|${target}`, source, target, label: n.edge_type.toLowerCase(),
                         weight: n.support } });
  }
  const cy = cytoscape({
    container,
    elements: [...nodes.values(), ...edges],
    style: [
      { selector: "node", style: { label: "data(label)", "background-color": (n) => COLORS[n.data("type")] || COLORS.Paper,
        "font-size": 11, color: "#1d2330", "text-valign": "bottom", "text-margin-y": 3, width: 18, height: 18,
        "text-wrap": "ellipsis", "text-max-width": 120 } },
      { selector: "node[center]", style: { width: 30, height: 30, "font-weight": "bold", "font-size": 13 } },
      { selector: "edge", style: { width: (e) => 1 + Math.min(5, e.data("weight")), "line-color": "#c3c9d6",
        "target-arrow-color": "#c3c9d6", "target-arrow-shape": "triangle", "curve-style": "bezier",
        label: "data(label)", "font-size": 8, color: "#8a91a3", "text-rotation": "autorotate" } },
      { selector: "node:active, node.hover", style: { "overlay-opacity": 0.15 } },
    ],
    layout: { name: "concentric", concentric: (n) => (n.data("center") ? 2 : 1), levelWidth: () => 1,
              minNodeSpacing: 28, animate: false },
  });
  cy.on("tap", "node", (ev) => { if (!ev.target.data("center")) location.hash = entityHref(ev.target.id()); });
  cy.on("mouseover", "node", (ev) => { container.style.cursor = "pointer"; ev.target.addClass("hover"); });
  cy.on("mouseout", "node", (ev) => { container.style.cursor = ""; ev.target.removeClass("hover"); });
  window.paperkgGraph = cy;   // for tests and the browser console
}

/** Only http(s) addresses become links: a record's `javascript:` or `data:` url (a store built before
 * the readers dropped them) is shown as text, never clicked into running. */
const isWebUrl = (u) => /^https?:\/\/[^\s/?#]/i.test(u);

function arxivUrl(p) {
  if (p.url) return isWebUrl(p.url) ? p.url : null;
  const id = [p.id, ...(p.ids || [])].find((x) => /^(\d{4}\.\d{4,5}(v\d+)?|[a-z-]+(\.[A-Z]{2})?\/\d{7})$/.test(x));
  return id ? `https://arxiv.org/abs/${id}` : null;
}

function markedAbstract(paper) {
  // Every mention, outer ones first where they nest (Tiny-ImageNet over ImageNet): the outer link wins.
  const spans = paper.entities.flatMap((e) => e.mentions.map((m) => ({ ...m, e })))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const out = [];
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    out.push(paper.abstract.slice(at, s.start));
    out.push(h("a", { class: "m", href: entityHref(s.e.id), style: `border-color:${COLORS[s.e.type]}`,
                      title: `${s.e.type}: ${s.e.name}` }, paper.abstract.slice(s.start, s.end)));
    at = s.end;
  }
  out.push(paper.abstract.slice(at));
  return out;
}

async function paperPage(id) {
  const p = await api(`/papers/${enc(id)}`);
  const link = arxivUrl(p);
  const byType = TYPES.map((t) => [t, p.entities.filter((e) => e.type === t)]).filter(([, es]) => es.length);
  return [
    h("div", {}, badge("Paper"), " ", h("span", { class: "small muted" }, p.id)),
    h("h1", {}, paperTitle(p)),
    h("div", { class: "facts" },
      h("div", {}, h("b", {}, "Year"), p.year ?? "—"),
      h("div", {}, h("b", {}, "Authors"), p.authors.length ? p.authors.join(", ") : "—"),
      h("div", {}, h("b", {}, "Collections"), p.collections.length ? p.collections.join(" · ") : "—"),
      p.categories?.length ? h("div", {}, h("b", {}, "Categories"), p.categories.join(" · ")) : null,
      p.doi ? h("div", {}, h("b", {}, "DOI"), p.doi) : null,
      link ? h("div", {}, h("b", {}, "Source"), h("a", { href: link, rel: "noopener", target: "_blank" }, link))
        : p.url ? h("div", {}, h("b", {}, "Source"), h("span", { "data-testid": "unlinked-url" }, p.url)) : null),
    h("div", { class: "legend" }, TYPES.map((t) => h("span", {}, badge(t)))),
    h("div", { class: "abstract", "data-testid": "abstract" }, markedAbstract(p)),
    h("h2", {}, `Entities (${p.entities.length})`),
    h("div", { class: "grid" }, byType.map(([t, es]) => h("div", { class: "panel" }, h("h3", {}, badge(t)),
      h("ul", { class: "plain" }, es.map((e) => h("li", {}, entityLink(e), " ",
        h("span", { class: "count" }, `×${e.count}${e.introduced ? " · introduced here" : ""}`))))))),
  ];
}

// ---------------------------------------------------------------- the catalog form

function inputFor(param, value) {
  const name = param.name;
  const placeholder = param.example === undefined || param.example === null ? "" :
    Array.isArray(param.example) ? param.example.join(", ") : String(param.example);
  if (param.type === "choice") {
    return h("select", { name }, h("option", { value: "" }, param.default != null ? `default (${param.default})` : "any"),
      (param.schema?.enum || []).map((w) => h("option", { value: w, selected: w === value }, w)));
  }
  if (param.type === "entity_type") {
    return h("select", { name }, h("option", { value: "" }, param.required ? "choose…" : "any"),
      TYPES.map((t) => h("option", { value: t, selected: t === value }, t)));
  }
  const numeric = param.type === "int" || param.type === "float";
  return h("input", { name, value: value ?? "", placeholder, required: param.required,
                      type: numeric ? "number" : "text", step: param.type === "float" ? "any" : null,
                      min: param.min ?? null, max: param.max ?? null });
}

function cell(key, value, row) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map((v, i) => [i ? ", " : "", cell(key, v, row)]);
  if (typeof value === "object") return JSON.stringify(value);
  const text = String(fmt(value));
  const entityish = /^(method|model|dataset|benchmark|metric|task):/.test(text);
  if (entityish) return h("a", { href: entityHref(text) }, text);
  if (key === "id" && (row.type === "Paper" || "title" in row)) return h("a", { href: paperHref(text) }, text);
  if (key === "paper") return h("a", { href: paperHref(text) }, text);
  if ((key === "name" || key === "title") && row.id) {
    const href = /^(method|model|dataset|benchmark|metric|task):/.test(row.id) ? entityHref(row.id)
      : key === "title" || row.type === "Paper" ? paperHref(row.id) : null;
    if (href) return h("a", { href }, text);
  }
  return text;
}

function resultTable(rows) {
  if (!rows.length) return h("p", { class: "muted" }, "No rows.");
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return h("table", { "data-testid": "result" }, h("tr", {}, cols.map((c) => h("th", {}, c))),
    rows.map((r) => h("tr", {}, cols.map((c) => h("td", {}, c === "type" && TYPES.includes(r[c]) ? badge(r[c]) : cell(c, r[c], r))))));
}

async function queriesPage(name, params) {
  const cat = await catalog();
  if (!name) {
    return [h("h1", {}, "Catalog queries"),
      h("p", { class: "muted" }, "Named, parameterised Cypher queries; each runs on either store."),
      h("table", {}, [...cat.values()].map((query) => h("tr", {},
        h("td", {}, h("a", { href: `#/queries/${enc(query.name)}` }, query.name)),
        h("td", {}, query.description),
        h("td", { class: "small muted" }, query.params.map((p) => p.name + (p.required ? "" : "?")).join(", ")))))];
  }
  const query = cat.get(name);
  if (!query) throw new ApiError({ title: "Not Found", detail: `no catalog query named ${name}` });
  const form = h("form", { class: "query", "data-testid": "query-form" },
    query.params.map((p) => [h("label", { for: `p-${p.name}` }, p.name, p.required ? " *" : "",
      h("div", { class: "small muted" }, p.type)), Object.assign(inputFor(p, params.get(p.name)), { id: `p-${p.name}` })]),
    h("span", {}), h("div", {}, h("button", { type: "submit" }, "Run")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const values = new URLSearchParams();
    for (const [key, value] of new FormData(form)) if (String(value).trim() !== "") values.set(key, String(value).trim());
    location.hash = `#/queries/${enc(name)}?${values}`;
  });
  const parts = [h("h1", {}, name), h("p", {}, query.description), form];
  const given = [...params.keys()].length > 0;
  if (given) {
    const sent = {};
    for (const p of query.params) {
      const value = params.get(p.name);
      if (value === null || value === "") continue;
      sent[p.name] = p.type === "entities" ? value.split(",").map((s) => s.trim()).filter(Boolean) : value;
    }
    try {
      const result = await api(`/queries/${enc(name)}`, sent);
      parts.push(h("h2", {}, `${result.items.length} row${result.items.length === 1 ? "" : "s"}`), resultTable(result.items));
    } catch (err) {
      parts.push(errorBox(err));
    }
  }
  return parts;
}

// ---------------------------------------------------------------- review queue

const KINDS = { low_confidence: "Unsure, and often mentioned", acronym_types: "One acronym, several types",
                plural_case: "Names that differ only in case or plural" };

/** The review queue (GET /review): what a correction would most improve, heaviest first; Accept records the
 * suggested correction (by the entities' ids), and the queue is asked for again. */
async function reviewPage() {
  if (!(await curation())) return [h("h1", {}, "Review"), h("p", { class: "muted" }, "This server takes no corrections (it has no PAPERKG_API_TOKEN).")];
  const items = await api("/review", { limit: 20 });
  const accept = (item, status) => async (ev) => {
    ev.preventDefault();
    status.replaceChildren("Saving…");
    const s = item.suggestion;
    try {
      await api("/corrections", null, "POST", { op: s.op, name: item.subject, value: s.op === "merge" ? item.target : s.value });
      const gone = () => api("/review", { limit: 20 }).then((now) => !now.some((i) => i.subject === item.subject && i.kind === item.kind));
      await afterCorrection(status, gone, "#/review");
    } catch (err) {
      status.replaceChildren(errorBox(err));
    }
  };
  const describe = (s) => `${s.op} ${s.name}${s.op === "merge" ? ` into ${s.value}` : s.op === "retype" ? ` as ${s.value}` : ""}`;
  return [
    h("h1", {}, "Review"),
    h("p", { class: "muted" }, "What a correction would most improve, heaviest first. Accept records the suggestion; ",
      "an entity's Edit menu corrects it another way."),
    items.length ? h("table", { "data-testid": "review" },
      h("tr", {}, h("th", {}, "What"), h("th", {}, "Entities"), h("th", {}, "Why"), h("th", {}, "Suggested"), h("th", {}, "")),
      items.map((item) => {
        const status = h("span", { class: "small", role: "status" });
        return h("tr", {}, h("td", {}, KINDS[item.kind] || item.kind),
          h("td", {}, item.entities.map((e, i) => [i ? " · " : "", badge(e.type), " ", entityLink(e), " ", papers(e.papers)])),
          h("td", { class: "small" }, item.reason), h("td", {}, describe(item.suggestion)),
          h("td", {}, h("form", { onsubmit: accept(item, status) }, h("button", { type: "submit" }, "Accept")), status));
      })) : h("p", {}, "Nothing to review."),
  ];
}

// ---------------------------------------------------------------- routing

async function route() {
  const token = ++renderToken;
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  const seg = path.split("/").filter(Boolean).map(decodeURIComponent);
  suggestions.hidden = true;
  view.setAttribute("aria-busy", "true");
  try {
    let result;
    if (seg[0] === "entity" && seg[1]) result = await entityPage(seg.slice(1).join("/"), params);
    else if (seg[0] === "paper" && seg[1]) result = await paperPage(seg.slice(1).join("/"));
    else if (seg[0] === "search") result = await search(params);
    else if (seg[0] === "queries") result = await queriesPage(seg[1], params);
    else if (seg[0] === "review") result = await reviewPage();
    else result = await overview();
    if (token !== renderToken) return;        // the user has moved on meanwhile
    const { parts, after } = Array.isArray(result) ? { parts: result } : result;
    setView(...parts);
    if (after) after();
    document.title = `${(view.querySelector("h1")?.textContent || "paperkg").slice(0, 80)} · paperkg`;
  } catch (err) {
    if (token !== renderToken) return;
    setView(h("h1", {}, "Something went wrong"), errorBox(err));
  } finally {
    if (token === renderToken) view.removeAttribute("aria-busy");
  }
}

window.addEventListener("hashchange", route);
route();
curation().then((yes) => { document.getElementById("review-link").hidden = !yes; });
