// unolab table: draws what the server's view says and sends back action names.
// The server holds the game; this page never sees other players' cards.
"use strict";

const params = new URLSearchParams(location.search);
const STEP_MS = params.has("fast") ? 0 : 550; // pause between the agents' moves
const COLOUR_NAMES = { R: "red", Y: "yellow", G: "green", B: "blue" };
const SYMBOLS = { S: "⊘", R: "⇄", "+2": "+2", W: "★", "W+4": "+4" };
const WORD_BUTTONS = ["draw", "pass", "uno", "silent", "challenge", "accept"];

const $ = (sel) => document.querySelector(sel);
let tableId = sessionStorage.getItem("unolab-table");
let view = null;
let queue = [];
let busy = false;
let gameOver = null;

function setState(state) { document.body.dataset.state = state; }

async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(path, opts);
  const data = await res.json();
  if (!res.ok) throw Object.assign(new Error(data.error || res.statusText), { status: res.status });
  return data;
}

// ---------------------------------------------------------------- cards
// A card without its colour (the trick game's laid cards: "7", "skip", "+2", "wild", "+4"),
// drawn neutral: colours never matter there, and the colour the engine laid would tell
// what else the hand holds.
const FACES = { skip: "S", reverse: "R", "+2": "+2", wild: "W", "+4": "W+4" };
function cardParts(name) {
  if (name === "W" || name === "W+4") return { colour: "W", kind: name };
  if (/^[0-9]$/.test(name)) return { colour: "N", kind: name };
  if (name in FACES) return { colour: FACES[name].startsWith("W") ? "W" : "N", kind: FACES[name] };
  return { colour: name[0], kind: name.slice(1) };
}

const KIND_NAMES = { S: "skip", R: "reverse", "+2": "draw two", W: "wild", "W+4": "wild draw four" };
// What a screen reader says for a card: "red 5", "blue draw two", "wild draw four".
function cardName(name) {
  const { colour, kind } = cardParts(name);
  const what = KIND_NAMES[kind] || kind;
  return colour in COLOUR_NAMES ? `${COLOUR_NAMES[colour]} ${what}` : what;
}

function cardEl(name, opts = {}) {
  const { colour, kind } = cardParts(name);
  const shown = opts.numberOnly ? kind : (SYMBOLS[kind] || kind);
  const el = document.createElement(opts.button ? "button" : "div");
  el.className = `card c-${colour}`;
  el.dataset.card = name;
  el.title = name;
  el.setAttribute("aria-label", cardName(name));
  el.innerHTML = `<span class="corner">${shown}</span><span class="mid"><b>${shown}</b></span><span class="corner br">${shown}</span>`;
  if (opts.button) el.type = "button";
  return el;
}

// ---------------------------------------------------------------- setup form
function selectedGame() { return document.querySelector("input[name=game]:checked").value; }

// The table size the form asks for, within the sizes the server says the game seats
// (/api/options: [fewest, most]; the trick game's is fixed at four).
function tableSize(info) {
  const [fewest, most] = info.players;
  return Math.max(fewest, Math.min(most, Number($("#players").value) || fewest));
}

let served = null; // /api/options: the same for the whole visit
async function gameOptions() { return served || (served = await api("/api/options")); }

async function buildSeats(event) {
  const options = await gameOptions();
  const game = selectedGame();
  const info = options.games[game];
  const n = tableSize(info);
  // the box shows what will be played, but not while it is being typed in (an empty box is no 2)
  if (info.players[0] !== info.players[1] && event?.type !== "input") $("#players").value = n;
  $("#players").min = info.players[0];
  $("#players").max = info.players[1];
  $("#players-row").hidden = info.players[0] === info.players[1];
  $("#target-row").hidden = !info.targets; // a game played as a match to a target (classic UNO)
  if (info.targets && !$("#presets").children.length) buildPresets(info);
  $("#house-rules-row").hidden = !info.house_rules; // the checkboxes are classic UNO's house rules
  const seats = $("#seats");
  const previous = [...seats.querySelectorAll("select")].map((s) => s.value);
  seats.innerHTML = "";
  for (let s = 1; s < n; s++) {
    const row = document.createElement("div");
    row.className = "seat";
    const label = !info.partners.length ? `Seat ${s}` : info.partners.includes(s) ? `Seat ${s} (your partner)` : `Seat ${s} (opponent)`;
    row.innerHTML = `<span>${label}</span>`;
    const select = document.createElement("select");
    select.dataset.seat = s;
    select.setAttribute("aria-label", `${label}: opponent`);
    for (const p of info.policies) {
      const o = document.createElement("option");
      o.value = p; o.textContent = p;
      select.appendChild(o);
    }
    select.value = previous[s - 1] && info.policies.includes(previous[s - 1]) ? previous[s - 1] : info.default_opponent;
    row.appendChild(select);
    seats.appendChild(row);
  }
}

