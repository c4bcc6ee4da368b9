#!/usr/bin/env python3
"""Check that SVG files are images a browser shows: well-formed XML whose
root is an <svg> of positive width and height (and a matching viewBox)
that draws something (lines, polylines, rectangles beyond the background).
With --png PNG..., also that each PNG (a headless browser's screenshot of
a plot) has the size it was asked for and is not blank.

Usage: svgcheck.py FILE.svg... [--png WxH FILE.png...]
Prints one line per file and exits 1 if any is wrong.
"""
import struct
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def check_svg(path):
    root = ET.parse(path).getroot()
    if root.tag != NS + 'svg':
        return 'root is %s, not svg' % root.tag
    w, h = float(root.get('width', 0)), float(root.get('height', 0))
    if w <= 0 or h <= 0:
        return 'width %s, height %s' % (w, h)
    vb = [float(x) for x in root.get('viewBox', '').split()]
    if vb != [0, 0, w, h]:
        return 'viewBox %s does not match %gx%g' % (vb, w, h)
    marks = sum(1 for el in root.iter()
                if el.tag in (NS + 'polyline', NS + 'line')
                or (el.tag == NS + 'rect' and el.get('fill') not in
                    ('white', 'none')))
    if marks == 0:
        return 'draws nothing'
    if root.find(NS + 'title') is None:
        return 'no title'
    return None


def check_png(path, want):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n' or data[12:16] != b'IHDR':
        return 'not a PNG'
    w, h = struct.unpack('>II', data[16:24])
    if (w, h) != want:
        return 'size %dx%d, asked for %dx%d' % (w, h, want[0], want[1])
    # a blank page of that size compresses to a few kilobytes
    if len(data) < 8000:
        return 'blank (%d bytes)' % len(data)
    return None


def main(args):
    bad = 0
    png = None
    for a in args:
        if a == '--png':
            png = ()
            continue
        if png == ():
            png = tuple(int(x) for x in a.split('x'))
            continue
        try:
            why = check_png(a, png) if png else check_svg(a)
        except (OSError, ET.ParseError, ValueError) as ex:
            why = str(ex)
        print('%s: %s' % (a, why or 'ok'))
        bad += why is not None
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
