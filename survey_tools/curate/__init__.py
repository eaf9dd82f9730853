"""What a maintainer runs to grow and keep the corpus: add, exclude, search, screen, rank, check
links, refresh, settle corrections."""