// The target presets and the default target, as the server serves them (/api/options).
function buildPresets(info) {
  for (const value of info.targets) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "preset" + (value === info.default_target ? " selected" : "");
    b.dataset.target = value;
    b.textContent = value;
    b.addEventListener("click", () => {
      document.querySelectorAll(".preset").forEach((x) => x.classList.remove("selected"));
      b.classList.add("selected");
      $("#target").value = value;
    });
    $("#presets").appendChild(b);
  }
  $("#target").value = info.default_target;
}

// What the form calls each field a server message may name (a rules option, a request key).
// The server alone decides what is valid, in the rules' own words (UnoRules.target_score); the
// form shows its labels instead. One list, read from the form itself: an element's data-field
// or a box's data-rule, and the label's own words. A box that turns its rule off
// (data-value="false") is left out: its label says the opposite of the rule's name.
function formLabels() {
  const words = (el) => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join("").trim();
  const labels = {};
  for (const el of document.querySelectorAll("#setup [data-field]")) for (const name of el.dataset.field.split(" ")) labels[name] = words(el);
  for (const box of document.querySelectorAll("#setup input[data-rule]:not([data-value])")) labels[box.dataset.rule] = words(box.closest("label"));
  return labels;
}

// A server message about the setup in the form's words: "UnoRules.target_score must lie in
// 1..1,000,000, got 0" -> "“Match to” must lie in 1..1,000,000, got 0".
function inFormWords(message) {
  const labels = formLabels();
  return message.replace(/\b(?:\w+Rules\.)?([a-z][a-z0-9_]*)\b/g, (whole, name) => (name in labels ? `“${labels[name]}”` : whole));
}

async function startGame() {
  $("#setup-error").textContent = "";
  const game = selectedGame();
  const body = {
    game,
    players: tableSize((await gameOptions()).games[game]), // the seats the form shows
    opponents: [...document.querySelectorAll("#seats select")].map((s) => s.value),
  };
  // a match's target only; left empty, the server's default (Number("") would send 0)
  if (!$("#target-row").hidden && $("#target").value.trim() !== "") body.target = Number($("#target").value);
  if ((await gameOptions()).games[game].house_rules) {
    body.rules = { scoring: $("#scoring").value };
    // a box turns its rule on, or sets the value it names (data-value="false": must_play_drawn off)
    for (const box of document.querySelectorAll("#house-rules-row input[data-rule]")) if (box.checked) body.rules[box.dataset.rule] = box.dataset.value !== "false";
  }
  if ($("#seed").value !== "") body.seed = Number($("#seed").value);
  if (tableId) body.replaces = tableId; // the table this page leaves is closed, not kept for hours
  try {
    const data = await api("/api/new", body);
    tableId = data.id;
    sessionStorage.setItem("unolab-table", tableId);
    showLog(data.notes, []);
    $("#setup").hidden = true;
    $("#table").hidden = false;
    gameOver = null;
    $("#game-over").hidden = true;
    view = data.view;
    render();
    play(data.events, data.view);
  } catch (err) {
    $("#setup-error").textContent = inFormWords(err.message);
  }
}

// ---------------------------------------------------------------- events, one after another
function play(events, finalView) {
  queue.push(...events.map((e) => ({ event: e })));
  queue.push({ final: finalView });
  if (!busy) drain();
}

async function drain() {
  busy = true;
  setState("busy");
  render();
  while (queue.length) {
    const item = queue.shift();
    if (item.final) { view = item.final; continue; }
    const e = item.event;
    logLine(e.text, e.player === e.view.seat);
    view = e.view;
    render();
    // every hand of a match, the deciding one too, gets its scores (as in the terminal); a
    // single game's result is the banner's
    if (e.hand_over && (!e.game_over || e.hand_over.needed)) await showHandOver(e);
    if (e.game_over) gameOver = e;
    if (e.player !== view.seat && STEP_MS) await new Promise((r) => setTimeout(r, STEP_MS));
  }
  busy = false;
  render();
  if (gameOver) showGameOver(gameOver);
  setState(view.over ? "over" : view.moves.length ? "your-turn" : "waiting");
}

