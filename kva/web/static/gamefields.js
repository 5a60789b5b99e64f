// The game choice of a match form (templates/_game_fields.html): Kozel swaps the Georgian
// target and rules for its own fields (seats, fish rule, pair game). Hidden fields are also
// disabled, so that the form sends only the chosen game's options; the pair game is offered
// at four seats only (the server refuses it otherwise), and a coin stake at Georgian only.
export function syncGameFields(form) {
  const game = form.querySelector(".game-choice");
  const kozel = game !== null && game.value === "kozel";
  const georgianOnly = form.querySelector(".georgian-only");
  const kozelOnly = form.querySelector(".kozel-only");
  if (georgianOnly) georgianOnly.hidden = kozel;
  if (kozelOnly) {
    kozelOnly.hidden = !kozel;
    const seats = kozelOnly.querySelector("select[name=seats]");
    for (const input of kozelOnly.querySelectorAll("select, input")) input.disabled = !kozel;
    const pairs = kozelOnly.querySelector(".pairs-only");
    if (pairs && seats) {
      const four = kozel && seats.value === "4";
      pairs.hidden = !four;
      const box = pairs.querySelector("input");
      box.disabled = !four;
      if (!four) box.checked = false;
    }
  }
  // Coin stakes are for Georgian domino between two players (the server refuses one for
  // Kozel: two_seats), so Kozel hides the stake field and does not send it.
  for (const part of form.querySelectorAll(".stake-field, .coin-disclaimer")) {
    part.hidden = kozel;
    for (const input of part.querySelectorAll("select")) input.disabled = kozel;
  }
  return kozel;
}

// Keep ``form``'s game fields in step with its choices (and ``also`` run after each sync).
export function watchGameFields(form, also = () => {}) {
  const sync = () => { also(syncGameFields(form)); };
  form.addEventListener("change", sync);
  sync();
}
