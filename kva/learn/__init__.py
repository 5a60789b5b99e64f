"""Learning to play: the interactive lesson (:mod:`kva.learn.lessons`), the strategy guide's
worked positions (:mod:`kva.learn.strategy`) and the unseen-tile counting aid
(:mod:`kva.learn.counting`)."""
