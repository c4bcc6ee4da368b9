# The dashboard's DOM as Chromium dumped it (--dump-dom), for t33 to
# grep: every element that carries a data-* attribute, one per line,
#
#   div data-node=node04 data-gpu=2 data-state=busy data-job-id=8 ...
#
# (the attributes in document order; the tag first), or, with --text ID,
# the text of the element with that id.  Standard library only.
#
#   dashdom.py FILE            # the data-* lines
#   dashdom.py --text ID FILE  # the text inside <... id="ID">
import html.parser
import sys


class Data(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines = []

    def handle_starttag(self, tag, attrs):
        data = [f'{k}={v if v is not None else ""}' for k, v in attrs
                if k.startswith('data-')]
        if data:
            self.lines.append(' '.join([tag] + data))


VOID = {'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link',
        'meta', 'source', 'track', 'wbr'}


class Text(html.parser.HTMLParser):
    def __init__(self, want):
        super().__init__(convert_charrefs=True)
        self.want = want
        self.depth = 0   # elements open inside the wanted one (it counts 1)
        self.found = False
        self.text = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        if self.depth:
            self.depth += 1
        elif dict(attrs).get('id') == self.want:
            self.depth = 1
            self.found = True

    def handle_endtag(self, tag):
        if self.depth and tag not in VOID:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.text.append(data)


def main(argv):
    if len(argv) == 4 and argv[1] == '--text':
        p = Text(argv[2])
        with open(argv[3], encoding='utf-8') as f:
            p.feed(f.read())
        if not p.found:
            print(f'dashdom: no element with id {argv[2]}', file=sys.stderr)
            return 1
        sys.stdout.write(''.join(p.text))
        return 0
    if len(argv) != 2:
        print('usage: dashdom.py [--text ID] FILE', file=sys.stderr)
        return 2
    p = Data()
    with open(argv[1], encoding='utf-8') as f:
        p.feed(f.read())
    print('\n'.join(p.lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
