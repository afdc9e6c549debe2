// The explorer's page: draws the board the server describes (`board`: a grid of cells with tokens),
// lists the moves coloured by value, plays them, keeps the game's history (undo, redo, a chart of
// value and remoteness), and asks /api/move for an agent's replies. Plain JS, no build step.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = {
  x: "#2f6fde", o: "#e8833a", dark: "#5a3b22", light: "#e7cb98", token: "#b5651d",
  win: "#2e9e44", draw: "#e3bd1b", loss: "#8b1a1a",
};
const BOARD_PX = 400;

const state = {
  info: null,          // /api/game
  history: [],         // positions (text), history[0] the first shown
  moves: [],           // the move played into history[i] (moves[0] is null)
  index: 0,            // the position shown
  probes: new Map(),   // position text -> /api/probe answer
  agentParity: null,   // the agent moves where index % 2 == agentParity
  busy: 0,             // counter of agent requests, so that a stale reply is dropped
  hint: "",            // the moves' help line, as the page has it
};

const $ = (id) => document.getElementById(id);

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function getJSON(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error((await response.text()).trim());
  return response.json();
}

async function probe(position) {
  if (!state.probes.has(position)) {
    state.probes.set(position, await getJSON("/api/probe?position=" + encodeURIComponent(position)));
  }
  return state.probes.get(position);
}

// --- values -----------------------------------------------------------------------------------
function preference(move) {  // smaller is better for the mover: fastest win, draw, slowest loss
  if (move.value === "win") return [0, move.remoteness];
  if (move.value === "draw") return [1, 0];
  return [2, -move.remoteness];
}

function better(a, b) {
  const [pa, pb] = [preference(a), preference(b)];
  return pa[0] - pb[0] || pa[1] - pb[1];
}

function valueText(value, remoteness) {
  return remoteness === null || remoteness === undefined ? value : `${value} in ${remoteness}`;
}

// --- the board --------------------------------------------------------------------------------
function geometry(board) {
  const cell = Math.min(BOARD_PX / board.cols, BOARD_PX / board.rows, 96);
  const left = board.row_labels.length ? 26 : 8;
  const top = board.col_labels.length ? 24 : 8;
  return { cell, left, top, width: left + cell * board.cols + 8, height: top + cell * board.rows + 8 };
}

function cellBox(g, board, index) {
  const row = Math.floor(index / board.cols), col = index % board.cols;
  return { x: g.left + col * g.cell, y: g.top + row * g.cell, cx: g.left + (col + 0.5) * g.cell,
           cy: g.top + (row + 0.5) * g.cell };
}

function drawToken(svg, token, cx, cy, cell, opacity = 1) {
  const group = el("g", { opacity }, svg);
  const colour = COLOURS[token.colour] || "#555";
  const r = (token.size * cell) / 2;
  const stroke = Math.max(3, cell * 0.09);
  if (token.shape === "cross") {
    const d = r * 0.8;
    for (const [x1, y1, x2, y2] of [[-d, -d, d, d], [-d, d, d, -d]]) {
      el("line", { x1: cx + x1, y1: cy + y1, x2: cx + x2, y2: cy + y2, stroke: colour, "stroke-width": stroke,
                   "stroke-linecap": "round" }, group);
    }
  } else if (token.shape === "ring") {
    el("circle", { cx, cy, r: r * 0.8, fill: "none", stroke: colour, "stroke-width": stroke }, group);
  } else if (token.shape === "square") {
    el("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, rx: r * 0.15, fill: colour,
                 stroke: "#00000055", "stroke-width": 1.5 }, group);
  } else {
    el("circle", { cx, cy, r, fill: colour, stroke: "#00000040", "stroke-width": 1.5 }, group);
  }
  if (token.hollow) el("circle", { cx, cy, r: r * 0.38, fill: "#fbf7ef", stroke: "#00000040" }, group);
  if (token.label) {
    const text = el("text", { x: cx + r * 0.95, y: cy + r * 0.95, "font-size": Math.max(10, cell * 0.2),
                              "text-anchor": "middle", class: "label", fill: "#24292f",
                              "font-family": "ui-monospace, monospace", "font-weight": 700 }, group);
    text.textContent = token.label;
  }
  return group;
}

