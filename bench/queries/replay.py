"""What the replay scripts (`table_replay.py`, `window_replay.py`) share: the pool's CLOCK over
page keys, and readers for a graph's plain CSR files and a query workload file."""

import csv

import numpy as np

PAGE = 4096


class Clock:
    """CLOCK as the pool runs it: a page enters with its reference bit clear, a hit sets it."""

    def __init__(self, frames):
        self.n, self.slot, self.page, self.ref = frames, {}, [None] * frames, [False] * frames
        self.hand = self.used = 0

    def load(self, p):
        """Loads page p (not resident) into a free frame or the hand's victim."""
        if self.used < self.n:
            s, self.used = self.used, self.used + 1
        else:
            while self.ref[self.hand]:
                self.ref[self.hand] = False
                self.hand = (self.hand + 1) % self.n
            s, self.hand = self.hand, (self.hand + 1) % self.n
            del self.slot[self.page[s]]
        self.page[s], self.slot[p], self.ref[s] = p, s, False

    def get(self, p):
        """Requests page p; returns whether it was resident (loads it if not)."""
        s = self.slot.get(p)
        if s is None:
            self.load(p)
            return False
        self.ref[s] = True
        return True


def read_graph(graph):
    """(offsets, neighbours) of a graph directory's plain out-edge CSR files."""
    off = np.fromfile(f"{graph}/out.offsets", dtype=np.uint64).astype(np.int64)
    nbr = np.fromfile(f"{graph}/out.neighbors", dtype=np.uint32)
    return off, nbr


def read_workload(path, kinds, limit):
    """(kind, vertex count, first `limit` query vertices) of an `ocgraph workload` file whose
    kind (0 edge queries, 1 friends-of-friends, 2 shortest paths) is one of `kinds`."""
    raw = open(path, "rb").read()
    kind = int.from_bytes(raw[12:16], "little")
    if raw[:8] != b"OCGQRY01" or kind not in kinds:
        names = {0: "edge-query", 1: "friends-of-friends", 2: "shortest-path"}
        want = " or ".join(names[k] for k in kinds)
        raise SystemExit(f"{path}: not an ocgraph workload of the kind {want}")
    n = int.from_bytes(raw[24:32], "little")
    return kind, n, np.frombuffer(raw[64:], dtype=np.uint32)[:limit]


def write_csv(path, rows):
    """Writes dict rows (the keys of the first are the columns)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
