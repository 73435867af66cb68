// A player's phone (web/phone.py, issue 34.5): the page follows the live stream and, when
// the player's match is called to a free station — by the tournament director as soon as
// a table's game ends, sensors included — it *calls* them: a beep (WebAudio: no sound file
// to fetch), vibration, a notification where the phone allows, the whole screen turned
// to the call, again every few seconds until "On my way". The page is server-rendered;
// on any change of its tournament it fetches itself again and swaps the body in.
import { t } from "./common.js";
import { connect } from "./live.js";

const root = document.getElementById("phone");
const tid = root.dataset.tournament;
const ACK_KEY = `trigono.phone.ack.${location.pathname}`;
const ALERTS_KEY = "trigono.phone.alerts";
const RING_EVERY_MS = 4000;
const RING_FOR_MS = 120000; // two minutes: seen by then, or not there
const alerts = []; // what the page did to call the player (tests read window.__phoneAlerts)
window.__phoneAlerts = alerts;
let audio = null;
let ringTimer = null;
let ringing = "";

const body = () => document.getElementById("phone-body");

function unlockAudio() {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    if (audio.state === "suspended") audio.resume();
  } catch (e) { audio = null; }
}

function beep() {
  unlockAudio();
  if (!audio) return;
  const start = audio.currentTime;
  [880, 1175, 880, 1175].forEach((freq, i) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    const at = start + i * 0.22;
    osc.type = "square";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.6, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.2);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + 0.21);
  });
  alerts.push("beep");
}

async function notify(call, text) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  const options = { body: t("phone.notify_body"), tag: call, renotify: true, requireInteraction: true };
  try {
    new Notification(text, options);
    alerts.push("notification");
  } catch (e) {
    // Android's Chrome shows notifications only through a service worker registration.
    try {
      const registration = await navigator.serviceWorker.getRegistration(root.dataset.worker);
      if (registration) { await registration.showNotification(text, options); alerts.push("notification"); }
    } catch (err) { /* not allowed here */ }
  }
}

function stopRinging() {
  clearInterval(ringTimer);
  ringTimer = null;
  ringing = "";
  document.body.classList.remove("ringing");
}

function ring(call, text) {
  document.body.classList.add("ringing");
  if (ringing === call) return;
  stopRinging();
  document.body.classList.add("ringing");
  ringing = call;
  const started = Date.now();
  const once = () => {
    if (Date.now() - started > RING_FOR_MS) { clearInterval(ringTimer); return; }
    beep();
    if (navigator.vibrate && navigator.vibrate([500, 150, 500, 150, 900])) alerts.push("vibrate");
  };
  alerts.push(`call:${call}`);
  once();
  notify(call, text);
  ringTimer = setInterval(once, RING_EVERY_MS);
}

function wire() {
  const call = body().dataset.call;
  const ack = document.getElementById("on-my-way");
  if (ack) ack.addEventListener("click", () => { localStorage.setItem(ACK_KEY, call); stopRinging(); });
  if (call && localStorage.getItem(ACK_KEY) !== call) ring(call, body().dataset.callText);
  else stopRinging();
}

async function refresh() {
  try {
    const response = await fetch(location.pathname, { credentials: "same-origin", cache: "no-store" });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("phone-body");
    if (fresh) { body().replaceWith(fresh); wire(); }
  } catch (e) { /* offline for a moment: the stream reconnects and sends a snapshot */ }
}

let timer = null;
function soon() {
  clearTimeout(timer);
  timer = setTimeout(refresh, 100); // a burst of entries (a result, then the call) costs one fetch
}

// Sound needs a tap on the page first, notifications a permission: one button asks both,
// and keeps the screen on while waiting where the phone allows.
const button = document.getElementById("alerts-on");
const state = document.getElementById("alerts-state");
function showState() {
  const on = localStorage.getItem(ALERTS_KEY) === "1";
  button.setAttribute("aria-pressed", on ? "true" : "false");
  button.textContent = t(on ? "phone.alerts_test" : "phone.alerts_on");
  const denied = "Notification" in window && Notification.permission === "denied";
  state.hidden = !on;
  state.textContent = t(denied ? "phone.alerts_no_notification" : "phone.alerts_ready");
}
button.addEventListener("click", async () => {
  localStorage.setItem(ALERTS_KEY, "1");
  unlockAudio();
  beep();
  if (navigator.vibrate) navigator.vibrate(200);
  if ("Notification" in window && Notification.permission === "default") {
    try { await Notification.requestPermission(); } catch (e) { /* older API */ }
  }
  if ("serviceWorker" in navigator && root.dataset.worker) {
    navigator.serviceWorker.register(root.dataset.worker).catch(() => {});
  }
  try { if (navigator.wakeLock) await navigator.wakeLock.request("screen"); } catch (e) { /* not allowed */ }
  showState();
});
// A tap anywhere unlocks the sound too (a phone that was put back in a pocket).
document.addEventListener("pointerdown", unlockAudio, { once: true });
showState();

wire();
connect({
  onSnapshot: soon,
  onTournament: (change) => { if (change.id === tid) soon(); },
  onAssist: soon,
});
setInterval(soon, 30000); // a stream silently cut (a proxy, a sleeping phone): never more than 30 s behind
