// paperkg explorer: what papers report about an entity (issue 27). A benchmark's or dataset's page
// shows its leaderboard (the `leaderboard` query: a sortable table, each row's evidence sentence on
// hover) and its best value year by year (`sota_over_time`, drawn with the vendored uPlot); a
// method's or model's page lists its results (`results_of`). Loaded before app.js, whose helpers
// (h, api, the link builders) these functions call when a page is built.
"use strict";

const BOARD_TYPES = ["Dataset", "Benchmark"];
const SUBJECT_TYPES = ["Method", "Model"];
const RESULT_ROWS = 100;

/** The results section of an entity page, with what to draw once it is in the page; null if none. */
async function resultsSection(entity, cat) {
  if (BOARD_TYPES.includes(entity.type) && cat.has("leaderboard")) return leaderboardSection(entity, cat);
  if (SUBJECT_TYPES.includes(entity.type) && cat.has("results_of")) return subjectResults(entity);
  return null;
}

/** Compare two sort keys: numbers as numbers, text as text, empty values last. */
function compareKeys(a, b) {
  const none = (x) => x === null || x === undefined || x === "";
  if (none(a) || none(b)) return none(a) - none(b);
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

/** A table whose header cells sort it (click again: the other way); each row's evidence on hover. */
function sortableTable(rows, columns, testid) {
  let by = null;
  let desc = false;
  const body = h("tbody");
  const heads = columns.map((c, i) => h("th", { class: "sortable", "data-col": c.key, onclick: () => {
    desc = by === i ? !desc : false;
    by = i;
    fill();
  } }, c.label));
  function fill() {
    const sorted = by === null ? rows
      : [...rows].sort((a, b) => compareKeys(columns[by].sort(a), columns[by].sort(b)) * (desc ? -1 : 1));
    heads.forEach((th, i) => th.setAttribute("aria-sort", i !== by ? "none" : desc ? "descending" : "ascending"));
    body.replaceChildren(...sorted.map((r) => h("tr", { title: r.evidence || null, "data-result": r.result },
      columns.map((c) => h("td", {}, c.cell(r))))));
  }
  fill();
  return h("table", { class: "results", "data-testid": testid }, h("thead", {}, h("tr", {}, heads)), body);
}

const orLink = (name, id, href) => (name == null ? "—" : id ? h("a", { href: href(id) }, name) : name);
const valueCell = (r) => h("span", { class: "value", title: r.evidence || null }, r.value ?? "—",
  r.direction === "lower" ? h("span", { class: "small muted", title: "lower is better" }, " ↓") : null);
const paperCell = (r) => h("a", { href: paperHref(r.paper) }, r.title || r.paper);

async function leaderboardSection(entity, cat) {
  const board = await api("/queries/leaderboard", { benchmark: entity.name, limit: RESULT_ROWS });
  const rows = board.items.filter((r) => r.benchmark === entity.id)      // a name may name several
    .map((r, i) => ({ ...r, rank: i + 1 }));
  if (!rows.length) return null;
  // the chart's metric: the entity-linked metric most rows are in (ties: the first in rank order)
  const counts = new Map();
  for (const r of rows) if (r.metric_id) counts.set(r.metric_id, (counts.get(r.metric_id) || 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1])[0];
  const metric = top ? rows.find((r) => r.metric_id === top[0]).metric : null;
  const sota = metric && cat.has("sota_over_time")
    ? (await api("/queries/sota_over_time", { benchmark: entity.name, metric })).items : [];
  const chart = h("div", { class: "chart", "data-testid": "sota-chart" });
  const table = sortableTable(rows, [
    { key: "rank", label: "#", sort: (r) => r.rank, cell: (r) => r.rank },
    { key: "subject", label: "Method or model", sort: (r) => r.subject,
      cell: (r) => orLink(r.subject, r.subject_id, entityHref) },
    { key: "value", label: "Value", sort: (r) => r.number, cell: valueCell },
    { key: "metric", label: "Metric", sort: (r) => r.metric, cell: (r) => orLink(r.metric, r.metric_id, entityHref) },
    { key: "year", label: "Year", sort: (r) => r.year, cell: (r) => r.year ?? "—" },
    { key: "paper", label: "Paper", sort: (r) => r.title || r.paper, cell: paperCell },
  ], "leaderboard");
  const section = h("section", { class: "results-section" },
    h("h2", {}, `Leaderboard (${rows.length}${board.next_offset !== null ? "+" : ""})`),
    h("p", { class: "small muted" }, "What papers report on ", entity.name, ", best first (higher is better unless the ",
      "metric says otherwise, marked ↓). Hover a row for the sentence that reports it; click a heading to sort."),
    table,
    sota.length ? [h("h3", {}, `Best ${metric} by year`), chart] : null);
  return { section, after: () => sota.length && drawSota(chart, sota, metric) };
}

function drawSota(container, rows, metric) {
  const width = Math.max(320, Math.min(container.clientWidth || 640, 900));
  const plot = new uPlot({
    width, height: 240,
    scales: { x: { time: false } },
    axes: [{ values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : "")) }, {}],
    series: [{ label: "year" }, { label: metric, stroke: "#3b7dd8", width: 2, points: { show: true, size: 8 } }],
  }, [rows.map((r) => r.year), rows.map((r) => r.number)], container);
  window.paperkgChart = plot;   // for tests and the browser console
}

async function subjectResults(entity) {
  const answer = await api("/queries/results_of", { name: entity.name, limit: RESULT_ROWS });
  const rows = answer.items.filter((r) => r.subject === entity.id);
  if (!rows.length) return null;
  const table = sortableTable(rows, [
    { key: "value", label: "Value", sort: (r) => r.number, cell: valueCell },
    { key: "kind", label: "Kind", sort: (r) => r.kind, cell: (r) => r.kind ?? "—" },
    { key: "benchmark", label: "Benchmark", sort: (r) => r.benchmark,
      cell: (r) => orLink(r.benchmark, r.benchmark_id, entityHref) },
    { key: "metric", label: "Metric", sort: (r) => r.metric, cell: (r) => orLink(r.metric, r.metric_id, entityHref) },
    { key: "baseline", label: "Against", sort: (r) => r.baseline,
      cell: (r) => orLink(r.baseline, r.baseline_id, entityHref) },
    { key: "year", label: "Year", sort: (r) => r.year, cell: (r) => r.year ?? "—" },
    { key: "paper", label: "Paper", sort: (r) => r.title || r.paper, cell: paperCell },
  ], "results-of");
  return { section: h("section", { class: "results-section" },
    h("h2", {}, `Reported results (${rows.length}${answer.next_offset !== null ? "+" : ""})`),
    h("p", { class: "small muted" }, "Hover a row for the sentence that reports it; click a heading to sort."),
    table) };
}
