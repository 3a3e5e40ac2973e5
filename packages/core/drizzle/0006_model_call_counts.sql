-- A model_calls row can stand for several calls: an imported usage total keeps its call count in one row
-- instead of being split into made-up calls.
ALTER TABLE `model_calls` ADD `calls` integer DEFAULT 1 NOT NULL;