// The move list from its start: the notes on the agents (an agent at a table it was not fitted
// to: said first), then the lines the server kept ({text, you}: a reload shows them again).
function showLog(notes, lines) {
  $("#log").innerHTML = "";
  for (const note of notes || []) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = `Note: ${note}`;
    $("#log").appendChild(li);
  }
  for (const line of lines || []) logLine(line.text, line.you);
}

function logLine(text, you) {
  const li = document.createElement("li");
  li.textContent = text;
  if (you) li.className = "you";
  $("#log").appendChild(li);
  const side = $("#side"); // scroll the panel, never the window (on a phone the board would leave the screen)
  if (side.scrollHeight > side.clientHeight) side.scrollTop = side.scrollHeight;
}

function showHandOver(e) {
  const info = e.hand_over;
  const names = e.view.players.map((p) => p.name);
  $("#hand-over-title").textContent = `Hand over: ${names[info.winner]} went out`;
  const order = info.order;  // leader first, as the server orders them
  let html = `<tr><th>player</th><th>this hand</th><th>total</th><th>${e.view.needed_label}</th></tr>`;
  for (const s of order) html += `<tr><td>${names[s]}</td><td>+${info.points[s]}</td><td>${info.scores[s]}</td><td>${info.needed ? info.needed[s] : ""}</td></tr>`;
  $("#hand-over-table").innerHTML = html;
  openDialog("#hand-over"); // the keyboard goes to Continue
  setState("hand-over");
  return new Promise((resolve) => {
    $("#continue").onclick = () => { $("#hand-over").hidden = true; setState("busy"); resolve(); };
  });
}

function showGameOver(e) {
  $("#game-over-text").textContent = e.game_over.line;  // the server words the result
  $("#game-over").hidden = false;
}

// ---------------------------------------------------------------- moves
function legal() { return busy || !view ? [] : view.moves; }
function moveFor(label) { return legal().find((m) => m.label === label); }

function closePickers() {
  for (const id of ["#colour-picker", "#combo-picker"]) $(id).hidden = true;
}

async function send(action) {
  closePickers(); // a move made while a picker was open answers it: no stale choice stays behind
  $("#error").textContent = "";
  busy = true;
  setState("busy");
  render();
  try {
    const data = await api("/api/move", { id: tableId, action });
    busy = false;
    play(data.events, data.view);
  } catch (err) {
    busy = false;
    $("#error").textContent = err.message;
    if (err.status === 404) { tableLost(); return; } // the server no longer holds this table
    setState("your-turn");
    render();
  }
}

// The server forgot the table (restarted, or the table expired): no move can reach it.
function tableLost() {
  sessionStorage.removeItem("unolab-table");
  view = { ...view, moves: [] };
  render();
  setState("over");
  $("#prompt").textContent = "This table is gone from the server: start a new game.";
}

function pickColour(move, title, cancellable = true) {
  $("#colour-title").textContent = title;
  for (const b of document.querySelectorAll("#colour-picker [data-colour]")) {
    const action = move.actions.find((a) => a.endsWith(" " + b.dataset.colour));
    b.disabled = !action;
    b.onclick = () => { $("#colour-picker").hidden = true; send(action); };
  }
  $("#colour-cancel").hidden = !cancellable; // the starting Wild's colour must be named: nothing else is legal
  openDialog("#colour-picker");
}

// A hand redrawn after a move keeps the keyboard in it: the focus goes to its first card
// that can be played (or its first card), not back to the top of the page.
function keepFocus(hand) {
  const had = hand.contains(document.activeElement);
  return () => {
    if (!had) return;
    const next = hand.querySelector('[aria-disabled="false"]') || hand.querySelector("button");
    if (next) next.focus();
  };
}

// Which cards can be played: a style for the eye, aria-disabled for a screen reader.
function markPlayable(el, ok) {
  if (ok) el.classList.add("playable");
  el.setAttribute("aria-disabled", String(!ok));
}

// A picker takes the keyboard: focus moves into it, Tab stays in it, Escape cancels it.
function openDialog(id) {
  const modal = $(id);
  modal.hidden = false;
  const first = modal.querySelector("button:not(:disabled):not([hidden])");
  if (first) first.focus();
}