function drawFrame(svg, g, board) {
  const w = g.cell * board.cols, h = g.cell * board.rows;
  if (board.style === "slots") {
    el("rect", { x: g.left - 4, y: g.top - 4, width: w + 8, height: h + 8, rx: 10, fill: "#34495e" }, svg);
  } else if (board.style === "grid") {
    el("rect", { x: g.left, y: g.top, width: w, height: h, rx: 6, fill: "#fbf7ef", stroke: "#8a7f6a" }, svg);
  }
  for (let i = 0; i < board.rows * board.cols; i++) {
    const b = cellBox(g, board, i);
    if (board.style === "cubes") {
      el("rect", { x: b.x + 3, y: b.y + 3, width: g.cell - 6, height: g.cell - 6, rx: g.cell * 0.12,
                   fill: "#f3e7cc", stroke: "#b9a77f", "stroke-width": 2 }, svg);
    } else if (board.style === "slots") {
      el("circle", { cx: b.cx, cy: b.cy, r: g.cell * 0.42, fill: "#ffffff" }, svg);
    } else if (board.style === "rows") {
      el("circle", { cx: b.cx, cy: b.cy, r: g.cell * 0.36, fill: "none", stroke: "#e5e1d8", "stroke-width": 1.5,
                     "stroke-dasharray": "3 3" }, svg);
    } else {
      el("rect", { x: b.x, y: b.y, width: g.cell, height: g.cell, fill: "none", stroke: "#8a7f6a" }, svg);
    }
  }
  board.col_labels.forEach((label, col) => {
    const t = el("text", { x: g.left + (col + 0.5) * g.cell, y: g.top - 8, "text-anchor": "middle",
                           class: "axis", fill: "#6b7280", "font-size": 13 }, svg);
    t.textContent = label;
  });
  board.row_labels.forEach((label, row) => {
    const t = el("text", { x: g.left - 12, y: g.top + (row + 0.5) * g.cell + 5, "text-anchor": "middle",
                           class: "axis", fill: "#6b7280", "font-size": 13 }, svg);
    t.textContent = label;
  });
}

// The cells a move's text names, in order ("a1-d1": a1 then d1), by the board's labels.
function namedCells(board, text) {
  const cells = [];
  for (const [, col, row] of text.matchAll(/([a-z]+)(\d+)/g)) {
    const c = board.col_labels.indexOf(col), r = board.row_labels.indexOf(row);
    if (c >= 0 && r >= 0) cells.push(r * board.cols + c);
  }
  return cells;
}

// Where a move shows on the board: the first cell its text names (a placement, a cube taken), else
// the one cell it changes, else where the counters it takes begin (Nim); any other move shows when
// its entry in the list is hovered.
function anchor(board, move, change) {
  const named = namedCells(board, move.move);
  if (named.length) return named[0];
  if (change.cells.length === 1) return change.cells[0][0];
  if (change.cells.length > 1 && change.cells.every(([, after]) => after === null)) {
    return Math.min(...change.cells.map(([cell]) => cell));
  }
  return null;
}

