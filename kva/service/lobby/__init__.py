"""Finding a match: open tables, quick game and its pairing, rematches, and the cleanup of tables
whose creator left."""
