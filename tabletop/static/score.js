// Score Buddy page: all state lives on the server (a JSON file); this script only shows it
// and collects one hand's entry. URLs are relative so the page works under any mount.
"use strict";

const $ = (id) => document.getElementById(id);
let state = null;          // last answer of api/book
let entries = {};          // entry key -> {chips: [numbers], number: "digits"}
let closer = null;         // who went out (standard: required; reverse: optional)
let active = null;         // reverse: the player whose hand the keypad fills in

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function run(task) {
  try {
    await task();
    showError("");
  } catch (err) {
    showError(err.message);
  }
}

// ------------------------------------------------------------------ entry
const reverse = () => state && state.book && state.book.variant === "reverse";
const entryKey = () => (reverse() ? active : "hand");

function entry(key = entryKey()) {
  if (key === null) return null;
  if (!entries[key]) entries[key] = {chips: [], number: ""};
  return entries[key];
}

const entrySum = (e) => e.chips.reduce((a, b) => a + b, 0) + (parseInt(e.number, 10) || 0);

function resetEntry() {
  entries = {};
  closer = null;
  active = reverse() ? state.book.players[0] : null;
}

function addChip(value) {
  const e = entry();
  if (!e) return showError("choose whose hand you are counting first");
  e.chips.push(value);
  renderEntry();
}

function typeDigit(digit) {
  const e = entry();
  if (!e) return;
  if (e.number.length < 4) e.number = (e.number === "0" ? "" : e.number) + digit;
  renderEntry();
}

function renderEntry() {
  const e = entry();
  const chips = $("chips");
  chips.textContent = "";
  if (e) {
    for (const chip of e.chips) {
      const span = document.createElement("span");
      span.className = `chip c${chip}`;
      span.textContent = `+${chip}`;
      chips.appendChild(span);
    }
  }
  $("entry-number").value = e ? e.number : "";
  $("entry-sum").textContent = e ? entrySum(e) : 0;
  for (const button of document.querySelectorAll("#closers button")) {
    button.classList.toggle("selected", button.dataset.name === closer);
  }
  for (const row of document.querySelectorAll("#reverse-rows .rev-row")) {
    const name = row.dataset.name;
    row.classList.toggle("active", name === active);
    row.classList.toggle("closer", name === closer);
    row.querySelector(".rev-sum").textContent = entries[name] ? entrySum(entries[name]) : 0;
  }
  const over = Boolean(state && state.match_over);
  $("confirm").disabled = over || (!reverse() && closer === null);
  for (const b of document.querySelectorAll(".quick button, #keypad button, #calc-add")) b.disabled = over;
}

async function confirmHand() {
  if (reverse()) {
    const points = {};
    for (const name of state.book.players) points[name] = entries[name] ? entrySum(entries[name]) : 0;
    await run(async () => {
      render(await api("api/hand", {points_by_player: points, closer}));
      resetEntry();
      renderEntry();
    });
  } else {
    if (closer === null) return showError("tap the name of the player who closed the hand");
    await run(async () => {
      render(await api("api/hand", {closer, points: entrySum(entry())}));
      resetEntry();
      renderEntry();
    });
  }
}

// ------------------------------------------------------------------ table
function playerButton(name, testid, onClick) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "player";
  button.dataset.name = name;
  button.dataset.testid = testid;
  button.textContent = name;
  button.addEventListener("click", onClick);
  return button;
}