function drawBoard(data) {
  const board = data.board;
  const g = geometry(board);
  const holder = $("board");
  holder.textContent = "";
  const svg = el("svg", { width: g.width, height: g.height, viewBox: `0 0 ${g.width} ${g.height}`,
                          role: "img", "aria-label": data.position }, holder);
  drawFrame(svg, g, board);
  board.cells.forEach((token, i) => {
    if (token) { const b = cellBox(g, board, i); drawToken(svg, token, b.cx, b.cy, g.cell); }
  });
  const overlay = el("g", { id: "overlay" }, svg);
  const dots = el("g", { id: "dots" }, svg);
  el("g", { id: "targets" }, svg);
  const byAnchor = new Map();
  data.moves.forEach((move, k) => {
    const at = anchor(board, move, data.changes[k]);
    if (at === null) return;
    if (!byAnchor.has(at)) byAnchor.set(at, []);
    byAnchor.get(at).push(k);
  });
  for (const [cell, ks] of byAnchor) {
    const best = ks.reduce((a, b) => (better(data.moves[a], data.moves[b]) <= 0 ? a : b));
    const b = cellBox(g, board, cell);
    const empty = board.cells[cell] === null;
    const r = g.cell * (empty ? 0.17 : 0.11);
    const [x, y] = empty ? [b.cx, b.cy] : [b.x + g.cell - r - 5, b.y + r + 5];
    const dot = el("circle", { cx: x, cy: y, r, fill: COLOURS[data.moves[best].value], stroke: "#fff",
                               "stroke-width": 2, class: "dot", "data-cell": cell }, dots);
    const title = el("title", {}, dot);
    title.textContent = ks.map((k) => `${data.moves[k].move}: ${valueText(data.moves[k].value,
                                                                          data.moves[k].remoteness)}`).join("\n");
    dot.style.cursor = "pointer";
    dot.addEventListener("mouseenter", () => showMove(data, g, best));
    dot.addEventListener("mouseleave", () => showMove(data, g, null));
    dot.addEventListener("click", () => chooseAt(data, ks));
  }
  state.geometry = g;
  drawAside(data);
}

function drawAside(data, highlight = false) {
  const box = $("aside");
  box.textContent = "";
  const board = data.board;
  if (!board.aside.length) return;
  const label = document.createElement("span");
  label.textContent = board.aside_label;
  box.appendChild(label);
  const size = 56;
  const svg = el("svg", { width: size * board.aside.length, height: size }, box);
  board.aside.forEach((token, i) => {
    el("rect", { x: i * size + 2, y: 2, width: size - 4, height: size - 4, rx: 8, fill: "#fbf7ef",
                 stroke: highlight ? "#24292f" : "#c4cad1", "stroke-width": highlight ? 3 : 1 }, svg);
    drawToken(svg, token, i * size + size / 2, size / 2, size);
  });
}

// Outline the cells move k changes, in its value's colour, and show what they hold after it.
function showMove(data, g, k) {
  const overlay = document.querySelector("#board #overlay");
  if (!overlay) return;
  overlay.textContent = "";
  document.querySelectorAll("#moves li.lit").forEach((li) => li.classList.remove("lit"));
  drawAside(data, false);
  if (k === null) return;
  const move = data.moves[k];
  const colour = COLOURS[move.value];
  for (const [cell, after] of data.changes[k].cells) {
    const b = cellBox(g, data.board, cell);
    el("rect", { x: b.x + 2, y: b.y + 2, width: g.cell - 4, height: g.cell - 4, rx: 6, fill: "#ffffffd0",
                 stroke: colour, "stroke-width": 4 }, overlay);
    if (after) drawToken(overlay, after, b.cx, b.cy, g.cell, 0.75);
  }
  if (data.changes[k].aside) drawAside(data, true);
  const li = document.querySelector(`#moves li[data-index="${k}"]`);
  if (li) li.classList.add("lit");
}

