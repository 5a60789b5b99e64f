// Under a rated match's rating change: when the viewer's rating was provisional (Glicko-2 RD
// above the limit), say so and why the change is large. The sentence is the server's, with
// {rd} filled from the `ratings` entry.
import { byId as $ } from "./dom.js";

/** Show or hide the note for the viewer's entry `mine` ({before, after, rd, provisional}). */
export function showProvisional(mine) {
  const note = $("rating-provisional");
  if (!note) return;
  const on = Boolean(mine && mine.provisional);
  note.hidden = !on;
  note.textContent = on ? note.dataset.text.replace("{rd}", String(mine.rd)) : "";
}