document.addEventListener("keydown", (e) => {
  const open = [...document.querySelectorAll(".modal")].find((m) => !m.hidden);
  if (!open) return;
  const cancel = open.querySelector("[id$=-cancel]:not([hidden])");
  if (e.key === "Escape" && cancel) { e.preventDefault(); cancel.click(); return; }
  if (e.key !== "Tab") return;
  const items = [...open.querySelectorAll("button:not(:disabled):not([hidden])")];
  if (!items.length) return;
  const at = items.indexOf(document.activeElement);
  const next = e.shiftKey ? (at <= 0 ? items.length - 1 : at - 1) : (at + 1) % items.length;
  e.preventDefault();
  items[next].focus();
});

function clickCard(name) {
  if (view.game === "uno") {
    const m = moveFor(name);
    if (!m) return;
    if (m.actions.length > 1) pickColour(m, `${name}: name a colour`);
    else send(m.actions[0]);
    return;
  }
  const number = cardParts(name).kind;
  if (view.phase === "return") { send(`return ${number}`); return; }
  const lays = legal().filter((m) => m.label === `lay ${number}` || m.label.startsWith(`lay ${number} `));
  if (lays.length === 1) { send(lays[0].actions[0]); return; }
  if (!lays.length) return;
  $("#combo-title").textContent = `Lay ${number} with`;
  const box = $("#combos");
  box.innerHTML = "";
  for (const m of lays) {
    const b = document.createElement("button");
    b.type = "button";
    const extra = m.label.split(" ").slice(2).join(" ");
    b.textContent = extra ? `with ${extra}` : "alone";
    b.dataset.action = m.actions[0];
    b.onclick = () => { $("#combo-picker").hidden = true; send(m.actions[0]); };
    box.appendChild(b);
  }
  openDialog("#combo-picker");
}

// ---------------------------------------------------------------- drawing the table
function render() {
  if (!view) return;
  const moves = legal();
  const labels = new Set(moves.map((m) => m.label));
  for (const word of WORD_BUTTONS) {
    const b = document.querySelector(`#actions [data-action=${word}]`);
    b.hidden = view.game !== "uno" || !labels.has(word);
  }
  $("#draw-pile").disabled = !labels.has("draw");
  $("#extra-actions").innerHTML = "";
  if (view.game === "uno") renderUno(moves); else renderTricks(moves);
  renderStandings();
  // the record holds every hand and the draw pile: the server offers it once the game is over
  $("#save-record").hidden = !view.over;
  $("#save-record").href = `/api/record?id=${encodeURIComponent(tableId)}`;
  $("#prompt").textContent = busy ? "" : promptText();
  const colourMove = moves.filter((m) => m.label.startsWith("colour "));
  if (colourMove.length && !busy) pickColour({ actions: colourMove.map((m) => m.actions[0]) }, "The starting card is a Wild: name its colour", false);
}

function promptText() {
  if (view.over) return "";
  if (!view.moves.length) return `${view.players[view.current_player].name} is thinking…`;
  const phase = view.phase;
  if (view.game === "uno") {
    if (phase === "uno") return "One card left: declare UNO!";
    if (phase === "challenge") {
      const stack = view.moves.some((m) => m.actions.some((a) => a.startsWith("play W+4")));
      return `${view.players[view.challenge_from].name} played a Wild Draw Four on you: challenge or accept${stack ? ", or stack your own" : ""}?`;
    }
    if (phase === "swap") return "You played a 7: choose whom to swap hands with";
    if (phase === "drawn") {
      const keep = view.moves.some((m) => m.actions.includes("pass"));
      return `You drew ${view.drawn_card}: ${keep ? "play it or keep it" : "play it"}`;
    }
    if (phase === "colour") return "Name the colour of the starting Wild";
    // Name only the kinds of moves that are legal now (the server's list of moves says which).
    const plays = view.moves.some((m) => m.actions.some((a) => a.startsWith("play ")));
    const draws = view.moves.some((m) => m.actions.includes("draw"));
    const kinds = [];
    if (plays) kinds.push(view.pending_draw ? "stack a draw card" : "play a card");
    if (draws) kinds.push(view.pending_draw ? `draw ${view.pending_draw}` : "draw");
    return `Your turn: ${kinds.join(" or ")}`;
  }
  if (phase === "draw") return `Draw up to ${view.draw_limit} number cards`;
  if (phase === "return") return `Click a number card to put it back (${view.returns_left} to go)`;
  if (phase === "swap") return "Reverse: swap your table card with another seat's, or keep";
  return "Your turn: click a number card to lay it";
}

