#!/usr/bin/env python3
"""The man pages, as a user of `man` gets them (TAP for make check).

1. scripts/manpages.py makes every page from docs/ (skipped, as the whole
   test, where pandoc or man is not installed);
2. each page renders with `man --warnings -l` without a warning, in the C
   and the C.UTF-8 locales;
3. every option a command accepts is in its page: the options are the
   parser's own table (SLUICE_LIST_OPTIONS, src/cli/opt.c), for each Slurm
   name and each sluice verb; a verb is documented in its Slurm twin's
   page (sluice submit in sbatch(1)) or in sluice(1);
4. every verb of `sluice help` is named in sluice(1).

usage: check.py [BUILD]   (default $SLUICE_BUILD, else build)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.path.join(ROOT, sys.argv[1] if len(sys.argv) > 1 else
                     os.environ.get('SLUICE_BUILD', 'build'))
BIN = os.path.join(BUILD, 'bin')
n = 0
failed = 0


def tap(ok, name, detail=()):
    global n, failed
    n += 1
    failed += 0 if ok else 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', n, name))
    for d in () if ok else detail:
        print('#   ' + d)


def slurm_names():
    out = subprocess.run(['make', '-s', '--no-print-directory', '-C', ROOT,
                          'print-SLURM_NAMES'], capture_output=True,
                         text=True, check=True).stdout
    return out.split()


def env(**kw):
    e = dict(os.environ, SLUICE_CONF='/nonexistent/sluice.conf', **kw)
    e.pop('SLUICE_LIST_OPTIONS', None)
    e.update(kw)
    return e


def render(page, locale, width):
    p = subprocess.run(['man', '--warnings', '-l', page],
                       capture_output=True, text=True,
                       env=env(LC_ALL=locale, MANWIDTH=str(width),
                               MAN_KEEP_FORMATTING='', MANPAGER='cat',
                               PAGER='cat'))
    return p.stdout, p.stderr


def options(argv):
    """The options argv's parser accepts, or None when it has no table."""
    p = subprocess.run(argv, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=20,
                       env=env(SLUICE_LIST_OPTIONS='1'))
    lines = p.stdout.split()
    if p.returncode != 0 or not lines or \
            any(not l.startswith('-') for l in lines):
        return None
    return lines


def verb_options(verb, usage):
    """A verb's options; its leading literal words (report preemptions)
    are given when the verb alone parses nothing."""
    got = options([os.path.join(BIN, 'sluice'), verb])
    if got is None:
        words = []
        for w in usage.split()[2:]:
            if not re.match(r'^[a-z][a-z-]*$', w):
                break
            words.append(w)
        if words:
            got = options([os.path.join(BIN, 'sluice'), verb] + words)
    return got


def present(opt, text):
    """opt as a word of text: --mem not inside --mem-per-cpu, -J alone."""
    return re.search(r'(?<![\w-])' + re.escape(opt) + r'(?![\w-])',
                     text) is not None


def main():
    global failed
    if not shutil.which('pandoc') or not shutil.which('man'):
        print('ok 1 # SKIP pandoc or man is not installed')
        print('1..1')
        return 0
    sluice = os.path.join(BIN, 'sluice')
    if not os.access(sluice, os.X_OK):
        print('not ok 1 - %s is not built' % sluice)
        return 1
    names = slurm_names()
    out = tempfile.mkdtemp(prefix='sluice-man.')
    try:
        subprocess.run([sys.executable,
                        os.path.join(ROOT, 'scripts', 'manpages.py'),
                        '--sluice', sluice, '--slurm-names', ' '.join(names),
                        '--docs', os.path.join(ROOT, 'docs'), '--out', out],
                       check=True)
        pages = {}
        for sec in ('man1', 'man5', 'man8'):
            for f in sorted(os.listdir(os.path.join(out, sec))):
                pages[f.rsplit('.', 1)[0]] = os.path.join(out, sec, f)
        tap(set(names) | {'sluice', 'sluicectld', 'sluiced',
                          'sluice.conf'} <= set(pages),
            'a page for sluice, each Slurm name, both daemons and '
            'sluice.conf', ['pages: ' + ' '.join(sorted(pages))])
        text = {}
        for name, page in sorted(pages.items()):
            bad = []
            for loc in ('C', 'C.UTF-8'):
                _, err = render(page, loc, 80)
                bad += ['%s: %s' % (loc, l) for l in err.splitlines()]
            tap(not bad, 'man --warnings -l %s: no warning' %
                os.path.basename(page), bad[:10])
            # unwrapped, so that no option is cut at a line's end
            text[name] = render(page, 'C', 10000)[0]
        usage = {}
        for line in subprocess.run([sluice, 'help'], capture_output=True,
                                   text=True).stdout.splitlines():
            m = re.match(r'^  sluice (\S+)', line)
            if m:
                usage[m.group(1)] = line.strip()
        twin = twins(text, names)
        missing = [v for v in usage
                   if not present('sluice ' + v, text['sluice'])]
        tap(not missing, 'every verb of sluice help is in sluice(1)',
            ['missing: ' + ' '.join(missing)])
        for name in names:
            check_options(name, options([os.path.join(BIN, name)]),
                          text[name])
        for verb in usage:
            page = twin.get(verb, 'sluice')
            check_options('sluice %s (in %s(1))' % (verb, page),
                          verb_options(verb, usage[verb]), text[page])
    finally:
        shutil.rmtree(out)
    print('1..%d' % n)
    return 1 if failed else 0


def twins(text, names):
    """verb -> the Slurm page that lists `sluice VERB` in its synopsis."""
    out = {}
    for name in names:
        syn = text[name].split('DESCRIPTION')[0]
        for m in re.finditer(r'^\s*sluice (\S+)', syn, re.M):
            out.setdefault(m.group(1), name)
    return out


def check_options(what, opts, text):
    if opts is None:
        tap(True, '%s: no option table (nothing to look for)' % what)
        return
    missing = sorted({o for o in opts if not present(o, text)})
    tap(not missing, '%s: each of its %d options is in its page' %
        (what, len(set(opts))), ['missing: ' + ' '.join(missing)])


if __name__ == '__main__':
    sys.exit(main())
