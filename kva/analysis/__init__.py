"""Post-game analysis: the engine's value of every legal action at every real decision of a
finished match, from the deciding player's view only (:mod:`kva.analysis.engine`), and the
marks and summaries built from it (:mod:`kva.analysis.match`). docs/analysis.md has the units,
thresholds and measurements."""
