// Translated strings rendered by the server (templates/_js_strings.html): never text in JS.
const blob = document.getElementById("kva-strings");
const STRINGS = blob ? JSON.parse(blob.textContent) : {};

/** The translated string `key` with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = STRINGS[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

const MARKS = document.documentElement.dataset;

/** `n` written as the server's Babel writes it for the page's language (its group and decimal
 * marks are on <html>), never in the browser's own locale data, so a header and the page it
 * sits on agree. */
export function formatNumber(n) {
  const [whole, fraction] = String(Math.abs(n)).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, MARKS.numGroup ?? ",");
  return (n < 0 ? "-" : "") + grouped + (fraction ? (MARKS.numDecimal ?? ".") + fraction : "");
}
