"""Power loss during the CLI's writes: `import` (in memory and with spilled runs), `layout grid`
replacing a grid, `labels set`, `update` and `stream --maintain` with `--durability batch`, and
`compact`.

Each trial runs one command under the power-loss shim (tests/faults/powerloss.c, LD_PRELOAD),
which records what each fsync made durable in the working directory, kills it with SIGKILL at a
random moment drawn from its measured run time (every fourth trial lets it finish), builds the
tree a power loss at that moment could leave in a fresh directory, and reads the graph there
through the CLI. The reads are compared with oracles computed from the input files (Python sets,
networkx), not by ocgraph:

- the graph is the state before the command or the state after it, never a mix: a killed
  `import` leaves the whole graph or none (and opening none is a clear error); `layout grid`
  leaves the old grid, no grid or the new one (docs/design.md, "grid"); `update` and `stream`
  leave the first k of their batches, every batch `update --ack` acknowledged among them;
- `ocgraph check` passes on whatever opens, and a writer's open (recovery) keeps the state;
- a command that exited 0 has its whole effect durable;
- the results `stream --maintain` saved are never stale: a later `stream --verify`, which loads
  them, finds them equal to a full recomputation.

The model (that of crates/ocgraph-core/tests/update_crash.rs) is pessimistic: only fsynced
contents and directory entries survive, and a file never fsynced since its creation comes back
empty. Left out: the other states a real power loss may leave (part of the writes since a file's
last fsync, writes reordered within a file, sectors torn or zeroed, ext4's auto_da_alloc),
O_SYNC writes and writes through shared mappings (the engine uses neither), and syncs that fail
(the fault suites fail them). The rebuilt graph directory is a new inode, so the device and
inode numbers in the saved results are rewritten to it before `--verify` (a directory keeps its
identity across a real power loss). 4 trials per command, 100 with OCGRAPH_SLOW=1.
"""

from __future__ import annotations

import collections
import os
import random
import re
import shutil
import stat
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest

from conftest import crc32c

ROOT = Path(__file__).resolve().parents[2]
OCGRAPH_BIN = Path(os.environ.get("OCGRAPH_BIN", ROOT / "target" / "release" / "ocgraph"))
SHIM_SOURCE = ROOT / "tests" / "faults" / "powerloss.c"
TRIALS = 100 if os.environ.get("OCGRAPH_SLOW") == "1" else 4
N = 2000  # vertices of the directed base graph
BATCH = 250  # update and stream batch size
COMMANDS = ["import", "import-spill", "layout-grid", "labels-set", "update", "compact", "stream"]


# The power-loss record (format: tests/faults/powerloss.c).


def record_durable(root: Path, shadow: Path) -> None:
    """Records the tree at ``root`` as durable in ``shadow``: every file with its content and
    every directory with its entries, as generation 0 of their inodes."""

    def record_dir(d: Path) -> int:
        entries = []
        for e in os.scandir(d):
            st = e.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                record_dir(Path(e.path))
                entries.append(f"d {st.st_ino} 0 {e.name}\n")
            elif stat.S_ISREG(st.st_mode):
                shutil.copyfile(e.path, shadow / "f" / f"{st.st_ino}.0")
                entries.append(f"f {st.st_ino} 0 {e.name}\n")
        ino = d.stat().st_ino
        (shadow / "d" / f"{ino}.0").write_text("".join(entries))
        return ino

    for sub in ("f", "d", "tmp"):
        (shadow / sub).mkdir(parents=True)
    (shadow / "root").write_text(f"{record_dir(root)}.0")


def materialize(shadow: Path, out: Path) -> None:
    """Builds at ``out`` (which must not exist) the tree a power loss leaves by the record in
    ``shadow``: each directory with its entries as of its last fsync (none if it was never
    fsynced), each file with its content as of its last fsync (empty if it was never fsynced),
    and nothing else."""

    def build_dir(key: str, path: Path, depth: int) -> None:
        assert depth < 32, "the record's directories nest too deep (a cycle?)"
        path.mkdir()
        record = shadow / "d" / key
        if not record.exists():
            return
        for line in record.read_text().splitlines():
            kind, ino, gen, name = line.split(" ", 3)
            content = shadow / "f" / f"{ino}.{gen}"
            if kind == "d":
                build_dir(f"{ino}.{gen}", path / name, depth + 1)
            elif content.exists():
                shutil.copyfile(content, path / name)
            else:
                (path / name).touch()

    build_dir((shadow / "root").read_text().strip(), out, 0)


