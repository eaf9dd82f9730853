"""Taking a list into the toolkit: survey init, one reader per input format, the CSV layout,
taxonomy edits, the toolkit pin of a scaffolded workflow."""
