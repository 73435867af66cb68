// Shared by every page: the page's data, translation, DOM helper, CSRF-aware fetch,
// place labels. No geometry: the hub says where things are drawn (view.drawing).

const dataElement = document.getElementById("page-data");
export const page = dataElement ? JSON.parse(dataElement.textContent) : { lang: "fr", messages: {}, settings: {}, urls: {} };
export const lang = page.lang;
const extraMessages = {};

export function addMessages(messages) {
  Object.assign(extraMessages, (messages && messages[lang]) || {});
}

function lookup(key) { return extraMessages[key] ?? page.messages[key]; }

// Same rules as web/i18n.py translate(): a count n picks key.one / key.other when they
// exist (French: 0 and 1 are singular), the key itself when missing, "{name}" filled.
const DECIMAL = /^(-?\d+)\.(\d+)$/;  // a decimal number given whole as a parameter

export function t(key, params = {}) {
  if (typeof params.n === "number" && lookup(`${key}.one`) !== undefined) {
    const one = lang === "fr" ? params.n === 0 || params.n === 1 : params.n === 1;
    key = `${key}.${one ? "one" : "other"}`;
  }
  let text = lookup(key) ?? key;
  for (const [name, value] of Object.entries(params)) {
    let shown = String(value);
    if (lang === "fr") {
      text = elide(text, name, shown);
      shown = shown.replace(DECIMAL, "$1,$2");  // "3.00" -> "3,00" (as web/i18n.py)
    }
    text = text.split(`{${name}}`).join(shown);
  }
  return text;
}

// French elision, as web/i18n.py elide(): "de {name}" with Ana is "d’Ana", "que {name}"
// "qu’Ana" (the catalogue writes "de", "que"; the name decides).
const VOWEL = /^[aeiouyàâäéèêëîïôöûüœæh]/i;
export function elide(text, name, value) {
  if (!VOWEL.test(value)) return text;
  return text.replace(new RegExp(`\\b(d|qu)e \\{${name}\\}`, "gi"), (_, d) => `${d}’{${name}}`);
}

export function el(tag, attrs = {}, ...children) {
  const svg = ["svg", "polygon", "circle", "text", "g", "line", "path", "rect", "title"].includes(tag);
  const node = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "class") node.setAttribute("class", value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    // Through the CSSOM: a style *attribute* is inline style, which the site's CSP refuses.
    else if (name === "style") node.style.cssText = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function csrfToken() {
  const meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.content : "";
}

export async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  const data = await response.json();
  if (!response.ok) throw new Error((data.error && (data.error.text || data.error.message)) || response.statusText);
  return data;
}

export async function postJSON(url, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body ?? {}),
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  if (!response.ok) throw new Error((data.error && (data.error.text || data.error.message)) || response.statusText);
  return data;
}

// A place as the hub labels it (hub/tables/moments.py: {kind, board?, n?}, in a moment's
// `place` or the view's `places`), in the page's words; the page never parses a place id.
export function placeLabel(label) {
  if (!label || typeof label !== "object") return String(label ?? "");
  return t(`where.${label.kind}`, label);
}

// The label of place `where` in `view` (its `places`), or the id itself when it has none.
export function placeIn(view, where) {
  const label = ((view && view.places) || {})[where];
  return label ? placeLabel(label) : String(where);
}

export function gameName(game) { return t(`game.${game}`); }
