// tablescore web page: start a Beer & Pretzels game, photograph each round, keep the scoreboard.
// Plain browser JavaScript, no build step. Talks to the JSON API under /v1/beer-pretzels.
"use strict";

const API = "/v1/beer-pretzels";
const KEY_STORAGE = "tablescore.apiKey";
const LAST_GAME_STORAGE = "tablescore.lastGame";
const tokenStorage = (gameId) => `tablescore.editToken.${gameId}`;

const $ = (id) => document.getElementById(id);
let colors = [];          // colour names of the default component set
let names = {};           // colour -> player name in the open game

class ApiError extends Error {
  constructor(problem, status) {
    super(problem.detail || `request failed (${status})`);
    this.problem = problem;
    this.status = status;
  }
}

// fetch() with the API key (asked for once when the service is closed) and problem details.
async function api(path, options = {}) {
  const headers = new Headers(options.headers || {});
  const key = localStorage.getItem(KEY_STORAGE);
  if (key) headers.set("X-API-Key", key);
  const response = await fetch(path, { ...options, headers });
  if (response.ok) return response;
  let problem = { detail: `${response.status} ${response.statusText}` };
  try {
    problem = await response.json();
  } catch (_) { /* not JSON: keep the status line */ }
  if (response.status === 401 && String(problem.code || "").startsWith("api_key")) {
    const entered = window.prompt("This tablescore needs its API key:");
    if (entered) {
      localStorage.setItem(KEY_STORAGE, entered.trim());
      return api(path, options);
    }
  }
  throw new ApiError(problem, response.status);
}

async function apiJson(path, options) {
  return (await api(path, options)).json();
}

function say(text, kind = "error") {
  const box = $("message");
  box.textContent = text;
  box.className = `message ${kind === "info" ? "info" : ""}`;
  box.hidden = !text;
}

function swatch(color) {
  const dot = document.createElement("span");
  dot.className = `swatch ${color}`;
  return dot;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

// ---- start page ------------------------------------------------------------------------------

function addPlayerRow() {
  const list = $("player-list");
  if (list.children.length >= colors.length) return;
  const row = $("player-row").content.firstElementChild.cloneNode(true);
  const select = row.querySelector("select");
  const taken = new Set([...list.querySelectorAll("select")].map((s) => s.value));
  for (const color of colors) select.append(new Option(color, color));
  select.value = colors.find((c) => !taken.has(c)) || colors[0];
  row.querySelector(".remove").addEventListener("click", () => {
    if (list.children.length > 2) row.remove();
  });
  list.append(row);
}

async function startGame(event) {
  event.preventDefault();
  const players = [...$("player-list").children].map((row) => ({
    name: row.querySelector("input").value.trim(),
    color: row.querySelector("select").value,
  }));
  $("start-game").disabled = true;
  try {
    const created = await apiJson(`${API}/games`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ players }),
    });
    localStorage.setItem(tokenStorage(created.game_id), created.edit_token);
    history.pushState({}, "", `/?game=${encodeURIComponent(created.game_id)}`);
    say("");
    showGame(created.scoreboard);
  } catch (error) {
    say(error.message);
  } finally {
    $("start-game").disabled = false;
  }
}

async function quickScore() {
  const file = $("quick-photo").files[0];
  if (!file) return;
  const form = new FormData();
  form.append("photo", file, file.name);
  await withBusy(async () => {
    const result = await apiJson(`${API}/score`, { method: "POST", body: form });
    showResult(result, "Result");
  });
  $("quick-photo").value = "";
}

// ---- a game ----------------------------------------------------------------------------------

function gameIdFromUrl() {
  return new URLSearchParams(location.search).get("game");
}

function renderScoreboard(board) {
  const table = $("scoreboard");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  head.append(el("th", "Player"));
  board.rounds.forEach((r) => head.append(el("th", `R${r.number}`)));
  head.append(el("th", "Total"));
  const body = table.createTBody();
  for (const player of board.players) {
    const row = body.insertRow();
    row.dataset.color = player.color;
    if (board.winners.includes(player.color)) row.classList.add("winner");
    const who = el("td");
    who.append(swatch(player.color), document.createTextNode(player.name));
    row.append(who);
    for (const r of board.rounds) {
      const cell = el("td", `$${r.money[player.color] ?? 0}`);
      if (r.money[player.color] !== r.scored_money[player.color]) {
        cell.classList.add("corrected");
        cell.title = `scored $${r.scored_money[player.color] ?? 0}, corrected`;
      }
      row.append(cell);
    }
    row.append(el("td", `$${board.totals[player.color] ?? 0}`, "total"));
  }
}

function renderRounds(board, canEdit) {
  const list = $("round-list");
  list.replaceChildren();
  for (const r of board.rounds) {
    const item = el("li");
    item.dataset.round = r.number;
    const title = el("strong", `Round ${r.number}`);
    item.append(title, document.createTextNode(` · ${names[r.start_player]} started`));
    if (r.corrected) {
      const last = r.corrections[r.corrections.length - 1];
      item.append(el("div", `corrected by ${last.corrected_by}`, "hint"));
    }
    const view = el("button", "Show", "secondary");
    view.type = "button";
    view.addEventListener("click", () => showRound(board.game_id, r.number));
    item.append(document.createTextNode(" "), view);
    if (canEdit) item.append(correctionForm(board, r));
    list.append(item);
  }
}

