// Home page: the password field only matters for a friend's table; "rated" only for an open
// table (disabled otherwise, so it is not sent: bot and friend matches are always casual).
const form = document.getElementById("new-match");
if (form) {
  const opponent = form.elements.namedItem("opponent");
  const friendOnly = form.querySelector(".friend-only");
  const rated = form.querySelector(".open-only");
  const tableOnly = form.querySelector(".table-only"); // coin stakes: people, not bots
  const sync = () => {
    friendOnly.classList.toggle("inactive", opponent.value !== "friend");
    if (tableOnly) {
      const table = opponent.value === "friend" || opponent.value === "open";
      tableOnly.hidden = !table;
      for (const input of tableOnly.querySelectorAll("select")) input.disabled = !table;
    }
    if (rated) {
      rated.hidden = opponent.value !== "open";
      rated.querySelector("input").disabled = opponent.value !== "open";
    }
  };
  opponent.addEventListener("change", sync);
  sync();
}
