// Small DOM helpers shared by the pages: building elements, text, showing and hiding.
// The code finds elements by id, class or data attributes meant for it; `data-testid`
// attributes are for the tests only.

/** Element by id. */
export const byId = (id) => document.getElementById(id);

/**
 * A new element `tag`: `attrs` are attributes, except `text` (its text), `class`, `dataset`
 * (an object) and `on` (event name -> listener); `children` are nodes or strings.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** Set the text of `node` (an element or an id). */
export function setText(node, text) {
  const e = typeof node === "string" ? byId(node) : node;
  if (e) e.textContent = text;
  return e;
}

/** Show `node` (an element or an id) when `visible`, else hide it. */
export function show(node, visible = true) {
  const e = typeof node === "string" ? byId(node) : node;
  if (e) e.hidden = !visible;
  return e;
}

export const hide = (node) => show(node, false);