def run_under_shim(shim: Path, args: list[str], root: Path, shadow: Path, kill_after: float | None):
    """Records ``root`` as durable in ``shadow``, runs ``ocgraph args`` under the shim and kills
    it with SIGKILL after ``kill_after`` seconds (``None``: lets it finish). Returns
    ``(killed, returncode, stdout, stderr)``."""
    root = root.resolve()
    record_durable(root, shadow)
    env = dict(os.environ, LD_PRELOAD=str(shim), POWERLOSS_ROOT=str(root), POWERLOSS_SHADOW=str(shadow))
    proc = subprocess.Popen(
        [str(OCGRAPH_BIN), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    killed = False
    if kill_after is not None:
        try:
            proc.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            proc.kill()
            killed = True
    out, err = proc.communicate(timeout=300)
    assert killed or (shadow / "loaded").exists(), f"the power-loss shim did not run in ocgraph {args}"
    return killed, proc.returncode, out, err


# Reading a graph through the CLI.


def ocg(*args, where: str = "setup") -> subprocess.CompletedProcess:
    """Runs ``ocgraph args``; fails the test (naming ``where``) when it exits non-zero."""
    r = subprocess.run([str(OCGRAPH_BIN), *map(str, args)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{where}: ocgraph {' '.join(map(str, args))} exited {r.returncode}: {r.stderr}"
    return r


def read_edges(g: Path, tmp: Path, where: str, undirected: bool = False) -> collections.Counter:
    """The edges ``ocgraph export`` writes (original ids), as a multiset."""
    ocg("export", g, tmp / "edges.txt", "--original-ids", where=where)
    pairs = (tuple(map(int, line.split())) for line in (tmp / "edges.txt").read_text().splitlines())
    return collections.Counter((min(p), max(p)) if undirected else p for p in pairs)


def read_wcc(g: Path, tmp: Path, where: str, *extra: str) -> tuple[frozenset, frozenset]:
    """The vertices (original ids) and the partition into components ``ocgraph run wcc`` finds."""
    ocg("run", "wcc", g, "--out", tmp / "wcc.txt", "--original-ids", *extra, where=where)
    comp = dict(tuple(map(int, line.split())) for line in (tmp / "wcc.txt").read_text().splitlines())
    return frozenset(comp), partition(comp)


def partition(comp: dict) -> frozenset:
    groups = collections.defaultdict(set)
    for v, c in comp.items():
        groups[c].add(v)
    return frozenset(frozenset(s) for s in groups.values())


def info(g: Path, where: str) -> str:
    return ocg("info", g, where=where).stdout


def num_vertices(g: Path, where: str) -> int:
    return int(re.search(r"^vertices\s+(\d+)", info(g, where), re.M).group(1))


# Oracles, from the input files alone.


@dataclass(frozen=True)
class State:
    """A graph state: its vertices and its edges (a set: the reads must list each once)."""

    vertices: frozenset
    edges: frozenset

    def matches(self, vertices, edges: collections.Counter) -> bool:
        return vertices == self.vertices and edges == collections.Counter(self.edges)

    def components(self) -> frozenset:
        g = nx.Graph()
        g.add_nodes_from(self.vertices)
        g.add_edges_from(self.edges)
        return frozenset(frozenset(c) for c in nx.connected_components(g))


def apply_batches(edges: set, n: int, batches: list) -> list[State]:
    """The states after 0, 1, ... of ``batches`` (lists of ``("+", u, v)``, ``("-", u, v)``,
    ``("+v", count)``, ``("-v", u)``) applied to the directed graph ``edges`` on ``n`` vertices."""
    states = [State(frozenset(range(n)), frozenset(edges))]
    for batch in batches:
        for op in batch:
            if op[0] == "+":
                edges.add(op[1:])
            elif op[0] == "-":
                edges.discard(op[1:])
            elif op[0] == "+v":
                n += op[1]
            else:
                edges = {e for e in edges if op[1] not in e}
        states.append(State(frozenset(range(n)), frozenset(edges)))
    return states


def chunks(ops: list, size: int) -> list:
    return [ops[i : i + size] for i in range(0, len(ops), size)]


def write_pairs(path: Path, pairs, header: str = "") -> Path:
    path.write_text(header + "".join(f"{u} {v}\n" for u, v in pairs))
    return path


# The commands under test.


@dataclass
class Case:
    """One command: ``setup`` runs (without the shim) on a copy of the base graph before each
    trial (``base`` False: on no graph, the command creates it); ``expect`` is a pattern an
    uninterrupted run must print (the code path under test ran)."""

    command: list
    base: bool = True
    setup: tuple = ()
    expect: str = ""


class World:
    """The inputs, the base graph, the cases with their oracle states, and the shim."""

    def __init__(self, d: Path, shim: Path):
        self.dir, self.shim, self.run_times = d, shim, {}
        rng = random.Random(7)
        base_edges = set()
        while len(base_edges) < 3 * N:
            u, v = rng.randrange(N), rng.randrange(N)
            if u != v:
                base_edges.add((u, v))
        self.base = d / "base"
        ocg(
            "import",
            write_pairs(d / "base.txt", sorted(base_edges)),
            self.base,
            "--num-vertices",
            N,
            "--quiet",
        )
        self.base_state = State(frozenset(range(N)), frozenset(base_edges))

        # import: original ids, duplicates (either direction) and self-loops.
        ids = [rng.randrange(10**12) for _ in range(1500)]
        pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(5000)]
        pairs += [(v, u) for u, v in pairs[:500]] + [(v, v) for v in ids[:20]]
        rng.shuffle(pairs)
        imported = write_pairs(d / "import.txt", pairs, header="# original ids\n")
        self.import_state = State(frozenset(ids), frozenset((min(p), max(p)) for p in pairs))

        labels = {v: rng.randrange(5) for v in range(0, N, 3)}
        self.labels = labels
        (d / "labels.txt").write_text("".join(f"{v} {lab}\n" for v, lab in labels.items()))

        # update: 5 vertices (a batch), then additions and removals by batches of BATCH edges.
        add = [(rng.randrange(N + 5), rng.randrange(N + 5)) for _ in range(1500)]
        add = [(u, v) for u, v in add if u != v]
        remove = rng.sample(sorted(base_edges), 500) + [
            (rng.randrange(N), rng.randrange(N)) for _ in range(200)
        ]
        write_pairs(d / "add.txt", add)
        write_pairs(d / "remove.txt", remove)

        def update_batches(size: int) -> list:
            """The batches of `update`: the new vertices, then additions and removals by ``size``."""
            adds, removes = chunks([("+", *e) for e in add], size), chunks([("-", *e) for e in remove], size)
            return [[("+v", 5)], *adds, *removes]

        self.update_states = apply_batches(set(base_edges), N, update_batches(BATCH))
        self.compact_states = apply_batches(set(base_edges), N, update_batches(500))[-1:]

        # stream: additions, removals of existing edges, new vertices, removed vertices.
        ops, edge_list = [], sorted(base_edges)
        for _ in range(2000):
            x = rng.random()
            if x < 0.6:
                ops.append(("+", rng.randrange(N), rng.randrange(N)))
            elif x < 0.95:
                ops.append(("-", *rng.choice(edge_list)))
            elif x < 0.98:
                ops.append(("+v", 2))
            else:
                ops.append(("-v", rng.randrange(N)))
        (d / "stream.txt").write_text("".join(" ".join(map(str, op)) + "\n" for op in ops))
        (d / "empty.txt").write_text("")
        self.stream_states = apply_batches(set(base_edges), N, chunks(ops, BATCH))

        g = "{g}"
        changes = ["--add-vertices", "5", "--add-edges", d / "add.txt", "--remove-edges", d / "remove.txt"]
        batches = ["--batch-size", BATCH, "--durability", "batch"]
        self.cases = {
            "import": Case(
                ["import", "--undirected", "--dedup", "--relabel", "--quiet", imported, g], base=False
            ),
            "import-spill": Case(
                ["import", "--undirected", "--dedup", "--relabel", "--memory", "16KiB", imported, g],
                base=False,
                expect=r"\b[1-9]\d* spilled runs",
            ),
            "layout-grid": Case(
                ["layout", "grid", g, "--cells-per-side", "8", "--compress", "lz4", "--quiet"],
                setup=(["layout", "grid", g, "--cells-per-side", "2", "--quiet"],),
            ),
            "labels-set": Case(["labels", "set", g, d / "labels.txt"]),
            "update": Case(["update", g, *changes, *batches, "--ack"]),
            "compact": Case(
                ["compact", g],
                setup=(
                    ["update", g, *changes[:4], "--batch-size", "500", "--freeze"],
                    ["update", g, "--remove-edges", d / "remove.txt", "--batch-size", "500"],
                ),
                expect="compacted",
            ),
            "stream": Case(
                ["stream", g, "--updates", d / "stream.txt", "--maintain", "wcc,bfs:source=0", *batches]
            ),
        }
        # The grid's description before and after the command (docs/design.md allows none between).
        gold = d / "gold"
        self.prepare("layout-grid", gold)
        self.grid_before = grid_line(gold / "g", "setup")
        ocg(*self.args("layout-grid", gold / "g"))
        self.grid_after = grid_line(gold / "g", "setup")
        assert self.grid_before != self.grid_after

    def args(self, name: str, g: Path) -> list[str]:
        return [str(g) if a == "{g}" else str(a) for a in self.cases[name].command]

    def prepare(self, name: str, work: Path) -> None:
        """A fresh ``work`` directory holding the graph ``work/g`` the command starts from."""
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        case = self.cases[name]
        if case.base:
            shutil.copytree(self.base, work / "g")
        for s in case.setup:
            ocg(*(work / "g" if a == "{g}" else a for a in s))

    def run_time(self, name: str) -> float:
        """The command's shortest run time under the shim, of three uninterrupted runs."""
        if name not in self.run_times:
            times, work = [], self.dir / "timing"
            for _ in range(3):
                self.prepare(name, work)
                shadow = self.dir / "timing-shadow"
                shutil.rmtree(shadow, ignore_errors=True)
                start = time.perf_counter()
                _, rc, out, err = run_under_shim(self.shim, self.args(name, work / "g"), work, shadow, None)
                times.append(time.perf_counter() - start)
                assert rc == 0, f"{name}: exited {rc} under the shim: {err}"
                assert re.search(self.cases[name].expect, out + err), (
                    f"{name}: no {self.cases[name].expect!r}"
                )
            self.run_times[name] = min(times)
        return self.run_times[name]


def grid_line(g: Path, where: str) -> str:
    return re.search(r"^grid\s+(.*)$", info(g, where), re.M).group(1)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    if not OCGRAPH_BIN.exists():
        pytest.skip("the CLI is not built (make cli)")
    d = tmp_path_factory.mktemp("powerloss")
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) to build the shim tests/faults/powerloss.c")
    shim = d / "powerloss.so"
    cc = subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", shim, SHIM_SOURCE, "-ldl", "-lpthread"],
        capture_output=True,
        text=True,
    )
    assert cc.returncode == 0, f"compiling the shim powerloss.c failed: {cc.stderr}"
    return World(d, shim)


# The checks of the graph a power loss left.


def check_import(world: World, g: Path, tmp: Path, killed: bool, where: str) -> None:
    opened = subprocess.run([str(OCGRAPH_BIN), "info", str(g)], capture_output=True, text=True)
    if opened.returncode != 0:
        assert killed, f"{where}: exited 0, but the graph does not open after the power loss: {opened.stderr}"
        assert not g.exists(), (
            f"{where}: the killed import left a directory that does not open: {opened.stderr}"
        )
        assert opened.stderr.startswith("error:") and "No such file or directory" in opened.stderr, (
            f"{where}: opening the absent graph gives no clear error: {opened.stderr}"
        )
        assert "internal error" not in opened.stderr and "panicked" not in opened.stderr, (
            f"{where}: opening the absent graph: {opened.stderr}"
        )
        return
    ocg("check", g, where=where)
    state = world.import_state
    vertices, components = read_wcc(g, tmp, where)
    edges = read_edges(g, tmp, where, undirected=True)
    assert state.matches(vertices, edges), f"{where}: the graph is neither absent nor the whole import"
    assert components == state.components(), f"{where}: WCC differs from networkx's on the input"


def check_unchanged_edges(world: World, g: Path, tmp: Path, where: str, *wcc_args: str) -> None:
    state = world.base_state
    vertices, components = read_wcc(g, tmp, where, *wcc_args)
    edges = read_edges(g, tmp, where)
    assert state.matches(vertices, edges), f"{where}: the edges differ from the base graph's"
    assert components == state.components(), f"{where}: WCC {' '.join(wcc_args)} differs from networkx's"


def check_layout(world: World, g: Path, tmp: Path, killed: bool, where: str) -> None:
    ocg("check", g, where=where)
    grid = grid_line(g, where)
    allowed = [world.grid_after] if not killed else [world.grid_before, world.grid_after]
    assert grid in allowed or (killed and grid.startswith("none")), (
        f"{where}: grid {grid!r}; expected one of {allowed}" + (" or none" if killed else "")
    )
    check_unchanged_edges(world, g, tmp, where)
    if not grid.startswith("none"):
        check_unchanged_edges(world, g, tmp, where, "--layout", "grid")


def check_labels(world: World, g: Path, tmp: Path, killed: bool, where: str) -> None:
    ocg("check", g, where=where)
    shown = ocg("labels", "show", g, where=where).stdout
    labels = dict(tuple(map(int, line.split())) for line in shown.splitlines())
    allowed = [world.labels] if not killed else [{}, world.labels]
    assert labels in allowed, f"{where}: {len(labels)} labels, neither none nor the {len(world.labels)} set"
    check_unchanged_edges(world, g, tmp, where)


def fix_identity(path: Path, g: Path) -> None:
    """Rewrites the graph directory's device and inode numbers in the saved result at ``path``
    (docs/incremental.md, "Durability": magic, sequence number, vertex count, device, inode,
    name, payload, CRC-32C) to those of ``g``, when its checksum holds."""
    raw = bytearray(path.read_bytes())
    if len(raw) < 44 or crc32c(bytes(raw[:-4])) != struct.unpack("<I", raw[-4:])[0]:
        return
    st = g.stat()
    raw[24:40] = struct.pack("<QQ", st.st_dev, st.st_ino)
    raw[-4:] = struct.pack("<I", crc32c(bytes(raw[:-4])))
    path.write_bytes(bytes(raw))


def check_batches(world: World, name: str, g: Path, tmp: Path, killed: bool, out: str, where: str) -> None:
    states = {"update": world.update_states, "compact": world.compact_states, "stream": world.stream_states}[
        name
    ]
    acks = [int(a) for a in re.findall(r"^ack (\d+)$", out, re.M)]
    required = max(acks, default=0) if killed else len(states) - 1

    def state_of(what: str) -> int:
        edges = read_edges(g, tmp, where)
        vertices = frozenset(range(num_vertices(g, where)))
        ks = [k for k, s in enumerate(states) if s.matches(vertices, edges)]
        size = f"{len(vertices)} vertices, {sum(edges.values())} edges"
        assert ks, f"{where}: {what}: {size}: no prefix of the batches"
        assert max(ks) >= required, f"{where}: {what}: {max(ks)} batches, but {required} acknowledged"
        return max(ks)

    ocg("check", g, where=where)
    k = state_of("after the power loss")
    _, components = read_wcc(g, tmp, where)
    assert components == states[k].components(), f"{where}: WCC differs from networkx's at batch {k}"
    if name == "compact" and not killed:
        assert "\nupdates " not in info(g, where), f"{where}: exited 0, but the compaction is not durable"
    if name == "stream":
        for saved in (g / "maintained").glob("*.bin") if (g / "maintained").is_dir() else []:
            fix_identity(saved, g)
        verify = ocg(
            "stream",
            g,
            "--updates",
            world.dir / "empty.txt",
            "--maintain",
            "wcc,bfs:source=0",
            "--verify",
            where=where,
        )
        text = verify.stdout + verify.stderr
        assert text.count("equals a full recomputation") == 2 and "differ" not in text, (
            f"{where}: saved results disagree with a recomputation: {text}"
        )
        if not killed:
            assert text.count("loaded (current)") == 2, (
                f"{where}: exited 0, saved results not durable: {text}"
            )
    else:
        ocg("update", g, "--add-vertices", "0", where=where)  # a writer's open: recovery
    ocg("check", g, where=where)
    assert state_of("after a writer's open") == k, f"{where}: a writer's open changed the state"


@pytest.mark.parametrize("name,trial", [(c, t) for c in COMMANDS for t in range(TRIALS)])
def test_cli_write_survives_power_loss(world, tmp_path, name, trial):
    seed = 1000 * COMMANDS.index(name) + trial
    where = f"{name} trial {trial} (seed {seed})"
    run_time = world.run_time(name)
    delay = None if trial % 4 == 3 else random.Random(seed).uniform(0, 1.2 * run_time)
    work, shadow, lost = tmp_path / "work", tmp_path / "shadow", tmp_path / "lost"
    world.prepare(name, work)
    killed, rc, out, err = run_under_shim(world.shim, world.args(name, work / "g"), work, shadow, delay)
    assert killed or rc == 0, f"{where}: exited {rc}: {err}"
    materialize(shadow, lost)
    g = lost / "g"
    where += f", killed after {delay:.4f} s" if killed else ", finished"
    if name.startswith("import"):
        check_import(world, g, tmp_path, killed, where)
    elif name == "layout-grid":
        check_layout(world, g, tmp_path, killed, where)
    elif name == "labels-set":
        check_labels(world, g, tmp_path, killed, where)
    else:
        check_batches(world, name, g, tmp_path, killed, out, where)
