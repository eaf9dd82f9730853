"""Clients of the scholarly services (arXiv, Crossref, OpenReview, DBLP, Semantic Scholar) over
net/: answers checked for shape."""
