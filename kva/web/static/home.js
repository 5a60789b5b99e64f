// Home page: the password field only matters for a friend's table (disabled otherwise); "rated" only for an open
// table (disabled otherwise, so it is not sent: bot and friend matches are always casual).
// The game choice swaps the Georgian target and rules for Kozel's seats, fish rule and pair
// game (static/gamefields.js); a Kozel open table may be rated as a Georgian one, and Kozel
// offers the clock against a bot too.
import { watchGameFields } from "./gamefields.js";

const form = document.getElementById("new-match");
if (form) {
  const opponent = form.elements.namedItem("opponent");
  const friendOnly = form.querySelector(".friend-only");
  const rated = form.querySelector(".open-only");
  const tableOnly = form.querySelector(".table-only"); // coin stakes: people, not bots
  const sync = (kozel) => {
    const friend = opponent.value === "friend";
    friendOnly.classList.toggle("inactive", !friend);
    // Disabled, not only dimmed: out of the tab order and not sent for a bot or open table.
    for (const input of friendOnly.querySelectorAll("input")) input.disabled = !friend;
    if (tableOnly) {
      const table = opponent.value === "friend" || opponent.value === "open";
      tableOnly.hidden = !table && !kozel;
      // Kozel: the clock only, never a coin stake (the server refuses one: two_seats).
      for (const part of tableOnly.children) {
        const on = (table && !kozel) || part.classList.contains("clock-field");
        part.hidden = !on;
        for (const input of part.querySelectorAll("select")) input.disabled = !on || tableOnly.hidden;
      }
    }
    if (rated) {
      const offered = opponent.value === "open";
      rated.hidden = !offered;
      rated.querySelector("input").disabled = !offered;
    }
  };
  watchGameFields(form, sync);
}
