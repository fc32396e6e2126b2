"""Print one process's memory (VmRSS) and mean search time over 300 Debian queries on an index.

Usage: .venv/bin/python -m bench.rss_probe INDEX_DIR
"""

import gc, sys, time
from pathlib import Path
def rss():
    for l in Path('/proc/self/status').read_text().splitlines():
        if l.startswith('VmRSS'): return int(l.split()[1])//1024
from search.service import SearchService
from search.params import SearchParams
from bench.queries import make_queries
from corpus.jsonl import load_jsonl
recs=list(load_jsonl('/work/shared/corpora/debian-packages.jsonl.gz'))
qs=make_queries(recs, 300, 7); del recs; gc.collect()
base=rss()
s=SearchService(sys.argv[1]); s.snapshot(); s.search(SearchParams(q="python library")); first=rss()
t=time.perf_counter()
for q in qs: s.search(SearchParams(q=q))
print(sys.argv[1], "base", base, "after first", first, "after 300", rss(), "ms/search", round((time.perf_counter()-t)/300*1000,1))