// A click on a move's mark: the move, if it is the only one there (or all lead to one position);
// else its candidates are marked in the list, and where each names a second cell of its own (a
// cube's destination), a mark there plays it.
function chooseAt(data, ks) {
  const children = new Set(ks.map((k) => data.moves[k].position));
  if (children.size === 1) { play(data.moves[ks[0]].move, data.moves[ks[0]].position); return; }
  document.querySelectorAll("#moves li.candidate").forEach((li) => li.classList.remove("candidate"));
  ks.forEach((k) => document.querySelector(`#moves li[data-index="${k}"]`).classList.add("candidate"));
  document.querySelector(`#moves li[data-index="${ks[0]}"]`).scrollIntoView({ block: "nearest" });
  $("hint").textContent = `${ks.length} moves start there: choose one on the board or in the list.`;
  const g = state.geometry, board = data.board;
  const targets = document.querySelector("#board #targets");
  targets.textContent = "";
  const seconds = ks.map((k) => namedCells(board, data.moves[k].move)[1]);
  if (seconds.some((cell) => cell === undefined) || new Set(seconds).size !== ks.length) return;
  ks.forEach((k, i) => {
    const b = cellBox(g, board, seconds[i]);
    const mark = el("rect", { x: b.x + g.cell * 0.3, y: b.y + g.cell * 0.3, width: g.cell * 0.4,
                              height: g.cell * 0.4, rx: 6, fill: COLOURS[data.moves[k].value], stroke: "#fff",
                              "stroke-width": 2, class: "target", "data-move": data.moves[k].move }, targets);
    el("title", {}, mark).textContent = `${data.moves[k].move}: ${valueText(data.moves[k].value,
                                                                         data.moves[k].remoteness)}`;
    mark.style.cursor = "pointer";
    mark.addEventListener("mouseenter", () => showMove(data, g, k));
    mark.addEventListener("mouseleave", () => showMove(data, g, null));
    mark.addEventListener("click", () => play(data.moves[k].move, data.moves[k].position));
  });
}

// --- the moves --------------------------------------------------------------------------------
function drawMoves(data) {
  const list = $("moves");
  list.textContent = "";
  $("hint").textContent = state.hint;
  $("move-count").textContent = data.over ? "(none: the game is over)" : `(${data.moves.length})`;
  const order = data.moves.map((_, k) => k).sort((a, b) => better(data.moves[a], data.moves[b]) || a - b);
  for (const k of order) {
    const move = data.moves[k];
    const li = document.createElement("li");
    li.className = move.value;
    li.dataset.index = k;
    li.dataset.move = move.move;
    li.title = `${move.move} → ${move.position}`;
    const name = document.createElement("b");
    name.textContent = move.move;
    const value = document.createElement("span");
    value.textContent = valueText(move.value, move.remoteness);
    li.append(name, value);
    li.addEventListener("mouseenter", () => showMove(data, state.geometry, k));
    li.addEventListener("mouseleave", () => showMove(data, state.geometry, null));
    li.addEventListener("click", () => play(move.move, move.position));
    list.appendChild(li);
  }
}

