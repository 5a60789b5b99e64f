// Home page: the password field only matters for a friend's table.
const form = document.getElementById("new-match");
if (form) {
  const opponent = form.elements.namedItem("opponent");
  const friendOnly = form.querySelector(".friend-only");
  const sync = () => { friendOnly.classList.toggle("inactive", opponent.value !== "friend"); };
  opponent.addEventListener("change", sync);
  sync();
}
