#!/usr/bin/env python3
"""The layering rule of src/ (docs/architecture.md), as TAP for make check.

1. Includes: a file of src/ctld/<layer>/ includes ctld headers only from its
   own layer or a lower one (src/ctld/LAYERS, lowest first); src/sched,
   src/common, src/cli and src/noded include nothing of ctld/, and ctld/
   nothing of noded/ or cli/.
2. Calls: the same rule over the objects of the controller's library, from
   `nm`: a function or variable defined in one layer is used only by its
   own layer or a higher one, so a call cannot climb through a prototype
   written by hand.
3. No include circle between files of different folders (strongly
   connected components of the file-level include graph).

Usage: layers.py [ROOT [BUILD]]; BUILD (default build) holds the objects.
"""
import os
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
BUILD = sys.argv[2] if len(sys.argv) > 2 else os.environ.get('SLUICE_BUILD', 'build')
SRC = os.path.join(ROOT, 'src')
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

tap = []


def result(ok, name, detail=()):
    tap.append(('ok' if ok else 'not ok') + ' - ' + name)
    for d in detail:
        tap.append('#   ' + d)


def layers():
    with open(os.path.join(SRC, 'ctld', 'LAYERS')) as f:
        names = [l.strip() for l in f if l.strip() and not l.startswith('#')]
    return {n: i for i, n in enumerate(names)}


ORDER = layers()


def ctld_layer(rel):
    """rel: a path under src/ ("ctld/job/jobs.c"); its layer name."""
    parts = rel.split('/')
    return 'root' if len(parts) == 2 else parts[1]


def sources():
    out = []
    for d, _, fs in os.walk(SRC):
        for f in fs:
            if f.endswith(('.c', '.h')):
                out.append(os.path.relpath(os.path.join(d, f), SRC))
    return sorted(out)


def includes(rel):
    with open(os.path.join(SRC, rel), encoding='utf-8') as f:
        return INC.findall(f.read())


FORBIDDEN = {  # top folder -> top folders it must not include
    'common': {'sched', 'sim', 'ctld', 'noded', 'cli'},
    'sched': {'sim', 'ctld', 'noded', 'cli'},
    'sim': {'ctld', 'noded', 'cli'},
    'noded': {'sim', 'ctld', 'cli'},
    'cli': {'ctld', 'noded'},
    'ctld': {'sim', 'noded', 'cli'},
}


def check_includes(files):
    bad = []
    for rel in files:
        top = rel.split('/')[0]
        for inc in includes(rel):
            itop = inc.split('/')[0]
            if itop in FORBIDDEN.get(top, ()):
                bad.append('%s includes "%s" (%s/ must not include %s/)'
                           % (rel, inc, top, itop))
                continue
            if top != 'ctld' or itop != 'ctld':
                continue
            mine, theirs = ctld_layer(rel), ctld_layer(inc)
            if theirs not in ORDER or mine not in ORDER:
                bad.append('%s includes "%s": layer %s not in src/ctld/LAYERS'
                           % (rel, inc, theirs if theirs not in ORDER else mine))
            elif ORDER[theirs] > ORDER[mine]:
                bad.append('%s (%s) includes "%s" (%s), a higher layer'
                           % (rel, mine, inc, theirs))
    result(not bad, 'includes point down the layers (src/ctld/LAYERS)', bad)


def check_cycles(files):
    present = set(files)
    graph = {}
    for rel in files:
        graph[rel] = [i for i in includes(rel) if i in present]
    # Tarjan's strongly connected components, iteratively.
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = n[0]
                n[0] += 1
                stack.append(v)
                on.add(v)
            recurse = False
            for j in range(i, len(graph[v])):
                w = graph[v][j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                sccs.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    bad = []
    for comp in sccs:
        if len({os.path.dirname(f) for f in comp}) > 1:
            bad.append('include circle: ' + ' '.join(sorted(comp)))
    result(not bad, 'no include circle between files of different folders',
           bad)


def nm(path):
    try:
        out = subprocess.run(['nm', '-A', path], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as ex:
        return None, str(ex)
    return out, None


def check_calls():
    lib = os.path.join(ROOT, BUILD, 'lib', 'libsluice_ctld.a')
    objdir = os.path.join(ROOT, BUILD, 'obj', 'src', 'ctld')
    if not os.path.isdir(objdir):
        result(False, 'calls point down the layers', ['no objects in ' + objdir])
        return
    defined, used = {}, []
    for rel in sources():
        if not rel.startswith('ctld/') or not rel.endswith('.c') \
                or rel == 'ctld/main.c':
            continue
        path = os.path.join(ROOT, BUILD, 'obj', 'src', rel[:-2] + '.o')
        if not os.path.exists(path):
            result(False, 'calls point down the layers', ['no ' + path])
            return
        out, err = nm(path)
        if out is None:
            result(False, 'calls point down the layers', [err])
            return
        for line in out.splitlines():
            fields = line.split()
            if len(fields) != 3:
                continue
            if fields[1] in ('T', 'D', 'B', 'R'):
                defined[fields[2]] = rel
            elif fields[1] == 'U':
                used.append((rel, fields[2]))
    bad = set()
    for rel, sym in used:
        where = defined.get(sym)
        if where is None:
            continue
        mine, theirs = ctld_layer(rel), ctld_layer(where)
        if ORDER.get(theirs, -1) > ORDER.get(mine, -1):
            bad.add('%s (%s) uses %s of %s (%s)'
                    % (rel, mine, sym, where, theirs))
    result(not bad, 'calls point down the layers (nm over %s)'
           % os.path.relpath(lib, ROOT), sorted(bad))


def main():
    files = sources()
    check_includes(files)
    check_cycles(files)
    check_calls()
    print('1..%d' % sum(1 for t in tap if not t.startswith('#')))
    print('\n'.join(tap))


main()
