// A tile's name in running text ("6‑6"): its halves joined by a non-breaking hyphen, so a
// narrow line (a phone held sideways, the replay's move line) never breaks it into "6-" and
// "6". Pure, so that Node can test it.
export function tileText(name) {
  return typeof name === "string" ? name.replace("-", "\u2011") : name;
}
