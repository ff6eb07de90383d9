#!/usr/bin/env python3
"""tests/difffuzz/isolate.py: the first step of minimising a difference: keeps
one function of a generated scalar program (its inputs stay the same: they
come from the seed, not from the functions), so the function can then be cut
down by hand and its PTX read (nvcc -ptx).

    python3 tests/difffuzz/isolate.py PROGRAM.cu K [-o OUT.cu]
"""
import argparse
import re
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('program')
    ap.add_argument('k', type=int)
    ap.add_argument('-o', '--output')
    a = ap.parse_args()
    src = open(a.program).read()
    head_end = src.index('\nH void f0(')
    head = src[:head_end]
    m = re.search(r'\nH void f%d\(.*?\n}\n__global__ void k%d\(.*?\n}\n' % (a.k, a.k), src, re.S)
    if not m:
        sys.exit('isolate.py: no function f%d in %s' % (a.k, a.program))
    body = m.group(0).replace('f%d(' % a.k, 'f0(').replace('k%d(' % a.k, 'k0(')
    kinds = re.search(r'static const char \*const KINDS\[NFUNC\] = \{(.*?)\};', src).group(1)
    kind = re.findall(r'"[a-z]*"', kinds)[a.k]
    tail = src[src.index('\n/* ---- inputs'):]
    head = re.sub(r'#define NFUNC \d+', '#define NFUNC 1', head)
    out = (head + body +
           'typedef void (*Kernel)(const In *, uint64_t *);\n'
           'static const Kernel KERNELS[NFUNC] = {k0};\n'
           'static void (*const HOSTFNS[NFUNC])(const In *, uint64_t *) = {f0};\n'
           'static const char *const KINDS[NFUNC] = {%s};\n' % kind + tail)
    if a.output:
        open(a.output, 'w').write(out)
    else:
        sys.stdout.write(out)


if __name__ == '__main__':
    main()
