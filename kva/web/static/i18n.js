// Translated strings rendered by the server (templates/_js_strings.html): never text in JS.
const blob = document.getElementById("kva-strings");
const STRINGS = blob ? JSON.parse(blob.textContent) : {};

/** The translated string `key` with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = STRINGS[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

const NUMBER = new Intl.NumberFormat(document.documentElement.lang || undefined);

/** `n` written as the page's language writes numbers (as the server's Babel does), never in
 * the browser's own locale, so a header and the page it sits on agree. */
export function formatNumber(n) {
  return NUMBER.format(n);
}