// --- the chart of value and remoteness along the game -----------------------------------------
// Up: the side to move at the first position wins; down: the other side wins; on the middle line: a
// draw. Height is remoteness (plies to the end); each point is coloured by the value for the side to
// move there.
function drawChart() {
  const holder = $("chart");
  holder.textContent = "";
  const shown = state.history.map((position) => state.probes.get(position)).filter(Boolean);
  const w = Math.max(300, Math.min(holder.clientWidth || 390, 520)), h = 230;
  const left = 40, right = 12, top = 18, bottom = 28;
  const plies = Math.max(shown.length - 1, 8);
  const maxR = Math.max(4, ...shown.map((d) => d.remoteness || 0));
  const x = (i) => left + (i / plies) * (w - left - right);
  const mid = top + (h - top - bottom) / 2, half = (h - top - bottom) / 2;
  const y = (signed) => mid - (signed / maxR) * half;
  const svg = el("svg", { width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img",
                          "aria-label": "value and remoteness along the game" }, holder);
  el("rect", { x: left, y: top, width: w - left - right, height: half, fill: "#2e9e4410" }, svg);
  el("rect", { x: left, y: mid, width: w - left - right, height: half, fill: "#8b1a1a10" }, svg);
  const first = shown.length ? shown[0].board : { mover: "", other: "" };
  const up = first.mover ? `${first.mover} wins` : "first to move wins";
  const down = first.other ? `${first.other} wins` : "other side wins";
  const text = (content, attrs) => { const t = el("text", { "font-size": 11, fill: "#6b7280", ...attrs }, svg);
                                     t.textContent = content; return t; };
  $("chart-legend").textContent = `Above the line ${up}, below it ${down}, on it a draw; the height is the ` +
    "remoteness, each dot coloured by the value for the side to move there. Click a dot to go there.";
  for (const r of [maxR, Math.round(maxR / 2)]) {
    for (const s of [1, -1]) {
      el("line", { x1: left, x2: w - right, y1: y(s * r), y2: y(s * r), stroke: "#e5e7eb" }, svg);
      text(String(r), { x: left - 6, y: y(s * r) + 4, "text-anchor": "end" });
    }
  }
  text("0", { x: left - 6, y: mid + 4, "text-anchor": "end" });
  el("line", { x1: left, x2: w - right, y1: mid, y2: mid, stroke: "#9ca3af" }, svg);
  const step = Math.max(1, Math.ceil(plies / 8));
  for (let i = 0; i <= plies; i += step) text(String(i), { x: x(i), y: h - 8, "text-anchor": "middle" });
  // signed remoteness, up for the first position's side to move
  const points = shown.map((d, i) => {
    const forFirst = i % 2 === 0 ? d.value : ({ win: "loss", loss: "win" }[d.value] || d.value);
    const r = d.value === "draw" ? 0 : Math.max(d.remoteness, 0.15);
    return { i, d, signed: forFirst === "win" ? r : forFirst === "loss" ? -r : 0 };
  });
  if (points.length > 1) {
    el("polyline", { points: points.map((p) => `${x(p.i)},${y(p.signed)}`).join(" "), fill: "none",
                     stroke: "#9ca3af", "stroke-width": 1.5 }, svg);
  }
  for (const p of points) {
    const dot = el("circle", { cx: x(p.i), cy: y(p.signed), r: p.i === state.index ? 6 : 4,
                               fill: COLOURS[p.d.value], stroke: p.i === state.index ? "#24292f" : "#fff",
                               "stroke-width": 1.5, opacity: p.i > state.index ? 0.35 : 1 }, svg);
    const title = el("title", {}, dot);
    title.textContent = `ply ${p.i}${state.moves[p.i] ? " after " + state.moves[p.i] : ""}: ${p.d.value_text}`;
    dot.style.cursor = "pointer";
    dot.addEventListener("click", () => go(p.i));
  }
}

function drawPlayed() {
  const list = $("played");
  list.textContent = "";
  state.history.forEach((position, i) => {
    const li = document.createElement("li");
    li.textContent = i === 0 ? "start" : `${i}. ${state.moves[i]}`;
    if (i === state.index) li.className = "here";
    else if (i > state.index) li.className = "future";
    li.title = position;
    li.addEventListener("click", () => go(i));
    list.appendChild(li);
  });
}

// --- showing a position -----------------------------------------------------------------------
async function render() {
  const position = state.history[state.index];
  let data;
  try {
    data = await probe(position);
  } catch (error) {
    showError(error.message);
    return;
  }
  showError("");
  drawBoard(data);
  drawMoves(data);
  const value = $("value");
  value.textContent = data.value_text;
  value.className = "value " + (data.over ? "over" : data.value);
  const whose = data.board.mover ? ` for ${data.board.mover}, the side to move` : " for the side to move";
  value.title = data.over ? "" : data.value_text + whose;
  $("caption").textContent = data.board.caption;
  $("position-input").value = data.position;
  const link = "?position=" + encodeURIComponent(data.position);
  window.history.replaceState(null, "", link);
  $("link").href = link;
  $("undo").disabled = $("first").disabled = state.index === 0;
  $("redo").disabled = state.index >= state.history.length - 1;
  $("agent-move").disabled = data.over;
  updateSides(data);
  drawChart();
  drawPlayed();
}

