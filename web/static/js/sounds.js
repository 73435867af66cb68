// Short sounds for the moments that matter (web/static/sounds/, made by scripts/make-sounds),
// besides the speech. Off until someone turns them on: browsers only play sound after a
// click on the page, and a hall does not want every phone chiming.
import { page, t } from "./common.js";

const SOUND_KEY = "trigono.sounds";
const cache = new Map();
export const played = []; // what was played, newest last (tests read window.__sounds)
window.__sounds = played;

let forced = false;
export function soundsOn() { return forced || localStorage.getItem(SOUND_KEY) === "1"; }
// A page that nobody can click (a video mixer's browser source) turns them on by address.
export function forceSounds() { forced = true; }

export function setupSounds(button) {
  if (!button) return;
  const refresh = () => {
    const on = soundsOn();
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = t(on ? "big.sounds_on" : "big.sounds_off");
    button.title = t("big.sounds");
  };
  button.addEventListener("click", () => {
    localStorage.setItem(SOUND_KEY, soundsOn() ? "0" : "1");
    refresh();
    if (soundsOn()) play("drop"); // a first sound from the click itself unlocks audio
  });
  refresh();
}

export function play(name) {
  if (!soundsOn()) return;
  let audio = cache.get(name);
  if (!audio) {
    audio = new Audio(`${page.urls.static}sounds/${name}.wav`);
    audio.preload = "auto";
    cache.set(name, audio);
  }
  played.push(name);
  audio.currentTime = 0;
  audio.play().catch(() => { /* not allowed yet (no click), or no audio device */ });
}