function renderUno(moves) {
  const opp = $("#opponents");
  opp.className = "";
  opp.innerHTML = "";
  for (const p of view.players) {
    if (p.you) continue;
    const box = document.createElement("div");
    box.className = "opponent" + (p.seat === view.current_player && !view.over ? " turn" : "");
    box.dataset.seat = p.seat;
    const backs = "<span></span>".repeat(Math.min(p.cards, 12));
    box.innerHTML = `<div class="name">${p.name}</div><div class="backs">${backs}</div>
      <div><b class="count">${p.cards}</b> cards · ${p.score} pts ${p.uno ? '<span class="uno-badge">UNO</span>' : ""}</div>`;
    opp.appendChild(box);
  }
  const top = $("#top");
  top.innerHTML = "";
  top.appendChild(cardEl(view.top));
  const arrow = view.direction === 1 ? "↻ seat order" : "↺ reverse order";
  const colour = view.colour ? `<span class="colour-dot c-${view.colour}"></span>${view.colour_name}` : "to be named";
  $("#status-line").innerHTML = `Colour ${colour} · ${arrow} · draw pile ${view.draw_pile} · hand ${view.hand_number}` +
    (view.target ? ` · match to ${view.target}, ${view.scoring} scoring` : "") +
    (view.revealed ? `<br>At your challenge ${view.players[view.revealed.player].name} held: ${view.revealed.hand.join(" ")}` : "");
  $("#pile-area").hidden = false;
  const hand = $("#hand");
  const refocus = keepFocus(hand);
  hand.innerHTML = "";
  const playable = new Set(moves.map((m) => m.label));
  for (const name of view.hand) {
    const el = cardEl(name, { button: true });
    markPlayable(el, playable.has(name));
    el.onclick = () => clickCard(name);
    hand.appendChild(el);
  }
  refocus();
  $("#specials").innerHTML = "";
  // seven_zero: after a 7, one button per player to swap hands with (the server names each seat)
  for (const m of moves) {
    const seat = view.swap_seats?.[m.actions[0]];
    if (seat === undefined) continue;
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = m.actions[0];
    b.textContent = `Swap hands with ${view.players[seat].name} (${view.players[seat].cards} cards)`;
    b.onclick = () => send(m.actions[0]);
    $("#extra-actions").appendChild(b);
  }
}

function renderTricks(moves) {
  const opp = $("#opponents");
  opp.className = "tricks";
  opp.innerHTML = "";
  const areas = ["bottom", "left", "top", "right"]; // relative to you
  for (const p of view.players) {
    const rel = (p.seat - view.seat + 4) % 4;
    const box = document.createElement("div");
    box.className = `seatbox team-${p.team}` + (p.seat === view.current_player && !view.over ? " turn" : "");
    box.style.gridArea = areas[rel];
    box.dataset.seat = p.seat;
    const who = p.you ? "You" : p.name;
    box.innerHTML = `<div><b>${who}</b> · <span class="team">team ${p.team}</span></div>
      <div>${p.numbers} numbers · ${p.specials} specials</div><div class="laid"></div>`;
    const laid = box.querySelector(".laid");
    if (p.table) {
      laid.appendChild(cardEl(p.table.card, { numberOnly: true }));
      if (p.table.added) laid.appendChild(cardEl(p.table.added, { numberOnly: true }));
      for (const s of p.table.specials) laid.appendChild(cardEl(s));
      if (p.table.forced) laid.insertAdjacentHTML("beforeend", '<span class="forced">duplicate: 0</span>');
    }
    opp.appendChild(box);
  }
  const mid = document.createElement("div");
  mid.id = "team-points";
  // the engine's trick counter: one past the last trick once the game is over (no fixed count:
  // with exchange_returns "two" a game may run past ten tricks)
  mid.innerHTML = `${view.over ? `${view.trick - 1} tricks played` : `Trick ${view.trick}`}<br>team A <b>${view.points.A}</b> · team B <b>${view.points.B}</b>` +
    (view.annulled ? "<br>annulled by a Skip" : "");
  opp.appendChild(mid);
  $("#pile-area").hidden = true;
  $("#status-line").textContent = `You are team ${view.team} · number pile ${view.number_pile} · special pile ${view.special_pile}`;
  const hand = $("#hand");
  const refocus = keepFocus(hand);
  hand.innerHTML = "";
  const labels = moves.map((m) => m.label);
  for (const name of view.hand) {
    const n = cardParts(name).kind;
    const el = cardEl(name, { button: true, numberOnly: true });
    const ok = view.phase === "return" ? labels.includes(`return ${n}`) : labels.some((l) => l === `lay ${n}` || l.startsWith(`lay ${n} `));
    markPlayable(el, ok);
    el.onclick = () => clickCard(name);
    hand.appendChild(el);
  }
  refocus();
  const specials = $("#specials");
  specials.innerHTML = "";
  for (const name of view.specials) specials.appendChild(cardEl(name));
  const extra = $("#extra-actions");
  for (const m of moves) {
    const verb = m.label.split(" ")[0];
    if (verb === "draw" || verb === "swap" || verb === "keep") {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.action = m.actions[0];
      if (verb === "swap") {
        const other = view.swap_seats[m.actions[0]]; // the server names each seat (the engine's rule)
        b.textContent = `Swap with ${view.players[other].name}`;
      } else if (verb === "draw") b.textContent = `Draw ${m.label.split(" ")[1]}`;
      else b.textContent = "Keep the table";
      b.onclick = () => send(m.actions[0]);
      extra.appendChild(b);
    }
  }
}

