"""Search: from request parameters to a ranked, highlighted, faceted result.

``params`` validates what a request asks for, ``query`` turns the text into Whoosh queries (pure
functions, no index needed), ``service`` runs them against the published snapshot and returns a
plain ``SearchResult``, and ``highlight`` is where result HTML is made (a correction's is made the
same way, escaped text and ``<mark>``, by ``spell.respelt``).
"""