function correctionForm(board, r) {
  const details = el("details");
  details.append(el("summary", "Correct this round"));
  const form = el("form");
  for (const player of board.players) {
    const label = el("label");
    const input = el("input");
    Object.assign(input, { type: "number", min: "0", step: "1", name: player.color });
    input.value = r.money[player.color] ?? 0;
    label.append(swatch(player.color), document.createTextNode(player.name), input);
    form.append(label);
  }
  const who = el("input");
  Object.assign(who, { name: "corrected_by", placeholder: "Your name", required: true });
  const note = el("input");
  Object.assign(note, { name: "note", placeholder: "Why (optional)" });
  const save = el("button", "Save correction");
  save.type = "submit";
  form.append(who, note, save);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const money = {};
    for (const player of board.players) {
      money[player.color] = Number(form.elements[player.color].value);
    }
    try {
      const detail = await apiJson(`${API}/games/${board.game_id}/rounds/${r.number}/corrections`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-Edit-Token": localStorage.getItem(tokenStorage(board.game_id)) || "",
        },
        body: JSON.stringify({
          money,
          corrected_by: who.value.trim(),
          note: note.value.trim() || null,
        }),
      });
      say(`Round ${r.number} corrected.`, "info");
      showGame(detail.scoreboard);
    } catch (error) {
      say(error.message);
    }
  });
  details.append(form);
  return details;
}

function showGame(board) {
  names = Object.fromEntries(board.players.map((p) => [p.color, p.name]));
  const canEdit = Boolean(localStorage.getItem(tokenStorage(board.game_id)));
  if (canEdit) localStorage.setItem(LAST_GAME_STORAGE, board.game_id);
  $("start").hidden = true;
  $("game").hidden = false;
  renderScoreboard(board);
  renderRounds(board, canEdit);
  const share = `${location.origin}/?game=${encodeURIComponent(board.game_id)}`;
  $("share-link").href = share;
  $("share-link").textContent = share;
  if (board.next_round) {
    const starter = names[board.next_round.start_player];
    $("next-round").textContent = `Round ${board.next_round.number}: ${starter} tosses first.`;
    $("round-photo-label").textContent = `Photograph round ${board.next_round.number}`;
  } else {
    const winners = board.winners.map((c) => names[c]).join(" and ");
    $("next-round").textContent = `Game over. Winner: ${winners}.`;
  }
  $("round-upload").hidden = !(canEdit && board.next_round);
  $("read-only").hidden = canEdit || !board.next_round;
}

async function submitRound() {
  const file = $("round-photo").files[0];
  const gameId = gameIdFromUrl();
  if (!file || !gameId) return;
  const form = new FormData();
  form.append("photo", file, file.name);
  await withBusy(async () => {
    const detail = await apiJson(`${API}/games/${gameId}/rounds`, {
      method: "POST",
      headers: { "X-Edit-Token": localStorage.getItem(tokenStorage(gameId)) || "" },
      body: form,
    });
    showGame(detail.scoreboard);
    showResult(detail.result, `Round ${detail.round.number}`, detail.round);
  });
  $("round-photo").value = "";
}

async function showRound(gameId, number) {
  try {
    const detail = await apiJson(`${API}/games/${gameId}/rounds/${number}`);
    showResult(detail.result, `Round ${number}`, detail.round);
  } catch (error) {
    say(error.message);
  }
}

// ---- a scored photo --------------------------------------------------------------------------

async function showResult(result, title, round) {
  $("result").hidden = false;
  $("result-title").textContent = title;
  const money = round ? round.money : result.scores;
  const list = $("result-money");
  list.replaceChildren();
  for (const [color, amount] of Object.entries(money)) {
    const item = el("li");
    item.dataset.color = color;
    const who = el("span");
    who.append(swatch(color), document.createTextNode(names[color] || color));
    const player = result.players[color];
    const coins = player ? ` (${player.coins["5"]}×$5 + ${player.coins["1"]}×$1)` : "";
    item.append(who, el("span", `$${amount}${round ? "" : coins}`, "amount"));
    list.append(item);
  }
  const warnings = $("result-warnings");
  const notes = round ? round.warnings : result.warnings;
  warnings.replaceChildren(...notes.map((w) => el("li", w)));
  const url = round ? round.annotated_image_url : result.annotated_image_url;
  const image = await api(url);
  const old = $("result-image").src;
  $("result-image").src = URL.createObjectURL(await image.blob());
  if (old.startsWith("blob:")) URL.revokeObjectURL(old);
  $("result").scrollIntoView({ behavior: "smooth", block: "start" });
}

async function withBusy(work) {
  $("busy").hidden = false;
  say("");
  document.querySelectorAll("input[type=file]").forEach((i) => (i.disabled = true));
  try {
    await work();
  } catch (error) {
    say(error.status === 503 ? "The scorer is busy; try again in a few seconds." : error.message);
  } finally {
    $("busy").hidden = true;
    document.querySelectorAll("input[type=file]").forEach((i) => (i.disabled = false));
  }
}

// ---- start-up --------------------------------------------------------------------------------

async function route() {
  const gameId = gameIdFromUrl();
  $("result").hidden = true;
  if (gameId) {
    try {
      showGame(await apiJson(`${API}/games/${encodeURIComponent(gameId)}`));
    } catch (error) {
      say(error.message);
    }
    return;
  }
  $("game").hidden = true;
  $("start").hidden = false;
  const last = localStorage.getItem(LAST_GAME_STORAGE);
  $("resume").hidden = !last;
  if (last) $("resume-link").href = `/?game=${encodeURIComponent(last)}`;
}

async function init() {
  $("new-game").addEventListener("submit", startGame);
  $("add-player").addEventListener("click", addPlayerRow);
  $("quick-photo").addEventListener("change", quickScore);
  $("round-photo").addEventListener("change", submitRound);
  window.addEventListener("popstate", route);
  try {
    const sets = await apiJson(`${API}/components`);
    colors = sets[0].colors.map((c) => c.name);
  } catch (error) {
    say(error.message);
  }
  addPlayerRow();
  addPlayerRow();
  addPlayerRow();
  await route();
}

init();