function buildEntryPanel() {
  const players = state.book.players;
  const closers = $("closers");
  const rows = $("reverse-rows");
  closers.textContent = "";
  rows.textContent = "";
  if (!reverse()) {
    $("entry-title").textContent = "Who closed the hand?";
    for (const name of players) {
      closers.appendChild(playerButton(name, `closer-${name}`, () => { closer = name; renderEntry(); }));
    }
    return;
  }
  $("entry-title").textContent = "Points left in each hand";
  for (const name of players) {
    const row = document.createElement("div");
    row.className = "rev-row";
    row.dataset.name = name;
    row.dataset.testid = `entry-${name}`;
    const pick = playerButton(name, `pick-${name}`, () => { active = name; renderEntry(); });
    const sum = document.createElement("span");
    sum.className = "rev-sum";
    const out = document.createElement("button");
    out.type = "button";
    out.className = "went-out";
    out.dataset.testid = `closed-${name}`;
    out.title = "this player went out: 0 points";
    out.textContent = "went out";
    out.addEventListener("click", () => {
      closer = closer === name ? null : name;
      if (closer === name) entries[name] = {chips: [], number: ""};
      renderEntry();
    });
    row.addEventListener("click", (ev) => { if (ev.target === row) { active = name; renderEntry(); } });
    row.append(pick, sum, out);
    rows.appendChild(row);
  }
}

function render(data) {
  const previous = state && state.book ? JSON.stringify([state.book.players, state.book.variant]) : null;
  state = data;
  const book = data.book;
  $("setup").hidden = book !== null;
  $("table").hidden = book === null;
  if (book === null) {
    $("match-info").textContent = "";
    buildSetup(null);
    return;
  }
  $("match-info").textContent = `${book.variant === "reverse" ? "Reverse scoring" : "Standard scoring"} · target ${book.target}`;
  if (previous !== JSON.stringify([book.players, book.variant])) {
    resetEntry();
    buildEntryPanel();
  }

  $("needed-head").textContent = book.variant === "reverse" ? "Room left" : "To target";
  const body = document.querySelector("#leaderboard tbody");
  body.textContent = "";
  data.standings.forEach((row, i) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = `standing-${i}`;
    tr.dataset.name = row.name;
    if (row.leader) tr.classList.add("leader");
    for (const [cls, text] of [["rank", row.rank], ["name", row.name], ["total num", row.total], ["needed num", row.needed]]) {
      const td = document.createElement("td");
      td.className = cls;
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });

  const history = $("history");
  history.textContent = "";
  book.hands.forEach((hand) => {
    const li = document.createElement("li");
    if (book.variant === "reverse") {
      li.textContent = book.players.map((p) => `${p} +${hand.points[p]}`).join(" · ");
      if (hand.closer) li.textContent += ` (${hand.closer} went out)`;
    } else {
      li.textContent = `${hand.closer} +${hand.points[hand.closer]}`;
    }
    history.appendChild(li);
  });
  history.scrollTop = history.scrollHeight;
  $("undo").disabled = book.hands.length === 0;

  const banner = $("banner");
  banner.hidden = !data.match_over;
  if (data.match_over) {
    const names = data.winners.join(" & ");
    banner.textContent = `★ ${names} ${data.winners.length > 1 ? "share the win" : "wins the match"}! ★`;
  }
  renderEntry();
}

// ------------------------------------------------------------------ setup
function addNameField(value = "") {
  const fields = $("player-fields");
  if (fields.children.length >= 10) return;
  const input = document.createElement("input");
  input.className = "player-name";
  input.dataset.testid = `player-name-${fields.children.length}`;
  input.placeholder = `Player ${fields.children.length + 1}`;
  input.maxLength = 24;
  input.value = value;
  fields.appendChild(input);
}

function buildSetup(book) {
  const fields = $("player-fields");
  fields.textContent = "";
  const names = book ? book.players : ["", "", ""];
  names.forEach((n) => addNameField(n));
  $("target").value = book ? book.target : state.default_target;
  $(book && book.variant === "reverse" ? "variant-reverse" : "variant-standard").checked = true;
  const presets = $("presets");
  presets.textContent = "";
  for (const value of state.presets) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "preset";
    button.dataset.testid = `preset-${value}`;
    button.textContent = value;
    button.addEventListener("click", () => { $("target").value = value; markPreset(); });
    presets.appendChild(button);
  }
  $("cancel-setup").hidden = !book;
  markPreset();
}