function renderStandings() {
  const t = $("#standings");
  if (view.game === "uno") {
    const rows = view.standing.map((s) => view.players[s]);  // leader first, as the server orders them
    let html = `<tr><th>player</th><th>score</th><th>${view.needed_label}</th></tr>`;
    for (const p of rows) html += `<tr class="${p.you ? "you" : ""}" data-seat="${p.seat}"><td>${p.name}</td><td>${p.score}</td><td>${p.needed ?? ""}</td></tr>`;
    t.innerHTML = html;
  } else {
    t.innerHTML = `<tr><th>team</th><th>this game</th><th>games won</th></tr>` +
      ["A", "B"].map((k) => `<tr class="${view.team === k ? "you" : ""}"><td>team ${k}</td><td>${view.points[k]}</td><td>${view.tally.wins[k] || 0}</td></tr>`).join("");
  }
  $("#tally").textContent = view.tally.games ? `Games finished: ${view.tally.games}` : "";
}

// ---------------------------------------------------------------- wiring
// as typed: rebuilt only on the blur, the seat rows would move Deal away under the pointer
// (the click on it is lost); the blur's change then finds the rows already built
$("#players").addEventListener("input", buildSeats);
$("#players").addEventListener("change", buildSeats);
$("#start").addEventListener("click", startGame);
for (const word of WORD_BUTTONS) document.querySelector(`#actions [data-action=${word}]`).addEventListener("click", () => send(word));
$("#draw-pile").addEventListener("click", () => { if (moveFor("draw")) send("draw"); });
$("#colour-cancel").addEventListener("click", () => { $("#colour-picker").hidden = true; });
$("#combo-cancel").addEventListener("click", () => { $("#combo-picker").hidden = true; });
$("#new-game").addEventListener("click", () => {
  sessionStorage.removeItem("unolab-table");
  $("#table").hidden = true; $("#setup").hidden = false; $("#game-over").hidden = true;
  setState("setup");
});
$("#next-game").addEventListener("click", async () => {
  $("#game-over").hidden = true;
  gameOver = null;
  setState("busy");
  try {
    const data = await api("/api/next", { id: tableId });
    play(data.events, data.view);
  } catch (err) {
    $("#error").textContent = err.message;
    if (err.status === 404) tableLost();
    else { $("#game-over").hidden = false; setState("over"); }
  }
});

// The games to choose from, as the server serves them (/api/options), the first one chosen.
async function buildGames() {
  const row = $("#games-row");
  for (const [name, info] of Object.entries((await gameOptions()).games)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "radio"; input.name = "game"; input.value = name; input.checked = !row.children.length;
    input.addEventListener("change", buildSeats);
    label.append(input, ` ${info.title}`);
    row.appendChild(label);
  }
}

(async function init() {
  await buildGames();
  await buildSeats();
  $("#start").disabled = false; // the form is built: a Deal before would find no game chosen
  if (tableId) { // a reload resumes the table the server still holds
    try {
      const data = await api(`/api/state?id=${encodeURIComponent(tableId)}`);
      view = data.view;
      $("#setup").hidden = true;
      $("#table").hidden = false;
      showLog(data.notes, data.log);
      render();
      if (view.over && data.game_over) showGameOver({ game_over: data.game_over, view });
      setState(view.over ? "over" : view.moves.length ? "your-turn" : "waiting");
      return;
    } catch (err) { sessionStorage.removeItem("unolab-table"); }
  }
  setState("setup");
})();
