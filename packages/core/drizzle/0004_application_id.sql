-- Marks the file as an Engram database in SQLite's header (PRAGMA application_id, bytes 68-71: "Engr"),
-- so opening refuses another application's database before changing anything in it.
PRAGMA application_id = 1164863346;
