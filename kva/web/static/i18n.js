// Translated strings rendered by the server (templates/_js_strings.html): never text in JS.
const blob = document.getElementById("kva-strings");
const STRINGS = blob ? JSON.parse(blob.textContent) : {};

/** `n` percent written as the server's Babel writes a percentage in the page's language
 * ("83,3 %" in Russian, "%83,3" in Turkish), keeping the decimals `n` has. */
export function formatPercent(n) {
  const pattern = MARKS.numPercent ?? "#,##0%";
  return pattern.replace(/[#0,.]+/, formatNumber(n));
}

const countedBlob = document.getElementById("kva-plurals");
const COUNTED = countedBlob ? JSON.parse(countedBlob.textContent) : {};

/** The counted text `key` for `n` in the page language's plural form (kva/i18n/plurals.py:
 * one form per CLDR category, chosen by Intl.PluralRules), `{n}` written as the server writes
 * numbers; other placeholders from `vars`. */
export function tn(key, n, vars = {}) {
  const forms = COUNTED[key] || {};
  let category = "other";
  try { category = new Intl.PluralRules(document.documentElement.lang).select(n); } catch { /* */ }
  const text = forms[category] ?? forms.other ?? Object.values(forms)[0] ?? key;
  const all = { ...vars, n: formatNumber(n) };
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in all ? String(all[name]) : m));
}

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
