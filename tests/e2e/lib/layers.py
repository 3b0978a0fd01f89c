# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The house's layering, checked on two graphs (tests/e2e/layers.sh).

Layers, each using only those below it (docs/guide.md's "Where things are"):

    lib  <-  collectors  <-  engine  <-  cmd
    lib  <-  reader      <-  cmd

1. The #include "..." lines of every .c and .h: a file may include its own
   folder's headers and those of the layers below its own.
2. The link graph, from the symbols of the built objects (nm): an object
   that uses a function or variable another defines depends on it. The same
   rules hold, and no two objects depend on each other, directly or round a
   longer cycle; a cycle through headers would hide from (1) (a .c calling
   a function declared in another module's header, or in none).

usage: layers.py REPO_DIR BUILD_DIR; prints what is wrong, exits 1 if any.
"""
import os
import re
import subprocess
import sys

LAYERS = ("lib", "collectors", "engine", "reader", "cmd")
MAY_USE = {
    "lib": {"lib"},
    "collectors": {"lib", "collectors"},
    "engine": {"lib", "collectors", "engine"},
    "reader": {"lib", "reader"},
    "cmd": set(LAYERS),
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    top = path.split(os.sep, 1)[0]
    return top if top in LAYERS else None


def sources(repo):
    for layer in LAYERS:
        for d, _, files in os.walk(os.path.join(repo, layer)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), repo)


def resolve(repo, including, name):
    """The file an include names: beside the includer, else in a layer's
    include path (each layer's folder is one), else None (a system or
    generated header)."""
    for base in [os.path.dirname(including)] + list(LAYERS):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(repo, p)):
            return p
    return None


def check_includes(repo):
    problems = []
    for f in sources(repo):
        with open(os.path.join(repo, f)) as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            target = resolve(repo, f, name)
            if target is None:
                # bpftool's skeletons, in build/gen; version.h, which the
                # Makefile writes (tools/version) and gives lib's include path
                if not name.endswith(".skel.h") and name != "version.h":
                    problems.append("%s includes \"%s\", which no layer has" % (f, name))
                continue
            a, b = layer_of(f), layer_of(target)
            if b not in MAY_USE[a]:
                problems.append("%s (%s) includes %s (%s): %s may not use %s" % (f, a, target, b, a, b))
    return problems


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRVWCG" or kind in "tdbr":
            if kind.isupper():
                defined.add(name)
    return defined, used


def check_links(repo, build):
    objs = {}
    root = os.path.join(build, "obj")
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".o"):
                rel = os.path.relpath(os.path.join(d, f), root)[:-2]
                # not an object left from a file since moved or removed
                if layer_of(rel) and os.path.isfile(os.path.join(repo, rel + ".c")):
                    objs[rel] = symbols(os.path.join(d, f))
    owner = {}
    for o, (defined, _) in objs.items():
        for s in defined:
            owner[s] = o
    deps = {o: set() for o in objs}
    problems = []
    for o, (_, used) in objs.items():
        for s in used:
            t = owner.get(s)
            if t is None or t == o:
                continue
            deps[o].add(t)
            a, b = layer_of(o), layer_of(t)
            if b not in MAY_USE[a]:
                problems.append("%s (%s) uses %s of %s (%s): %s may not use %s" % (o, a, s, t, b, a, b))
    # cycles: Tarjan's strongly connected components
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    for comp in sccs:
        problems.append("a cycle: %s depend on each other" % ", ".join(comp))
    return problems, len(objs), sum(len(d) for d in deps.values())


def main():
    repo, build = sys.argv[1], sys.argv[2]
    problems = check_includes(repo)
    link_problems, nobj, nedges = check_links(repo, build)
    problems += link_problems
    for p in problems:
        print(p)
    if not problems:
        print("%d files' includes and %d objects' %d links keep the layers, with no cycle"
              % (len(list(sources(repo))), nobj, nedges))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
