#!/usr/bin/env python3
"""The man pages, made from docs/ with pandoc: the documentation stays the
one source, and a page follows whatever docs and verbs exist.

  sluice(1)        docs/cli.md's introduction and SYNOPSIS lines from
                   `sluice help`; then the sections of every verb without
                   a Slurm name: a level-2 heading of docs/cli.md naming
                   `sluice VERB`, a level-2 heading of any doc that starts
                   with it (`## sluice check-config`), or a doc whose title
                   starts with it (`# sluice doctor ...`)
  NAME(1)          each Slurm name (sbatch, ...): the sections of
                   docs/cli.md whose heading names it, or the doc whose
                   title starts with it (docs/srun.md)
  sluicectld(8), sluiced(8)
                   the doc whose title starts with the daemon's name
  sluice.conf(5)   docs/configuration.md

The verbs come from `sluice help`, each Slurm name's synopsis from `sluice
help NAME`, the one-line descriptions from the table at the top of
docs/cli.md.  Tables become tagged paragraphs (scripts/man-tables.lua).

usage: manpages.py --sluice BIN --slurm-names "sbatch squeue ..."
                   --docs DIR --out DIR [--date YYYY-MM-DD]
                   [--slurm-page-prefix PREFIX] [--docdir PATH]
Writes OUT/man1, OUT/man5, OUT/man8 and, for reading, OUT/md/*.md.
--slurm-page-prefix names the Slurm pages' files (the Debian package
installs sbatch(1) as sluice-sbatch.1 beside Slurm's own).
"""
import argparse
import os
import re
import subprocess
import sys

HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
FENCE = re.compile(r'^\s*(```|~~~)')
# docs/cli.md's section that every command page carries
COMMON = 'Options every command takes'
PANDOC_FROM = ('markdown-smart-raw_html-tex_math_dollars-superscript'
               '-subscript-citations-implicit_figures')


class Doc:
    """A Markdown file split at its headings (outside code fences)."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.title = ''
        self.intro = []      # lines between the title and the first ##
        self.sections = []   # [title, lines] of each ## (deeper kept)
        cur = self.intro
        fenced = False
        with open(path, encoding='utf-8') as f:
            for line in f.read().split('\n'):
                if FENCE.match(line):
                    fenced = not fenced
                m = None if fenced else HEADING.match(line)
                if m and len(m.group(1)) == 1 and not self.title:
                    self.title = m.group(2)
                    continue
                if m and len(m.group(1)) == 2:
                    cur = []
                    self.sections.append([m.group(2), cur])
                    continue
                cur.append(line)


def plain(title):
    return title.replace('`', '').strip()


def title_starts_with(title, name):
    """# srun: ...  /  # sluiced, the node daemon  /  # sluice doctor"""
    t = plain(title)
    return t == name or re.match(re.escape(name) + r'\b[^-]', t) is not None


def heading_verbs(title):
    """The verbs a heading names: 'sluice show, hold' -> show, hold."""
    out = []
    for m in re.finditer(r'\bsluice ((?:[a-z][a-z-]*)(?:, [a-z][a-z-]*)*)',
                         plain(title)):
        out += [w.split()[0] for w in m.group(1).split(', ')]
    return out


def heading_slurm(title, slurm):
    """The Slurm names a heading names (before any 'sluice ...')."""
    t = re.split(r'\bsluice ', plain(title))[0]
    return [w for w in re.findall(r'[a-z]+', t) if w in slurm]


def shift(lines, by):
    """Headings moved up by `by` levels (never above level 2)."""
    out, fenced = [], False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced else HEADING.match(line)
        if m:
            level = max(2, len(m.group(1)) - by)
            line = '#' * level + ' ' + m.group(2)
        out.append(line)
    return out


def md_escape(text):
    return re.sub(r'([\\`*_\[\]<>|#])', r'\\\1', text)


def table_rows(doc):
    """Rows (verbs, slurm, what) of the verb table in the intro."""
    rows = []
    for line in doc.intro:
        if not line.startswith('|') or re.match(r'^\|[-| ]+\|$', line):
            continue
        cells = [c.strip() for c in re.split(r'(?<!\\)\|', line)[1:-1]]
        if len(cells) < 3 or cells[0] == 'sluice verb':
            continue
        verbs = [s.split()[0] for s in re.findall(r'`([^`]+)`', cells[0])]
        spans = re.findall(r'`([^`]+)`', cells[1])
        slurm = spans[0].split()[0] if spans else ''
        rows.append((verbs, slurm, cells[2]))
    return rows