function markPreset() {
  for (const b of document.querySelectorAll("#presets .preset")) {
    b.classList.toggle("selected", b.textContent === $("target").value);
  }
}

async function startMatch() {
  // a new setup starts a new match: say so where it would throw recorded hands away
  if (state && state.book && state.book.hands.length && !state.match_over &&
      !confirm("Start the match with this table? The hands recorded so far are dropped and the scores go back to zero.")) return;
  const players = [...document.querySelectorAll(".player-name")].map((i) => i.value.trim()).filter((n) => n);
  const variant = $("variant-reverse").checked ? "reverse" : "standard";
  const target = Number($("target").value);
  await run(async () => {
    const data = await api("api/setup", {players, target: Number.isInteger(target) ? target : $("target").value, variant});
    state = null;  // a new table: build a fresh entry panel
    render(data);
  });
}

// ------------------------------------------------------------------ calculator
async function countCards() {
  const cards = $("calc-cards").value;
  try {
    const data = await api("api/hand-value", {cards});
    $("calc-value").textContent = data.value;
    $("calc-value").classList.remove("bad");
    showError("");
    return data.value;
  } catch (err) {
    $("calc-value").textContent = "?";
    $("calc-value").classList.add("bad");
    showError(err.message);
    return null;
  }
}

// ------------------------------------------------------------------ wiring
function wire() {
  for (const key of document.querySelectorAll(".quick-key")) {
    key.addEventListener("click", () => addChip(Number(key.dataset.add)));
  }
  for (const key of document.querySelectorAll("#keypad [data-digit]")) {
    key.addEventListener("click", () => typeDigit(key.dataset.digit));
  }
  $("key-back").addEventListener("click", () => {
    const e = entry();
    if (!e) return;
    if (e.number) e.number = e.number.slice(0, -1);
    else e.chips.pop();
    renderEntry();
  });
  $("clear").addEventListener("click", () => {
    const e = entry();
    if (e) { e.chips = []; e.number = ""; }
    renderEntry();
  });
  $("entry-number").addEventListener("input", (ev) => {
    const e = entry();
    if (!e) return;
    e.number = ev.target.value.replace(/\D/g, "").slice(0, 4);
    renderEntry();
  });
  $("entry-number").addEventListener("keydown", (ev) => { if (ev.key === "Enter") confirmHand(); });
  $("confirm").addEventListener("click", confirmHand);
  // the hands this page shows: the server refuses the undo if another page changed them since
  $("undo").addEventListener("click", () => run(async () => render(await api("api/undo", { hands: state.book.hands.length }))));
  $("new-match").addEventListener("click", () => {
    if (state.book.hands.length && !state.match_over && !confirm("Start a new match? The scores go back to zero.")) return;
    run(async () => { render(await api("api/new-match", {})); resetEntry(); renderEntry(); });
  });
  $("change-setup").addEventListener("click", () => {
    buildSetup(state.book);
    $("setup").hidden = false;
    $("table").hidden = true;
  });
  $("cancel-setup").addEventListener("click", () => { $("setup").hidden = true; $("table").hidden = false; });
  $("add-player").addEventListener("click", () => addNameField());
  $("remove-player").addEventListener("click", () => {
    const fields = $("player-fields");
    if (fields.children.length > 2) fields.lastElementChild.remove();
  });
  $("target").addEventListener("input", markPreset);
  $("start").addEventListener("click", startMatch);
  let timer = null;
  $("calc-cards").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(countCards, 250); });
  $("calc-cards").addEventListener("keydown", (ev) => { if (ev.key === "Enter") countCards(); });
  $("calc-add").addEventListener("click", async () => {
    const value = await countCards();
    if (value) addChip(value);
  });
}

async function start() {
  try {
    render(await api("api/book"));
  } catch (err) {
    // A damaged book: offer a fresh setup (the server keeps the damaged file aside).
    state = {book: null, presets: [200, 300, 500], default_target: 500};
    render(state);
    showError(err.message);
  }
}

wire();
start();