function play(move, position) {
  state.history = state.history.slice(0, state.index + 1).concat([position]);
  state.moves = state.moves.slice(0, state.index + 1).concat([move]);
  state.index += 1;
  return render().then(agentTurn);
}

function go(index) {
  state.index = Math.max(0, Math.min(index, state.history.length - 1));
  state.busy += 1;
  render();
}

async function start(position) {
  try {
    const data = await probe(position);  // normalised notation: one key per position
    state.probes.set(data.position, data);
    state.history = [data.position];
  } catch (error) {
    showError(error.message);
    return;
  }
  state.moves = [null];
  state.index = 0;
  state.busy += 1;
  await render();
  agentTurn();
}

// --- the agent --------------------------------------------------------------------------------
function updateSides(data) {
  const side = $("side");
  const mover = data.board.mover, other = data.board.other;
  const moverNow = state.index % 2;  // the parity of the side to move now
  const options = [["off", "nobody"]];
  options.push([String(moverNow), mover ? mover : "the side to move"]);
  options.push([String(1 - moverNow), other ? other : "the other side"]);
  side.textContent = "";
  for (const [value, label] of options) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    side.appendChild(option);
  }
  side.value = state.agentParity === null ? "off" : String(state.agentParity);
}

function skill() {
  return Number($("skill").value);
}

function showSkill() {
  const p = skill();
  $("skill-text").textContent = p === 1 ? "1 (its own move always)"
    : p === 0 ? "0 (random moves)" : `${p.toFixed(2)} (its own move, else random)`;
}

async function agentMove() {
  const position = state.history[state.index];
  const ticket = ++state.busy;
  const agent = $("agent").value;
  const seed = Number($("seed").value || 0) + state.index;
  const query = new URLSearchParams({ position, agent, p: String(skill()), seed: String(seed) });
  try {
    const answer = await getJSON("/api/move?" + query.toString());
    if (ticket !== state.busy || state.history[state.index] !== position) return;  // the user moved on
    $("agent-said").textContent = `${answer.agent} played ${answer.move}` +
      (answer.by === "random" ? ` (a random move: skill ${answer.p})` : "");
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (ticket !== state.busy) return;
    await play(answer.move, answer.position);
  } catch (error) {
    showError(error.message);
  }
}

function agentTurn() {
  const data = state.probes.get(state.history[state.index]);
  if (state.agentParity !== null && data && !data.over && state.index % 2 === state.agentParity) agentMove();
}

// --- wiring -----------------------------------------------------------------------------------
async function main() {
  try {
    state.info = await getJSON("/api/game");
  } catch (error) {
    showError(error.message);
    return;
  }
  state.hint = $("hint").textContent;
  $("game").textContent = state.info.describe;
  document.title = `${state.info.describe} · retrograde explorer`;
  $("position-input").placeholder = state.info.notation;
  for (const spec of state.info.agents) {
    const option = document.createElement("option");
    option.value = option.textContent = spec;
    $("agent").appendChild(option);
  }
  $("goto").addEventListener("submit", (event) => { event.preventDefault(); start($("position-input").value); });
  $("first").addEventListener("click", () => go(0));
  $("undo").addEventListener("click", () => go(state.index - 1));
  $("redo").addEventListener("click", () => go(state.index + 1));
  $("new").addEventListener("click", () => start(state.info.start));
  $("side").addEventListener("change", () => {
    const value = $("side").value;
    state.agentParity = value === "off" ? null : Number(value);
    agentTurn();
  });
  $("agent-move").addEventListener("click", agentMove);
  $("skill").addEventListener("input", showSkill);
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
    if (event.key === "ArrowLeft") go(state.index - 1);
    if (event.key === "ArrowRight") go(state.index + 1);
  });
  showSkill();
  const given = new URLSearchParams(window.location.search).get("position");
  await start(given && given.trim() ? given : state.info.start);
}

main();