def run(cmd):
    env = dict(os.environ, SLUICE_CONF='/nonexistent/sluice.conf')
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          check=False).stdout


class Pages:
    def __init__(self, args):
        self.a = args
        self.docs = [Doc(os.path.join(args.docs, f))
                     for f in sorted(os.listdir(args.docs))
                     if f.endswith('.md')]
        self.cli = self.doc('cli.md')
        self.slurm = args.slurm_names.split()
        self.usage = {}  # verb -> usage line
        for line in run([args.sluice, 'help']).split('\n'):
            m = re.match(r'^  sluice (\S+)(.*)$', line)
            if m:
                self.usage[m.group(1)] = 'sluice ' + m.group(1) + m.group(2)
        if not self.usage:
            sys.exit('manpages.py: no verbs from %s help' % args.sluice)
        self.rows = table_rows(self.cli)
        self.twin = {}  # verb -> Slurm name whose page documents it
        for verbs, slurm, _ in self.rows:
            for v in verbs:
                if slurm in self.slurm:
                    self.twin.setdefault(v, slurm)
        for title, _ in self.cli.sections:
            names = heading_slurm(title, self.slurm)
            verbs = heading_verbs(title)
            for i, v in enumerate(verbs):
                if names:
                    self.twin.setdefault(
                        v, names[i] if len(names) == len(verbs) else names[0])

    def doc(self, name):
        for d in self.docs:
            if d.name == name:
                return d
        sys.exit('manpages.py: docs/%s is missing' % name)

    def whole_doc(self, name):
        for d in self.docs:
            if title_starts_with(d.title, name):
                return d
        return None

    def what(self, name, verb=False):
        """The table's description of a verb, or of a Slurm name: the row
        naming only the command first ("scontrol", not "scontrol show")."""
        if verb:
            return next((w for v, _, w in self.rows if name in v), None)
        rows = [r for r in self.rows if r[1] == name]
        rows.sort(key=lambda r: len(r[0]) > 0)
        return rows[0][2] if rows else None

    # --- page bodies ------------------------------------------------------

    def write(self, name, section, lines):
        md = os.path.join(self.a.out, 'md', '%s.%s.md' % (name, section))
        with open(md, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')
        fname = name
        if section == '1' and name in self.slurm:
            fname = self.a.slurm_page_prefix + name
        page = os.path.join(self.a.out, 'man' + section,
                            '%s.%s' % (fname, section))
        meta = ['-M', 'title=' + name.upper(), '-M', 'section=' + section,
                '-M', 'header=Sluice manual',
                '-M', 'footer=Sluice ' + self.version]
        if self.a.date:
            meta += ['-M', 'date=' + self.a.date]
        subprocess.run([self.a.pandoc, '-s', '-f', PANDOC_FROM, '-t', 'man',
                        '--lua-filter', self.a.filter] + meta +
                       [md, '-o', page], check=True)

    def see_also(self, me):
        refs = ['sluice(1)'] + ['%s(1)' % n for n in self.slurm] + [
            'sluicectld(8)', 'sluiced(8)', 'sluice.conf(5)']
        refs = [r for r in refs if r.split('(')[0] != me]
        return ['# SEE ALSO', '', ', '.join(refs) + '.', '',
                'The whole documentation, of which this page is a part, is '
                'in ' + md_escape(self.a.docdir) + '; docs/cli.md has every '
                'command, docs/migrating-from-slurm.md the way from Slurm.',
                '']

    def whole(self, d):
        """A doc as a page: its introduction, then a section per ##."""
        out = ['# DESCRIPTION', ''] + shift(d.intro, 0)
        for title, body in d.sections:
            out += ['# ' + title, ''] + shift(body, 1)
        return out

    def synopsis_block(self, d):
        """A doc that opens with a code block: that block is the synopsis."""
        intro = d.intro
        i = 0
        while i < len(intro) and not intro[i].strip():
            i += 1
        if i < len(intro) and FENCE.match(intro[i]):
            j = i + 1
            while j < len(intro) and not FENCE.match(intro[j]):
                j += 1
            return intro[i:j + 1], intro[j + 1:]
        return None, intro

    def slurm_page(self, name):
        what = self.what(name) or 'a Slurm command of Sluice'
        out = ['# NAME', '', '%s - %s' % (name, md_escape(what)), '',
               '# SYNOPSIS', '']
        usage = run([self.a.sluice, 'help', name]).strip()
        usage = re.sub(r'^usage: ', '', usage)
        out += ['| ' + md_escape(usage or name)]
        for v in self.usage:
            if self.twin.get(v) == name:
                out += ['| ' + md_escape(self.usage[v])]
        out += ['']
        secs = [(t, b) for t, b in self.cli.sections
                if name in heading_slurm(t, self.slurm)]
        d = self.whole_doc(name)
        if d is not None:
            out += self.whole(d)
        else:
            out += ['# DESCRIPTION', '']
            if secs:
                out += shift(secs[0][1], 1)
                secs = secs[1:]
        for t, b in secs:
            out += ['# ' + t, ''] + shift(b, 1)
        out += self.common()
        return out + self.see_also(name)

    def common(self):
        """The options every command takes, as a section of a page."""
        for t, b in self.cli.sections:
            if plain(t) == COMMON:
                return ['# COMMON OPTIONS', ''] + shift(b, 1)
        return []

    def verb_sections(self, verb):
        """Sections documenting a verb that has no Slurm name."""
        found = []
        for d in self.docs:
            if title_starts_with(d.title, 'sluice ' + verb):
                found.append(('sluice ' + verb, d.intro, d.sections))
                continue
            for t, b in d.sections:
                in_cli = d is self.cli and verb in heading_verbs(t)
                starts = title_starts_with(t, 'sluice ' + verb)
                if in_cli or starts:
                    found.append((t, b, None))
        return found

    def sluice_page(self):
        c = self.cli
        out = ['# NAME', '', 'sluice - ' + md_escape(plain(c.title).lower()),
               '', '# SYNOPSIS', '']
        out += ['| ' + md_escape(u) for u in self.usage.values()]
        out += ['', '# DESCRIPTION', ''] + shift(c.intro, 1)
        out += ['# COMMANDS', '']
        seen = set()
        for verb, usage in self.usage.items():
            if verb in self.twin:
                continue
            secs = self.verb_sections(verb)
            if not secs:
                what = self.what(verb, verb=True) or ''
                out += ['## sluice ' + verb, '', '`' + usage + '`' +
                        (': ' + md_escape(what) if what else ''), '']
            for t, body, subs in secs:
                if t in seen:
                    continue
                seen.add(t)
                out += ['## ' + t, ''] + shift(body, 0)
                for st, sb in subs or []:
                    out += ['### ' + st, ''] + shift(sb, -1)
        twins = ['**sluice %s**: %s(1)' % (v, self.twin[v])
                 for v in self.usage if v in self.twin]
        out += ['## Verbs documented under their Slurm names', '',
                ', '.join(twins) + '.', '']
        return out + self.common() + self.see_also('sluice')

    def daemon_page(self, name):
        d = self.whole_doc(name)
        if d is None:
            sys.exit('manpages.py: no doc titled "%s ..."' % name)
        desc = re.sub(r'^' + re.escape(name) + r'[,:]?\s*', '', plain(d.title))
        syn, rest = self.synopsis_block(d)
        out = ['# NAME', '', '%s - %s' % (name, md_escape(desc)), '']
        if syn:
            out += ['# SYNOPSIS', ''] + syn + ['']
        d2 = Doc.__new__(Doc)
        d2.intro, d2.sections = rest, d.sections
        return out + self.whole(d2) + self.see_also(name)

    def conf_page(self):
        d = self.doc('configuration.md')
        out = ['# NAME', '',
               'sluice.conf - ' + md_escape(plain(d.title).lower()) +
               ' (also gres.conf, cgroup.conf)', '',
               '# SYNOPSIS', '', '/etc/sluice/sluice.conf, '
               '/etc/sluice/gres.conf, /etc/sluice/cgroup.conf', '']
        return out + self.whole(d) + self.see_also('sluice.conf')

    def make(self):
        for sub in ('md', 'man1', 'man5', 'man8'):
            os.makedirs(os.path.join(self.a.out, sub), exist_ok=True)
        self.version = run([self.a.sluice, 'version']).split()[-1]
        self.write('sluice', '1', self.sluice_page())
        for n in self.slurm:
            self.write(n, '1', self.slurm_page(n))
        for n in ('sluicectld', 'sluiced'):
            self.write(n, '8', self.daemon_page(n))
        self.write('sluice.conf', '5', self.conf_page())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sluice', required=True)
    ap.add_argument('--slurm-names', required=True)
    ap.add_argument('--docs', default='docs')
    ap.add_argument('--out', required=True)
    ap.add_argument('--date', default='')
    ap.add_argument('--slurm-page-prefix', default='')
    ap.add_argument('--docdir', default='docs/')
    ap.add_argument('--pandoc', default='pandoc')
    ap.add_argument('--filter', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'man-tables.lua'))
    Pages(ap.parse_args()).make()


if __name__ == '__main__':
    main()
